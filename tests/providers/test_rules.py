"""The date rules of ch. 528 and the legs of § 528.7 at their boundaries, with no database."""

from __future__ import annotations

from datetime import date, timedelta

from compliance.providers.rules import (
    APPROVED,
    DENIED,
    PermissionFacts,
    Standing,
    TermFacts,
    expiry_of,
    last_day_to_renew,
    permission_standing,
    provider_standing,
    reminder_stage,
    renewal_in_time,
    term_standing,
    use_problems,
    use_refusal,
)

APPROVED_ON = date(2022, 5, 10)
EXPIRES = date(2026, 5, 10)
DAY = timedelta(days=1)


def test_a_certification_is_valid_four_years_from_the_boards_approval():
    assert expiry_of(APPROVED_ON) == EXPIRES
    assert term_standing(TermFacts(APPROVED_ON), EXPIRES).in_effect
    after = term_standing(TermFacts(APPROVED_ON), EXPIRES + DAY)
    assert not after.in_effect and "no renewal application received" in after.words and after.clause == "528.4(b)"
    assert not term_standing(TermFacts(APPROVED_ON), APPROVED_ON - DAY).in_effect


def test_an_approval_on_29_february_expires_on_28_february_when_the_year_has_no_29th():
    assert expiry_of(date(2024, 2, 29)) == date(2028, 2, 29)
    assert expiry_of(date(2096, 2, 29)) == date(2100, 2, 28)


def test_a_renewal_filed_exactly_60_days_before_expiry_is_in_time_and_59_is_late():
    assert last_day_to_renew(EXPIRES) == EXPIRES - timedelta(days=60)
    assert renewal_in_time(EXPIRES - timedelta(days=60), EXPIRES)
    assert not renewal_in_time(EXPIRES - timedelta(days=59), EXPIRES)


def test_a_renewal_filed_in_time_keeps_the_certification_in_effect_after_expiry_until_decided():
    term = TermFacts(APPROVED_ON, renewal_filed_on=EXPIRES - timedelta(days=60))
    for later in (EXPIRES + DAY, EXPIRES + timedelta(days=400)):
        standing = term_standing(term, later)
        assert standing.in_effect and standing.clause == "528.4(c)" and "not decided" in standing.words
        assert standing.flag == ""


def test_a_renewal_received_59_days_before_expiry_is_late_but_keeps_it_in_effect_flagged():
    """§ 528.4(c): "received by the Board" continues the certification; lateness under (b) is flagged, not lapsed."""
    filed = EXPIRES - timedelta(days=59)
    term = TermFacts(APPROVED_ON, renewal_filed_on=filed)
    assert not term_standing(term, filed - DAY).flag  # not yet received that day
    before = term_standing(term, EXPIRES)
    assert before.in_effect and "Renewal filed late" in before.flag and "§ 528.4(b)" in before.flag
    for later in (EXPIRES + DAY, EXPIRES + timedelta(days=400)):
        standing = term_standing(term, later)
        assert standing.in_effect and standing.clause == "528.4(c)" and "late, but before the expiry" in standing.words
        assert "due by 11 Mar 2026" in standing.flag and "§ 528.4(b)" in standing.flag


def test_a_renewal_received_on_the_day_of_expiry_keeps_it_and_one_received_the_day_after_renews_nothing():
    on_the_day = TermFacts(APPROVED_ON, renewal_filed_on=EXPIRES)
    assert term_standing(on_the_day, EXPIRES + DAY).in_effect
    after = term_standing(TermFacts(APPROVED_ON, renewal_filed_on=EXPIRES + DAY), EXPIRES + DAY)
    assert not after.in_effect and "renews nothing" in after.words and after.flag == ""


def test_with_no_renewal_received_the_certification_lapses_the_day_after_expiry():
    assert term_standing(TermFacts(APPROVED_ON), EXPIRES).in_effect
    lapsed = term_standing(TermFacts(APPROVED_ON), EXPIRES + DAY)
    assert not lapsed.in_effect and lapsed.words.startswith("Lapsed")


