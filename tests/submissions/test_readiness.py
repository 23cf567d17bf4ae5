"""Chapter 521's requirements of a table for the readiness service: limits in force (§ 521.7(a)), an approved Rules
Submission in force (§ 521.8(b)) and the table inside it; three queries whatever the number of tables."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from compliance.readiness import sources
from compliance.submissions import limits, services
from compliance.submissions.readiness import submission_unmet
from tests.equipment.conftest import make_table
from tests.submissions.conftest import NOW, TODAY, approve

pytestmark = pytest.mark.django_db


def _unmet(table: Any, at: Any = NOW) -> list[Any]:
    table.refresh_from_db()
    return submission_unmet(table.facility, [table], at).get(table.pk, [])


def _codes(table: Any, at: Any = NOW) -> list[str]:
    return [u.code for u in _unmet(table, at)]


def test_the_source_is_registered():
    assert "submissions" in sources()


def test_a_table_with_no_limits_is_not_ready_and_says_who_sets_them(approved, sic_bo):
    [unmet] = _unmet(sic_bo)
    assert (unmet.code, unmet.clause, unmet.who, unmet.overridable) == ("limits", "521.7(a)",
                                                                         "a floorperson or shift manager", False)
    assert unmet.link == reverse("submissions:limit-request", args=[sic_bo.pk])
    assert unmet.words == ("Table SB-1 has no minimum and maximum wager in force (§ 521.7(a)): a floorperson or "
                           "shift manager sets them on the wager limits page before it opens.")


def test_limits_applied_meet_it(approved, sic_bo, floorperson):
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    assert _codes(sic_bo) == []


def test_limits_applied_after_the_instant_asked_about_do_not_count(approved, sic_bo, floorperson, clock):
    clock.shift(timedelta(minutes=5))
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    assert _codes(sic_bo, NOW) == ["limits"]
    assert _codes(sic_bo, NOW + timedelta(minutes=5)) == []


def test_a_change_cancelled_or_not_applied_leaves_the_previous_limits_in_force(approved, sic_bo, floorperson,
                                                                             signs_approved, clock):
    first = limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=True,
                                        effective_at=NOW + timedelta(minutes=30), user=floorperson)
    limits.limit_change_cancel(change=first, reason="Changed our mind", user=floorperson)
    assert _codes(sic_bo) == ["limits"]  # nothing ever applied: still unmet
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    lapsing = limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=True,
                                          effective_at=NOW + timedelta(minutes=30), user=floorperson)
    clock.shift(timedelta(minutes=30))
    limits.limit_changes_apply()  # never posted nor announced: not applied
    lapsing.refresh_from_db()
    assert lapsing.state == "lapsed"
    assert _codes(sic_bo, NOW + timedelta(minutes=30)) == []  # the $10–$500 stay in force


def test_no_approved_version_in_force_is_unmet_for_the_compliance_officer(clock, sic_bo, floorperson):
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    [unmet] = _unmet(sic_bo)
    assert (unmet.code, unmet.clause, unmet.who) == ("submission", "521.8(b)", "the compliance officer")
    assert unmet.link == reverse("submissions:list")
    assert "No approved Rules Submission is in force on the gaming day of 2 Mar 2026" in unmet.words


def test_a_version_approved_for_a_later_day_counts_from_that_gaming_day(draft, compliance_officer, sic_bo,
                                                                        floorperson):
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    approve(draft, compliance_officer, effective_on=TODAY + timedelta(days=1))
    assert _codes(sic_bo) == ["submission"]
    assert _codes(sic_bo, NOW + timedelta(hours=9)) == ["submission"]  # 05:00: still the gaming day of 2 Mar
    assert _codes(sic_bo, NOW + timedelta(hours=10)) == []  # 06:00 begins the gaming day of 3 Mar


def test_craps_with_an_approved_version_and_limits_needs_nothing_more_from_this_source(approved, facility,
                                                                                      floorperson):
    craps = make_table(facility, "craps", "CR-1")
    assert "craps" not in approved.rules  # the catalogue has no choices for Craps: no game entry needed
    assert _codes(craps) == ["limits"]
    limits.limit_change_request(table=craps, minimum="10", maximum="5000", patrons_playing=False, user=floorperson)
    assert submission_unmet(facility, [craps], NOW) == {}


def test_craps_without_an_approved_version_is_unmet(clock, facility, floorperson):
    craps = make_table(facility, "craps", "CR-1")
    limits.limit_change_request(table=craps, minimum="10", maximum="5000", patrons_playing=False, user=floorperson)
    assert _codes(craps) == ["submission"]


def test_an_option_the_version_in_force_no_longer_grants_is_unmet(approved, asia, floorperson, shift_manager,
                                                                  compliance_officer):
    limits.limit_change_request(table=asia, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    services.table_setting_set(table=asia, options={"bonus_wager": "yes"}, user=shift_manager)
    assert _codes(asia) == []
    amendment = services.submission_draft(facility=approved.facility, title="No bonus", user=compliance_officer)
    services.submission_game_set(submission=amendment, code="asia-poker", user=compliance_officer,
                                 values=dict(amendment.rules["asia-poker"], bonus_wager="no"))
    approve(amendment, compliance_officer)
    [unmet] = _unmet(asia)
    assert (unmet.code, unmet.clause, unmet.who) == ("submission:settings", "521.8(b)", "a shift manager")
    assert unmet.link == reverse("submissions:table-setting", args=[asia.pk])
    assert "does not offer the bonus wager (§ 575.7(e), § 521.8(b))" in unmet.words


def test_an_asia_poker_minimum_above_the_payout_limit_in_force_is_unmet_citing_575_12_c(approved, asia, floorperson,
                                                                                       compliance_officer):
    from compliance.submissions.models import WagerLimitChange

    limits.limit_change_request(table=asia, minimum="19", maximum="500", patrons_playing=False, user=floorperson)
    amendment = services.submission_draft(facility=approved.facility, title="Limit", user=compliance_officer)
    services.submission_game_set(submission=amendment, code="asia-poker", user=compliance_officer,
                                 values=dict(amendment.rules["asia-poker"], payout_limit="100000"))
    approve(amendment, compliance_officer)
    assert _codes(asia) == []
    # Limits written past the service's check (as a version approved later could leave them): read, not refused.
    WagerLimitChange.objects.create(table=asia, minimum=25, maximum=500, patrons_playing=False, requested_at=NOW,
                                    requested_by=floorperson, effective_at=NOW, state="applied", applied_at=NOW)
    [unmet] = _unmet(asia)
    assert (unmet.code, unmet.clause) == ("submission:settings", "575.12(c)")


def test_an_open_table_without_limits_is_told_it_is_open(approved, sic_bo):
    sic_bo.is_open = True
    sic_bo.save()
    [unmet] = _unmet(sic_bo)
    assert "is open with no minimum and maximum wager in force" in unmet.words and "before it opens" not in unmet.words


def test_one_table_or_twenty_take_the_same_queries(approved, facility, floorperson, shift_manager):
    def add(n: int, start: int) -> list[Any]:
        made = []
        for i in range(start, start + n):
            table = make_table(facility, ("asia-poker", "sic-bo", "high-roll-dice", "craps")[i % 4], f"T-{i}")
            if i % 2:
                limits.limit_change_request(table=table, minimum="25", maximum="500", patrons_playing=False,
                                            user=floorperson)
            if table.game.code == "asia-poker":
                services.table_setting_set(table=table, options={"bonus_wager": "yes"}, user=shift_manager)
            made.append(table)
        return made

    from compliance.models import GamingTable

    def counted(tables: list[Any]) -> int:
        loaded = list(GamingTable.objects.filter(pk__in=[t.pk for t in tables]).select_related("game"))
        with CaptureQueriesContext(connection) as queries:
            found = submission_unmet(facility, loaded, NOW)
        assert set(found) == {t.pk for t in loaded if int(t.number[2:]) % 2 == 0}  # the tables with no limits
        return len(queries)

    one = add(1, 0)
    twenty = one + add(19, 1)
    assert counted(one) == counted(twenty) == 3
