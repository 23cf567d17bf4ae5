"""A table runs only what the approved submission has; the payout and limit signs say "to", never "for"; guides
are distributed only once approved and while they state the rules in force; the public page needs no sign-in."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from io import BytesIO
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from pypdf import PdfReader

from compliance.submissions import documents, limits, selectors, services
from tests.factories import PASSWORD
from tests.submissions.conftest import NOW, TODAY, approve

pytestmark = pytest.mark.django_db


def _text(pdf: bytes) -> str:
    return " ".join(page.extract_text() for page in PdfReader(BytesIO(pdf)).pages)


def test_a_table_cannot_run_an_option_the_approved_submission_does_not_have(approved, hrd, asia, shift_manager):
    assert approved.rules["high-roll-dice"]["six_dice"] == "no"
    with pytest.raises(ValidationError, match=r"does not offer the six-dice variation \(§ 675a.6\(a\)"):
        services.table_setting_set(table=hrd, options={"six_dice": "yes"}, user=shift_manager)
    with pytest.raises(ValidationError, match=r"does not permit wagering on two adjacent betting areas"):
        services.table_setting_set(table=asia, options={"bonus_wager": "yes", "adjacent_areas": "yes"},
                                   user=shift_manager)
    services.table_setting_set(table=asia, options={"bonus_wager": "yes"}, user=shift_manager)
    rules = selectors.table_rules(asia)
    assert rules.runs("bonus_wager") and not rules.refusals


def test_without_an_approved_submission_no_permission_is_run(clock, hrd, shift_manager):
    with pytest.raises(ValidationError, match="No approved Rules Submission is in force"):
        services.table_setting_set(table=hrd, options={"six_dice": "yes"}, user=shift_manager)


def test_an_amendment_withdrawing_a_permission_flags_the_tables_still_set_to_it(approved, asia, shift_manager,
                                                                                 compliance_officer):
    services.table_setting_set(table=asia, options={"bonus_wager": "yes"}, user=shift_manager)
    amendment = services.submission_draft(facility=approved.facility, title="No bonus", user=compliance_officer)
    services.submission_game_set(submission=amendment, code="asia-poker", user=compliance_officer,
                                 values=dict(amendment.rules["asia-poker"], bonus_wager="no"))
    approve(amendment, compliance_officer)
    conflicts = [row for row in selectors.tables_rules(approved.facility) if row.refusals]
    assert [c.table for c in conflicts] == [asia]
    assert "does not offer the bonus wager" in conflicts[0].refusals[0]
    assert not selectors.table_rules(asia).runs("bonus_wager")  # the sign leaves it off
    assert "Bonus" not in " ".join(documents.payout_sign_lines(selectors.table_rules(asia)))


def test_the_dashboards_name_a_table_the_rules_in_force_do_not_allow_until_it_is_set_right(
        approved, asia, hrd, shift_manager, floorperson, compliance_officer, inspector, client_for):
    """The Rules Submission panel lists what the readiness service finds (the board's and Open's answer), with the
    way out; the shift manager's line leads to the table's options, a reader who cannot set them is led to the
    tables' page; once the table is set right the line is gone on the next view, not seconds later."""
    services.table_setting_set(table=asia, options={"bonus_wager": "yes"}, user=shift_manager)
    amendment = services.submission_draft(facility=approved.facility, title="No bonus", user=compliance_officer)
    services.submission_game_set(submission=amendment, code="asia-poker", user=compliance_officer,
                                 values=dict(amendment.rules["asia-poker"], bonus_wager="no"))
    approve(amendment, compliance_officer)
    setting_page = reverse("submissions:table-setting", args=[asia.pk])
    for person in (shift_manager, floorperson, compliance_officer, inspector):
        lines = _panel_lines(client_for(person), "Rules Submission")
        link = setting_page if person == shift_manager else reverse("submissions:tables")
        at_odds = [words for href, words in lines if words.startswith("Table ") and href == link]
        assert len(at_odds) == 1 and at_odds[0].startswith(
            f"Table {asia.number}: The approved Rules Submission does not offer the bonus wager"), (person, lines)
        assert "sets it to run only the options an approved version grants" in at_odds[0]
        assert not [words for _, words in lines if words.startswith(f"Table {hrd.number}:")]  # nothing at odds there
    services.table_setting_set(table=asia, options={"bonus_wager": "no"}, user=shift_manager)
    assert not [words for _, words in _panel_lines(client_for(shift_manager), "Rules Submission")
                if words.startswith("Table ")]


def _panel_lines(client: Client, title: str) -> list[tuple[str, str]]:
    """(link, words) of each line of the dashboard's panel ``title``."""
    page = client.get("/").content.decode()
    panel = re.search(rf'<h2 id="panel-\d+">{re.escape(title)}</h2>(.*?)</section>', page, re.S)
    assert panel is not None, page
    return [(href or "", html.unescape(words)) for href, words in
            re.findall(r'<li class="[a-z]*">(?:<a href="([^"]*)">)?(.*?)(?:</a>)?</li>', panel.group(1))]


FOR = re.compile(r"\bfor\b", re.IGNORECASE)


