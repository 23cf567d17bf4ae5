"""Additional wagering requirements (§ 521.7(d)): per game in the Rules Submission, filed and frozen with it and
compared in the diff; words required, once, never odds with "for"; an increment divides the tables' limits; printed
on the guide, the complete rules and the signs."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from io import BytesIO

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from pypdf import PdfReader

from compliance.games.math.core import OptionError
from compliance.models import Game
from compliance.submissions import documents, limits, requirements, selectors, services
from compliance.submissions.readiness import submission_unmet
from tests.factories import PASSWORD
from tests.submissions.conftest import NOW, approve

pytestmark = pytest.mark.django_db

FIVES = [{"words": "Every wager is made in increments of $5.", "increment": "5"}]


def _text(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text() for page in PdfReader(BytesIO(pdf)).pages).split())


@pytest.mark.parametrize(("rows", "words"), [
    ([{"words": "", "increment": "5"}], "has an increment but no words"),
    ([{"words": "Pays 2 for 1 on doubles", "increment": ""}], "never 'for'"),
    ([{"words": "Wagers in $5 steps.", "increment": ""}, {"words": "wagers in  $5 steps", "increment": ""}],
     "repeats an earlier one"),
    ([{"words": "x" * 301, "increment": ""}], "longer than 300"),
    ([{"words": "Steps", "increment": "0"}], "between $0.01"),
    ([{"words": "Steps", "increment": "5.001"}], "in dollars and cents"),
    ([{"words": "Steps", "increment": "١٢"}], "amount in dollars"),
    ([{"words": "Steps", "increment": "NaN"}], "amount in dollars"),  # not a number at all
    ([{"words": f"Rule {n}", "increment": ""} for n in range(7)], "at most 6"),
    ("Wagers in steps", "a list of words"),
])
def test_a_requirement_is_refused_in_words(rows, words):
    with pytest.raises(OptionError, match=words.replace("$", r"\$").replace("(", r"\(")):
        requirements.clean_requirements("Sic Bo", rows)


def test_empty_rows_are_dropped_and_a_requirement_is_filed_as_typed():
    assert requirements.clean_requirements("Sic Bo", [{"words": "", "increment": ""}]) == []
    assert requirements.clean_requirements("Sic Bo", [{"words": " No  call bets. ", "increment": "$1,000"}]) == [
        {"words": "No call bets.", "increment": "1000.00"}]


def test_the_limits_are_multiples_of_the_increment():
    assert requirements.increment_refusals([Decimal(5)], Decimal(10), Decimal(500), where="table SB-1") == []
    [words] = requirements.increment_refusals([Decimal(5)], Decimal(12), Decimal(500), where="table SB-1")
    assert words == ("Wagers at table SB-1 are made in increments of $5.00 (§ 521.7(d)): the minimum $12.00 is not "
                     "a multiple of it.")
    [both] = requirements.increment_refusals([Decimal("2.50")], Decimal(11), Decimal(501), where="table X")
    assert "the minimum $11.00 and the maximum $501.00 are not a multiple of it" in both


def test_requirements_are_filed_frozen_and_compared(approved, compliance_officer):
    amendment = services.submission_draft(facility=approved.facility, title="Fives", user=compliance_officer)
    services.submission_requirements_set(submission=amendment, code="sic-bo", rows=FIVES, user=compliance_officer)
    amendment.refresh_from_db()
    assert amendment.rules["sic-bo"][requirements.KEY] == [{"words": FIVES[0]["words"], "increment": "5.00"}]
    assert "wagering_requirements" not in approved.rules["sic-bo"]
    assert selectors.diff(approved.rules, amendment.rules) == [
        ("Sic Bo", "Additional wagering requirements", "§ 521.7(d)", "—", "Every wager is made in increments of $5.")]
    # the choices' page saves the game's options and leaves its requirements as they are
    services.submission_game_set(submission=amendment, code="sic-bo", user=compliance_officer,
                                 values={k: v for k, v in amendment.rules["sic-bo"].items() if k != requirements.KEY})
    amendment.refresh_from_db()
    assert amendment.rules["sic-bo"][requirements.KEY]
    approve(amendment, compliance_officer)
    with pytest.raises(ValidationError, match="filed with the Board and cannot change"):
        services.submission_requirements_set(submission=amendment, code="sic-bo", rows=[], user=compliance_officer)


def test_a_version_without_requirements_hashes_as_before(approved):
    values = dict(approved.rules["sic-bo"])
    assert selectors.material_hash("sic-bo", values) == selectors.material_hash(
        "sic-bo", values | {requirements.KEY: []})
    assert selectors.material_hash("sic-bo", values) != selectors.material_hash(
        "sic-bo", values | {requirements.KEY: FIVES})


def test_an_increment_must_divide_every_table_s_limits_when_saved_and_filed(approved, sic_bo, floorperson,
                                                                           compliance_officer):
    limits.limit_change_request(table=sic_bo, minimum="12", maximum="500", patrons_playing=False, user=floorperson)
    amendment = services.submission_draft(facility=approved.facility, title="Fives", user=compliance_officer)
    with pytest.raises(ValidationError, match=r"table SB-1 .* the minimum \$12.00 is not a multiple of it\. Change "
                                              r"the table's limits in force first"):
        services.submission_requirements_set(submission=amendment, code="sic-bo", rows=FIVES, user=compliance_officer)
    services.submission_requirements_set(submission=amendment, code="sic-bo", user=compliance_officer,
                                         rows=[{"words": "Wagers in whole dollars.", "increment": "1"}])
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    services.submission_requirements_set(submission=amendment, code="sic-bo", rows=FIVES, user=compliance_officer)
    limits.limit_change_request(table=sic_bo, minimum="12", maximum="500", patrons_playing=False, user=floorperson)
    with pytest.raises(ValidationError, match=r"the minimum \$12\.00 is not a multiple"):  # checked again on filing
        services.submission_submit(submission=amendment, user=compliance_officer, password=PASSWORD)


def test_a_limit_change_off_the_increment_in_force_is_refused(approved, sic_bo, floorperson, compliance_officer):
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    amendment = services.submission_draft(facility=approved.facility, title="Fives", user=compliance_officer)
    services.submission_requirements_set(submission=amendment, code="sic-bo", rows=FIVES, user=compliance_officer)
    approve(amendment, compliance_officer)
    with pytest.raises(ValidationError, match=r"Version 2: Wagers at table SB-1 are made in increments of \$5.00 "
                                              r"\(§ 521.7\(d\)\): the maximum \$502.00 is not a multiple of it"):
        limits.limit_change_request(table=sic_bo, minimum="10", maximum="502", patrons_playing=False, user=floorperson)
    assert limits.limit_change_request(table=sic_bo, minimum="15", maximum="505", patrons_playing=False,
                                       user=floorperson).state == "applied"


def test_a_scheduled_change_off_the_increment_in_force_when_its_time_comes_is_not_applied(
        approved, sic_bo, floorperson, compliance_officer, clock):
    from compliance.submissions.models import WagerLimitChange

    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    amendment = services.submission_draft(facility=approved.facility, title="Fives", user=compliance_officer)
    services.submission_requirements_set(submission=amendment, code="sic-bo", rows=FIVES, user=compliance_officer)
    approve(amendment, compliance_officer)
    # a change written around the request's check (the services refuse it): the job still does not apply it
    change = WagerLimitChange.objects.create(
        table=sic_bo, minimum=12, maximum=500, patrons_playing=True, requested_at=NOW, requested_by=floorperson,
        effective_at=NOW + timedelta(minutes=30), posted_at=NOW, posted_by=floorperson, announced_at=NOW,
        announced_by=floorperson)
    clock.shift(timedelta(minutes=30))
    limits.limit_changes_apply()
    change.refresh_from_db()
    assert change.state == "lapsed"
    assert "wagers at table SB-1 are made in increments of $5.00 (§ 521.7(d))" in change.closed_reason


def test_the_tables_page_and_readiness_flag_limits_off_an_increment(approved, sic_bo, floorperson,
                                                                    compliance_officer, client_for):
    from compliance.submissions.models import WagerLimitChange

    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    amendment = services.submission_draft(facility=approved.facility, title="Fives", user=compliance_officer)
    services.submission_requirements_set(submission=amendment, code="sic-bo", rows=FIVES, user=compliance_officer)
    approve(amendment, compliance_officer)
    assert submission_unmet(sic_bo.facility, [sic_bo], NOW) == {}
    # limits written around the services (a migration, the admin): the tables page and readiness say so
    WagerLimitChange.objects.create(table=sic_bo, minimum=12, maximum=500, patrons_playing=False, requested_at=NOW,
                                    requested_by=floorperson, effective_at=NOW, state="applied", applied_at=NOW)
    [unmet] = submission_unmet(sic_bo.facility, [sic_bo], NOW)[sic_bo.pk]
    assert (unmet.code, unmet.clause) == ("submission:settings", "521.7(d)")
    assert "the minimum $12.00 is not a multiple of it" in unmet.words
    page = client_for(compliance_officer).get(reverse("submissions:tables")).content.decode()
    assert "not a multiple of it" in page and "Every wager is made in increments of $5." in page


def test_requirements_are_printed_on_the_guide_the_complete_rules_and_the_signs(approved, sic_bo, floorperson,
                                                                               compliance_officer, signs_approved):
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    amendment = services.submission_draft(facility=approved.facility, title="Fives", user=compliance_officer)
    rows = [*FIVES, {"words": "No wager after the dealer calls no more bets.", "increment": ""}]
    services.submission_requirements_set(submission=amendment, code="sic-bo", rows=rows, user=compliance_officer)
    approve(amendment, compliance_officer)
    guide = services.guide_generate(facility=approved.facility, game=Game.objects.get(code="sic-bo"),
                                    user=compliance_officer)
    assert {"heading": "Additional wagering requirements (§ 521.7(d))",
            "lines": [FIVES[0]["words"], rows[1]["words"]]} in guide.body["sections"]
    podium = _text(documents.podium_pdf(approved.facility, amendment))
    assert "Additional wagering requirement (§ 521.7(d))" in podium and "No wager after the dealer calls" in podium
    rules = selectors.table_rules(sic_bo)
    for pdf in (documents.payout_sign_pdf(rules, signs_approved["rules"]),
                documents.limits_sign_pdf(rules, signs_approved["limits"])):
        text = _text(pdf)
        assert "Wagering requirements (§ 521.7(d))" in text and "Every wager is made in increments of $5." in text


def test_the_requirements_page_saves_and_refuses_in_words(approved, compliance_officer, client_for):
    draft = services.submission_draft(facility=approved.facility, title="Fives", user=compliance_officer)
    client = client_for(compliance_officer)
    url = reverse("submissions:requirements", args=[draft.pk, "three-dice-football"])
    detail = client.get(reverse("submissions:detail", args=[draft.pk])).content.decode()
    assert url in detail  # a game with no choices still takes requirements
    refused = client.post(url, {"words_1": "Steps", "increment_1": "", "words_2": "steps", "increment_2": ""})
    assert refused.status_code == 422 and "repeats an earlier one" in refused.content.decode()
    saved = client.post(url, {"words_1": "Wagers in whole dollars.", "increment_1": "1"})
    assert saved.status_code == 302
    draft.refresh_from_db()
    assert draft.rules["three-dice-football"][requirements.KEY] == [
        {"words": "Wagers in whole dollars.", "increment": "1.00"}]
    page = client.get(reverse("submissions:detail", args=[draft.pk])).content.decode()
    assert "Wagers in whole dollars." in page and "increment $1</span>" in page
    compare = client.get(reverse("submissions:compare"), {"a": approved.pk, "b": draft.pk}).content.decode()
    assert "Additional wagering requirements" in compare and "§ 521.7(d)" in compare
