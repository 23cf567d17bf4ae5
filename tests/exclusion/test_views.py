"""The screens: lists and their age, the import, runs, the review queue and the signed decision."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compliance.exclusion import services
from compliance.exclusion.matching import Candidate
from compliance.exclusion.models import ExclusionList, MatchDecision, ScreeningMatch
from compliance.roles import Role
from tests.exclusion.conftest import SELF_EXCLUDED, list_file
from tests.factories import PASSWORD, make_person

pytestmark = pytest.mark.django_db

MARKETING_PAGES = ["exclusion:lists", "exclusion:runs"]
COMPLIANCE_PAGES = ["exclusion:import", "exclusion:queue"]


@pytest.fixture
def run(facility, marketing_supervisor, lists_in_force, mailing):
    return services.screening_run(facility=facility, subject=mailing, user=marketing_supervisor, candidates=[
        Candidate("P-1", "Bob Smith", date(1970, 3, 4), ""),
        Candidate("P-2", "Robert Smiht", date(1970, 3, 4), "12 Main St, Harrisburg, PA 17101"),
    ])


def _pages(run) -> dict[str, list[str]]:
    review = ScreeningMatch.objects.get(run=run, candidate_key="P-2")
    return {
        "marketing": [reverse(name) for name in MARKETING_PAGES] + [run.get_absolute_url()],
        "compliance": [reverse(name) for name in COMPLIANCE_PAGES] + [
            review.get_absolute_url(), run.self_exclusion_list.get_absolute_url()],
    }


@pytest.mark.parametrize(("role", "sees"), [
    (Role.COMPLIANCE_OFFICER, {"marketing", "compliance"}),
    (Role.BOARD_INSPECTOR, {"marketing", "compliance"}),
    (Role.MARKETING_SUPERVISOR, {"marketing"}),
    (Role.MARKETING_STAFF, {"marketing"}),
    (Role.FINANCE_SUPERVISOR, set()),
    (Role.DEALER, set()),
    (Role.ADMINISTRATOR, set()),
])
def test_pages_open_for_the_roles_that_use_them_and_refuse_the_others(role, sees, facility, run, client_for):
    client = client_for(make_person(role, facility))
    for group, urls in _pages(run).items():
        for url in urls:
            expected = 200 if group in sees else 403
            assert client.get(url).status_code == expected, (role, url)


def test_the_lists_page_says_how_old_each_copy_is(facility, lists_in_force, client_for, marketing_staff):
    page = client_for(marketing_staff).get(reverse("exclusion:lists")).content.decode()
    assert "Current" in page and "Mon 2 Nov 2026" in page


def test_the_lists_page_says_a_missing_list_blocks_mailings(facility, import_list, client_for, marketing_staff):
    import_list()
    page = client_for(marketing_staff).get(reverse("exclusion:lists")).content.decode()
    assert "Missing" in page and "No Exclusion list of persons required to be excluded" in page


def test_a_list_is_imported_through_the_page(facility, compliance_officer, client_for):
    upload = SimpleUploadedFile("board.csv", list_file(SELF_EXCLUDED), content_type="text/csv")
    response = client_for(compliance_officer).post(reverse("exclusion:import"), {
        "kind": "self_exclusion", "board_list_date": "2026-11-02", "file": upload, "password": PASSWORD})
    imported = ExclusionList.objects.get()
    assert response.status_code == 302 and response["Location"] == imported.get_absolute_url()
    assert imported.row_count == len(SELF_EXCLUDED) and imported.file_name == "board.csv"


def test_a_malformed_file_is_refused_on_the_page_naming_the_line(facility, compliance_officer, client_for):
    rows = [*SELF_EXCLUDED, ("SE-9", "Lee", "Ann", "", "", "1970-02-30", "", "", "", "")]
    upload = SimpleUploadedFile("board.csv", list_file(rows), content_type="text/csv")
    response = client_for(compliance_officer).post(reverse("exclusion:import"), {
        "kind": "self_exclusion", "board_list_date": "2026-11-02", "file": upload, "password": PASSWORD})
    assert response.status_code == 422
    assert "Line 7: the date of birth &#x27;1970-02-30&#x27; is not a date." in response.content.decode()
    assert not ExclusionList.objects.exists()


def test_the_queue_shows_patron_and_entry_and_the_decision_is_signed_on_the_match_page(run, compliance_officer,
                                                                                        client_for):
    client = client_for(compliance_officer)
    queue = client.get(reverse("exclusion:queue")).content.decode()
    assert "Robert Smiht" in queue and "Robert James Smith" in queue and "Bob Smith" not in queue
    review = ScreeningMatch.objects.get(run=run, candidate_key="P-2")
    page = client.get(review.get_absolute_url()).content.decode()
    assert "Board id SE-1" in page and "Sign the decision" in page
    response = client.post(review.get_absolute_url(), {"decision": "excluded", "reason": "Same birthday and home.",
                                                        "password": PASSWORD})
    assert response.status_code == 302
    decision = MatchDecision.objects.get()
    assert decision.is_complete and decision.created_by == compliance_officer
    assert "Robert Smiht" not in client.get(reverse("exclusion:queue")).content.decode()
    decided = client.get(review.get_absolute_url()).content.decode()
    assert "Decision: Excluded" in decided and "Sign the decision" not in decided


def test_the_inspector_reads_the_match_without_its_decision_form_and_cannot_post(run, inspector, client_for):
    client = client_for(inspector)
    review = ScreeningMatch.objects.get(run=run, candidate_key="P-2")
    page = client.get(review.get_absolute_url()).content.decode()
    # The match is a record the inspector reads, side by side; the decision is compliance's (issue 25).
    assert "P-2" in page and 'method="post"' not in page.split('<main')[1].split("</main>")[0]
    assert client.post(review.get_absolute_url(), {"decision": "excluded", "reason": "x",
                                                   "password": PASSWORD}).status_code == 403
    assert client.post(reverse("exclusion:import"), {}).status_code == 403
    assert not MatchDecision.objects.exists()


def test_a_match_of_another_facility_is_not_found(run, other_facility, client_for):
    officer = make_person(Role.COMPLIANCE_OFFICER, other_facility)
    review = ScreeningMatch.objects.get(run=run, candidate_key="P-2")
    assert client_for(officer).get(review.get_absolute_url()).status_code == 404
    assert client_for(officer).get(run.get_absolute_url()).status_code == 404


HOSTILE = st.one_of(
    st.sampled_from(["", "0", "-1", "99999999999999999999", "9999-12-31", "0001-01-01", "2026-02-30", "١٢٣",
                     "<b>x", "=HYPERLINK(\"x\")", "\x00", "excluded", "not_same_person", PASSWORD]),
    st.text(max_size=30),
)


@pytest.mark.parametrize("form", ["import", "decide"])
def test_no_generated_input_breaks_a_form(form, run, compliance_officer, client_for):
    client = client_for(compliance_officer)
    review = ScreeningMatch.objects.get(run=run, candidate_key="P-2")
    url = reverse("exclusion:import") if form == "import" else review.get_absolute_url()
    fields = (["kind", "board_list_date", "password"] if form == "import" else ["decision", "reason", "password"])

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(values=st.lists(HOSTILE, min_size=3, max_size=3), content=st.binary(max_size=200))
    def post(values: list[str], content: bytes) -> None:
        data: dict[str, object] = dict(zip(fields, values, strict=True))
        if form == "import":
            data["file"] = SimpleUploadedFile("x.csv", content)
        assert client.post(url, data).status_code < 500

    post()


def test_a_long_list_is_read_a_page_at_a_time_from_a_line_anyone_can_type(facility, import_list, compliance_officer,
                                                                          client_for, monkeypatch):
    """Issue 27: 200,000 entries a list; pages by keyset on (list, line), no count; "Go to line" jumps; anything
    typed that is not a line number is said in words and the list starts at its beginning."""
    from compliance.exclusion import selectors
    from tests.keyset_pages import assert_no_count

    real = selectors.entries_page
    monkeypatch.setattr(selectors, "entries_page", lambda listed, start: real(listed, start, per_page=2))
    listed = import_list()
    client = client_for(compliance_officer)
    first = client.get(listed.get_absolute_url())
    # The file's lines: its header is line 1, the five people lines 2 to 6.
    assert [e.line for e in first.context["page"]] == [2, 3] and first.context["page"].next_from == 4
    second = client.get(listed.get_absolute_url(), {"from": "4"})
    assert [e.line for e in second.context["page"]] == [4, 5]
    assert second.context["page"].previous_from == 2 and second.context["page"].next_from == 6
    assert 'href="?from=2"' in second.content.decode() and 'href="?from=6"' in second.content.decode()
    last = client.get(listed.get_absolute_url(), {"from": "6"})
    assert [e.line for e in last.context["page"]] == [6] and last.context["page"].next_from is None
    past = client.get(listed.get_absolute_url(), {"from": "1,000"})
    assert list(past.context["page"]) == [] and past.context["page"].previous_from == 5
    assert_no_count(client, listed.get_absolute_url(), [{}, {"from": "4"}])
    for hostile in ("x", "-1", "1e9", "٣", "9" * 30, "1; DROP TABLE"):
        response = client.get(listed.get_absolute_url(), {"from": hostile})
        assert response.status_code == 200 and "not a number to start from" in response.content.decode(), hostile
        assert [e.line for e in response.context["page"]] == [2, 3]