@pytest.mark.parametrize("table_fixture", ["asia", "hrd", "sic_bo"])
def test_the_payout_sign_states_odds_with_to_and_never_for(request, approved, shift_manager, table_fixture,
                                                          signs_approved):
    table = request.getfixturevalue(table_fixture)
    if table_fixture == "asia":
        services.table_setting_set(table=table, options={"bonus_wager": "yes"}, user=shift_manager)
    text = _text(documents.payout_sign_pdf(selectors.table_rules(table), signs_approved["rules"]))
    assert " to 1" in text
    assert not FOR.search(text), FOR.search(text)


def test_the_asia_poker_sign_carries_the_payout_limit_and_the_paytable_filed(approved, asia, shift_manager,
                                                                              compliance_officer):
    amendment = services.submission_draft(facility=approved.facility, title="Limit", user=compliance_officer)
    services.submission_game_set(submission=amendment, code="asia-poker", user=compliance_officer,
                                 values=dict(amendment.rules["asia-poker"], payout_limit="250000"))
    approve(amendment, compliance_officer)
    services.table_setting_set(table=asia, options={"bonus_wager": "yes"}, user=shift_manager)
    lines = documents.payout_sign_lines(selectors.table_rules(asia))
    assert "Payout limit: the most paid to a player on a single hand is $250,000.00" in lines
    assert any("Natural straight flush: 50 to 1" in line for line in lines)  # paytable B


def test_the_limit_sign_gives_the_time_and_the_settlement_rule(approved, sic_bo, floorperson, signs_approved):
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    change = limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=True,
                                         effective_at=NOW + timedelta(minutes=40), user=floorperson)
    text = " ".join(_text(documents.limit_sign_pdf(change, selectors.current_limits(sic_bo),
                                                   signs_approved["limit-change"])).split())
    assert "At 20:40 on Monday 2 March 2026" in text
    assert "Minimum wager $25.00" in text and "Maximum wager $1,000.00" in text
    assert "paid or lost in its entirety" in text and "§ 521.7(c)" in text


def _approved_guide(facility: Any, officer: Any, game: Any) -> Any:
    guide = services.guide_generate(facility=facility, game=game, user=officer)
    services.guide_submit(guide=guide, user=officer, password=PASSWORD)
    services.guide_approval_record(guide=guide, approved_on=TODAY, reference="BGO-G1", user=officer)
    return guide


def test_the_public_guide_page_needs_no_sign_in_and_shows_only_approved_guides(approved, compliance_officer):
    from compliance.models import Game

    sic_bo_game, asia_game = Game.objects.get(code="sic-bo"), Game.objects.get(code="asia-poker")
    _approved_guide(approved.facility, compliance_officer, sic_bo_game)
    unapproved = services.guide_generate(facility=approved.facility, game=asia_game, user=compliance_officer)
    anonymous = Client()
    page = anonymous.get(f"/guides/{approved.facility.code}/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Three of a Kind: 150 to 1" in body
    assert "This guide is being revised" in body  # Asia Poker: generated, not approved
    assert unapproved.body["sections"][0]["lines"][0] not in body
    pdf = anonymous.get(f"/guides/{approved.facility.code}/sic-bo.pdf")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert anonymous.get(f"/guides/{approved.facility.code}/asia-poker.pdf").status_code == 404
    assert anonymous.get("/guides/no-such-casino/").status_code == 404


def test_a_materially_changed_guide_is_withdrawn_until_approved_again(approved, compliance_officer):
    from compliance.models import Game

    game = Game.objects.get(code="sic-bo")
    first = _approved_guide(approved.facility, compliance_officer, game)
    with pytest.raises(ValidationError, match="already states the latest approved rules"):
        services.guide_generate(facility=approved.facility, game=game, user=compliance_officer)
    amendment = services.submission_draft(facility=approved.facility, title="Sic Bo odds", user=compliance_officer)
    services.submission_game_set(submission=amendment, code="sic-bo", user=compliance_officer,
                                 values=dict(amendment.rules["sic-bo"], **{"two-of-a-kind": "10 to 1"}))
    approve(amendment, compliance_officer)
    assert dict(selectors.public_guides(approved.facility))[game] is None  # withdrawn: states the old odds
    second = services.guide_generate(facility=approved.facility, game=game, user=compliance_officer)
    assert second.version == 2 and second.material_hash != first.material_hash
    with pytest.raises(ValidationError, match="send the sample first"):
        services.guide_approval_record(guide=second, approved_on=TODAY, user=compliance_officer)
    services.guide_submit(guide=second, user=compliance_officer, password=PASSWORD)
    assert dict(selectors.public_guides(approved.facility))[game] is None  # sent, not yet approved
    services.guide_approval_record(guide=second, approved_on=TODAY, user=compliance_officer)
    assert dict(selectors.public_guides(approved.facility))[game] == second


def test_the_guide_never_says_for(approved, compliance_officer):
    from compliance.models import Game

    for code in ("sic-bo", "asia-poker", "high-roll-dice", "three-dice-football"):
        guide = services.guide_generate(facility=approved.facility, game=Game.objects.get(code=code),
                                        user=compliance_officer)
        text = " ".join(line for s in guide.body["sections"] for line in [s["heading"], *s["lines"]])
        assert not FOR.search(text), (code, FOR.search(text))


def test_the_podium_prints_the_complete_rules(approved):
    text = _text(documents.podium_pdf(approved.facility, approved))
    assert "575.12. Payout odds; payout limitation" in " ".join(text.split()) or "§ 575.12" in text
    assert "Rules Submission in force: version 1" in " ".join(text.split())