def test_a_late_renewal_denied_ends_the_certification_and_its_flag_on_the_day_of_the_decision():
    decided = EXPIRES + timedelta(days=30)
    term = TermFacts(APPROVED_ON, EXPIRES - timedelta(days=10), DENIED, decided)
    assert term_standing(term, decided - DAY).in_effect and term_standing(term, decided - DAY).flag
    standing = term_standing(term, decided)
    assert not standing.in_effect and standing.flag == "" and standing.clause == "528.4(c)"


def test_a_denial_ends_the_certification_on_the_day_the_board_sends_it():
    decided = EXPIRES + timedelta(days=30)
    term = TermFacts(APPROVED_ON, EXPIRES - timedelta(days=90), DENIED, decided)
    assert term_standing(term, decided - DAY).in_effect
    standing = term_standing(term, decided)
    assert not standing.in_effect and "denied" in standing.words and standing.clause == "528.4(c)"


def test_an_approved_renewal_hands_over_to_the_new_term_on_the_day_of_approval():
    decided = EXPIRES + timedelta(days=10)
    old = TermFacts(APPROVED_ON, EXPIRES - timedelta(days=61), APPROVED, decided)
    assert term_standing(old, decided - DAY).in_effect
    assert not term_standing(old, decided).in_effect
    new = TermFacts(decided)
    assert term_standing(new, decided).in_effect and expiry_of(decided) == date(2030, 5, 20)


def test_a_permission_is_in_effect_until_the_date_to_cease():
    granted, cease = date(2026, 1, 5), date(2026, 4, 1)
    assert not permission_standing(PermissionFacts(granted), granted - DAY).in_effect
    assert permission_standing(PermissionFacts(granted), date(2030, 1, 1)).in_effect
    rescinded = PermissionFacts(granted, cease)
    before = permission_standing(rescinded, cease - DAY)
    assert before.in_effect and "must cease by 1 Apr 2026" in before.words
    gone = permission_standing(rescinded, cease)
    assert not gone.in_effect and gone.clause == "528.8(b)"


def test_the_reminder_due_on_each_day_before_expiry():
    term = TermFacts(APPROVED_ON)
    stage = {days: reminder_stage(term, EXPIRES - timedelta(days=days)) for days in (91, 90, 76, 75, 62, 61, 60, 59, 0)}
    assert stage == {91: "", 90: "90", 76: "90", 75: "75", 62: "75", 61: "61", 60: "61", 59: "late", 0: "late"}
    assert reminder_stage(term, EXPIRES + DAY) == ""
    assert reminder_stage(TermFacts(APPROVED_ON, renewal_filed_on=EXPIRES - timedelta(days=80)), EXPIRES - DAY * 70) == ""


def test_a_providers_standing_is_its_first_term_in_effect():
    old = TermFacts(APPROVED_ON, EXPIRES - timedelta(days=61), APPROVED, EXPIRES + DAY * 10)
    new = TermFacts(EXPIRES + DAY * 10)
    assert provider_standing([new, old], EXPIRES + DAY * 9).in_effect  # the old term, renewal pending
    assert provider_standing([new, old], EXPIRES + DAY * 10).words.startswith("Certified until 20 May 2030")
    assert not provider_standing([], EXPIRES).in_effect


def _legs(**changes):
    facts = {"provider_name": "Dragon", "facility_name": "River Casino", "on": EXPIRES,
             "certified": Standing(True, "Certified.", "528.4(a)"), "permitted": Standing(False, "None.", "528.8(a)"),
             "lab_approved_on": EXPIRES, "use_approved_on": EXPIRES} | changes
    return use_problems(**facts)


def test_each_leg_of_528_7_on_its_day():
    assert _legs() == []
    assert [p.clause for p in _legs(lab_approved_on=EXPIRES + DAY)] == ["528.7(1)"]
    assert [p.clause for p in _legs(use_approved_on=None)] == ["528.7(3)"]
    assert _legs(certified=Standing(False, "Lapsed.", "528.4(b)"), permitted=Standing(True, "Permitted.", "528.8(a)")) == []
    lapsed = _legs(certified=Standing(False, "Lapsed.", "528.4(b)"), lab_approved_on=None)
    assert [p.clause for p in lapsed] == ["528.7(4)", "528.7(1)"]
    refusal = use_refusal("Side bet", lapsed)
    assert refusal.startswith("Side bet may not be used at a table (§ 528.7): Dragon is neither certified")
    assert use_refusal("Side bet", []) == ""
