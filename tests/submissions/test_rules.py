"""Each choice of the Rules Submission at its boundary, and the workflow: draft, filed, decided, amended."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from compliance.games.math.core import OptionError
from compliance.models import SignedRecordError
from compliance.submissions import catalogue, selectors, services
from compliance.submissions.models import BoardDecision
from tests.factories import PASSWORD
from tests.submissions.conftest import ASIA, TODAY, approve

pytestmark = pytest.mark.django_db


def _set(sub: Any, code: str, officer: Any, **values: str) -> Any:
    current = dict(sub.rules.get(code, {}))
    return services.submission_game_set(submission=sub, code=code, values=current | values, user=officer)


def test_sic_bo_odds_one_step_below_the_minimum_are_refused_naming_the_wager(draft, compliance_officer):
    with pytest.raises(ValidationError, match=r"Three of a Kind pays at least 150 to 1 \(§ 539.6\(b\)\); 149 to 1"):
        _set(draft, "sic-bo", compliance_officer, **{"three-of-a-kind": "149 to 1"})
    with pytest.raises(ValidationError, match="Small Bet pays at least 1 to 1"):
        _set(draft, "sic-bo", compliance_officer, small="99 to 100")
    sub = _set(draft, "sic-bo", compliance_officer, **{"three-of-a-kind": "150 to 1", "two-of-a-kind": "10 to 1"})
    assert sub.rules["sic-bo"]["two-of-a-kind"] == "10 to 1"


def test_sic_bo_odds_stated_with_for_are_refused(draft, compliance_officer):
    with pytest.raises(ValidationError, match="never 'for'"):
        _set(draft, "sic-bo", compliance_officer, big="2 for 1")


def test_millionaire_row_at_one_dollar_one_cent_is_refused(draft, compliance_officer):
    with pytest.raises(ValidationError, match=r"at most \$1.00 \(§ 675a.2\(e\)\(4\)\); \$1.01 is more"):
        _set(draft, "high-roll-dice", compliance_officer, millionaire_row_max="1.01")
    assert _set(draft, "high-roll-dice", compliance_officer, millionaire_row_max="1.00").rules[
        "high-roll-dice"]["millionaire_row_max"] == "1.00"
    for hostile in ("abc", "NaN", "1e9", "1e400", "-1e400", "0.001", "-1", "Infinity", "$"):
        with pytest.raises(ValidationError):
            _set(draft, "high-roll-dice", compliance_officer, millionaire_row_max=hostile)


def test_asia_poker_paytable_and_dealer_hand_setting_are_required_choices(draft, compliance_officer):
    with pytest.raises(ValidationError, match="is one of A, B, C"):
        _set(draft, "asia-poker", compliance_officer, paytable="D")
    with pytest.raises(ValidationError, match=r"how the dealer's hands are set \(§ 575.11\(c\)\)"):
        _set(draft, "asia-poker", compliance_officer, dealer_hand_setting="  ")


def test_the_asia_poker_payout_limit_floor_is_computed_from_the_table_minimum(draft, compliance_officer, asia,
                                                                                   floorperson):
    from compliance.submissions import limits

    limits.limit_change_request(table=asia, minimum="25", maximum="500", patrons_playing=False,
                                user=floorperson)
    # Bonus offered: $25 on the Asia Poker Wager at 1 to 1 and $25 on the Bonus at 5,000 to 1 = $125,025.
    floor = catalogue.asia_poker_payout_floor(draft.rules["asia-poker"], Decimal(25))
    assert floor == Decimal("125025")
    with pytest.raises(ValidationError, match=r"\$125,024.00 is below \$125,025.00.*table AP-1's \$25.00 minimum"):
        _set(draft, "asia-poker", compliance_officer, payout_limit="125024")
    assert _set(draft, "asia-poker", compliance_officer, payout_limit="125025").rules["asia-poker"][
        "payout_limit"] == "125025.00"
    # Never below $50,000, whatever the minimum.
    with pytest.raises(ValidationError, match=r"at least \$50,000.00"):
        _set(draft, "asia-poker", compliance_officer, payout_limit="49999.99", bonus_wager="no")


def test_adjacent_areas_raise_the_floor():
    values = dict(ASIA, adjacent_areas="yes")
    assert catalogue.asia_poker_payout_floor(values, Decimal(10)) == Decimal("58020")
    assert catalogue.asia_poker_payout_floor(dict(values, bonus_wager="no"), Decimal(30000)) == Decimal(60000)
    assert catalogue.asia_poker_payout_floor(dict(ASIA, bonus_wager="no"), Decimal(10)) == Decimal(50000)


def test_the_payout_floor_reads_the_paytable_without_counting_a_hand():
    """§ 575.12(c)'s floor needs the paytable's odds only; the table's readiness asks it on a scan, and the engine's
    analysis counts every hand of C(53, 7) (a quarter of a second, once a process). Same figures as the analysis's
    tiers, for every paytable and one or two areas."""
    from compliance.games.math import asia_poker

    catalogue._analysis.cache_clear()  # neither the engine's nor the catalogue's kept analysis may answer it
    asia_poker.bonus_counts.cache_clear()
    floors = {(paytable, areas): catalogue.asia_poker_payout_floor(
        dict(ASIA, paytable=paytable, adjacent_areas=areas), Decimal(25)) for paytable in "ABC" for areas in ("no", "yes")}
    assert asia_poker.bonus_counts.cache_info().currsize == 0  # no hand was counted
    for (paytable, areas), floor in floors.items():
        tiers = sorted((t.net for t in catalogue.analysis("asia-poker", {"paytable": paytable}).wager("bonus").tiers),
                       reverse=True)
        count = 2 if areas == "yes" else 1
        most = count + sum(tiers[:count])
        assert most == count + sum(asia_poker.bonus_payouts(paytable)[:count]) and most.denominator == 1
        assert floor == max(Decimal(50000), Decimal(25) * most.numerator)
    with pytest.raises(OptionError, match="one of A, B, C"):
        asia_poker.bonus_payouts("D")


def test_the_paytable_choices_show_their_house_advantage_from_the_engine():
    from compliance.games.math.core import percent

    rows = dict(catalogue.choice_figures("asia-poker", catalogue.game_rules("asia-poker").option("paytable"), ASIA))
    assert [str(percent(rows[p][0].house_edge)) for p in "ABC"] == ["5.7891", "6.5429", "7.5401"]


def test_filing_freezes_the_version_in_the_model_and_the_database(draft, compliance_officer):
    services.submission_submit(submission=draft, user=compliance_officer, password=PASSWORD)
    draft.refresh_from_db()
    with pytest.raises(ValidationError, match="filed with the Board and cannot change"):
        _set(draft, "sic-bo", compliance_officer, big="2 to 1")
    draft.title = "rewritten"
    with pytest.raises(SignedRecordError):
        draft.save()
    if connection.vendor == "postgresql":
        with pytest.raises(Exception, match="signed"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("UPDATE submissions_rulessubmission SET rules = '{}' WHERE id = %s", [draft.pk])


def test_a_version_with_a_broken_rule_is_not_filed_even_through_the_generic_signing_page(
        clock, facility, compliance_officer):
    from compliance.services import signature_sign

    sub = services.submission_draft(facility=facility, title="v1", user=compliance_officer)  # dealer way missing
    with pytest.raises(ValidationError, match="dealer's hands"):
        services.submission_submit(submission=sub, user=compliance_officer, password=PASSWORD)
    with pytest.raises(ValidationError, match="dealer's hands"):
        signature_sign(record=sub, slot="submitted", user=compliance_officer, password=PASSWORD)
    assert not sub.is_signed()


def test_the_decision_is_recorded_once_and_rules_take_effect_on_their_day(draft, compliance_officer, clock):
    services.submission_submit(submission=draft, user=compliance_officer, password=PASSWORD)
    with pytest.raises(ValidationError, match="still to come"):
        services.board_decision_record(submission=draft, decision="approved", decided_on=TODAY + timedelta(days=1),
                                       effective_on=TODAY + timedelta(days=1), user=compliance_officer)
    with pytest.raises(ValidationError, match="reasons"):
        services.board_decision_record(submission=draft, decision="rejected", decided_on=TODAY,
                                       user=compliance_officer)
    services.board_decision_record(submission=draft, decision="approved", decided_on=TODAY,
                                   effective_on=TODAY + timedelta(days=3), user=compliance_officer)
    assert selectors.in_force(draft.facility) is None
    assert selectors.standing(draft) == "approved"
    assert selectors.in_force(draft.facility, TODAY + timedelta(days=3)) == draft
    with pytest.raises(ValidationError, match="already recorded"):
        services.board_decision_record(submission=draft, decision="rejected", decided_on=TODAY, reason="x",
                                       user=compliance_officer)
    decision = BoardDecision.objects.get(submission=draft)
    decision.reference = "changed"
    with pytest.raises(Exception, match="append-only"):
        decision.save()
    if connection.vendor == "postgresql":
        with pytest.raises(IntegrityError), transaction.atomic():
            BoardDecision.objects.create(facility=draft.facility, submission=services.submission_draft(
                facility=draft.facility, title="x", user=compliance_officer), decision="approved",
                decided_on=TODAY, effective_on=TODAY - timedelta(days=1), recorded_by=compliance_officer)


def test_an_amendment_copies_the_approved_version_and_the_diff_names_each_change(approved, compliance_officer,
                                                                                   clock):
    amendment = services.submission_draft(facility=approved.facility, title="Amendment: Sic Bo", user=compliance_officer)
    assert amendment.amends == approved and amendment.rules == approved.rules
    with pytest.raises(ValidationError, match="changes nothing"):
        services.submission_submit(submission=amendment, user=compliance_officer, password=PASSWORD)
    _set(amendment, "sic-bo", compliance_officer, **{"two-of-a-kind": "11 to 1"})
    amendment.refresh_from_db()
    assert selectors.diff(approved.rules, amendment.rules) == [
        ("Sic Bo", "Two of a Kind payout odds", "§ 539.6(b)", "8 to 1", "11 to 1")]
    approve(amendment, compliance_officer)
    assert selectors.in_force(approved.facility) == amendment
    assert selectors.standing(approved) == "superseded"
    assert selectors.rules_for(approved.facility, "sic-bo")["two-of-a-kind"] == "11 to 1"


def test_only_a_compliance_officer_drafts_or_files(facility, shift_manager, clock):
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        services.submission_draft(facility=facility, title="x", user=shift_manager)


def test_a_stale_amendment_is_not_filed_over_a_newer_approval(approved, compliance_officer, clock):
    older = services.submission_draft(facility=approved.facility, title="Older", user=compliance_officer)
    newer = services.submission_draft(facility=approved.facility, title="Newer", user=compliance_officer)
    _set(newer, "sic-bo", compliance_officer, big="2 to 1")
    approve(newer, compliance_officer)
    _set(older, "sic-bo", compliance_officer, small="2 to 1")
    with pytest.raises(ValidationError, match="version 3 has been approved since: filed, it would undo"):
        services.submission_submit(submission=older, user=compliance_officer, password=PASSWORD)


def test_typed_odds_are_filed_in_lowest_terms_and_the_dealer_words_never_state_odds_with_for(draft,
                                                                                             compliance_officer):
    assert _set(draft, "sic-bo", compliance_officer, **{"two-of-a-kind": "18 to 2"}).rules["sic-bo"][
        "two-of-a-kind"] == "9 to 1"
    with pytest.raises(ValidationError, match="never 'for'"):
        _set(draft, "asia-poker", compliance_officer, dealer_hand_setting="Pairs pay 2 for 1 in the low hand.")


def test_two_adjacent_areas_win_the_two_highest_bonus_tiers_at_most():
    # One deck (§ 575.3(a)): four 8s once; the other hand at best five aces (800 to 1).
    assert catalogue.asia_poker_payout_floor(dict(ASIA, adjacent_areas="yes"), Decimal(25)) == Decimal(25 * 5802)
