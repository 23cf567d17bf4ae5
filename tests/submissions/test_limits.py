"""Wager limit changes (§ 521.8(c)): at once with no patrons playing; 30 minutes' notice, a sign and an
announcement otherwise, applied by the beat job at its time on the facility's clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from compliance.submissions import limits, selectors
from compliance.submissions.models import WagerLimitChange
from compliance.submissions.tasks import apply_wager_limit_changes
from tests.submissions.conftest import NOW

pytestmark = pytest.mark.django_db


@pytest.fixture
def in_force(clock: Any, sic_bo: Any, floorperson: Any, signs_approved: Any) -> WagerLimitChange:
    return limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False,
                                       user=floorperson)


def test_with_no_patrons_playing_the_change_takes_effect_at_once(in_force, sic_bo):
    assert in_force.state == "applied" and in_force.applied_at == NOW
    assert selectors.current_limits(sic_bo) == in_force


def test_with_patrons_playing_29_minutes_notice_is_refused(in_force, sic_bo, floorperson):
    with pytest.raises(ValidationError, match=r"at least 30 minutes' notice.*20:29 on 2 Mar is 29 minutes away. "
                                              r"The earliest is 20:31"):
        limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=True,
                                    effective_at=NOW + timedelta(minutes=29), user=floorperson)
    assert not WagerLimitChange.objects.filter(state="scheduled").exists()


def test_the_database_holds_the_30_minutes_too(in_force, sic_bo, floorperson):
    with pytest.raises(IntegrityError), transaction.atomic():
        WagerLimitChange.objects.create(table=sic_bo, minimum=25, maximum=1000, patrons_playing=True,
                                        requested_at=NOW, requested_by=floorperson,
                                        effective_at=NOW + timedelta(minutes=29, seconds=59))


def test_30_minutes_notice_is_applied_at_its_minute_by_the_beat_job(in_force, sic_bo, floorperson, clock):
    change = limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=True,
                                         effective_at=NOW + timedelta(minutes=30), user=floorperson)
    limits.limit_change_post(change=change, user=floorperson)
    clock.shift(timedelta(minutes=5))
    limits.limit_change_announce(change=change, user=floorperson)
    clock.shift(timedelta(minutes=24, seconds=59))  # 20:29:59
    assert apply_wager_limit_changes.delay().get() == 0
    assert selectors.current_limits(sic_bo) == in_force
    clock.shift(timedelta(seconds=1))  # 20:30:00
    assert apply_wager_limit_changes.delay().get() == 1
    change.refresh_from_db()
    assert change.state == "applied" and change.applied_at == NOW + timedelta(minutes=30)
    assert selectors.current_limits(sic_bo) == change
    assert apply_wager_limit_changes.delay().get() == 0  # once


def test_a_change_not_announced_is_not_applied_and_says_why(in_force, sic_bo, floorperson, clock):
    change = limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=True,
                                         effective_at=NOW + timedelta(minutes=45), user=floorperson)
    limits.limit_change_post(change=change, user=floorperson)
    clock.shift(timedelta(minutes=45))
    limits.limit_changes_apply()
    change.refresh_from_db()
    assert change.state == "lapsed" and "not announced" in change.closed_reason
    assert selectors.current_limits(sic_bo) == in_force


def test_a_sign_posted_late_is_refused(in_force, sic_bo, floorperson, clock):
    change = limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=True,
                                         effective_at=NOW + timedelta(minutes=31), user=floorperson)
    clock.shift(timedelta(minutes=2))
    with pytest.raises(ValidationError, match="less than 30 minutes' notice"):
        limits.limit_change_post(change=change, user=floorperson)


def test_one_pending_change_per_table_and_bad_amounts(in_force, sic_bo, floorperson):
    limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=True,
                                effective_at=NOW + timedelta(hours=1), user=floorperson)
    with pytest.raises(ValidationError, match="already has a change scheduled for 21:00"):
        limits.limit_change_request(table=sic_bo, minimum="5", maximum="100", patrons_playing=False,
                                    user=floorperson)
    for low, high in (("0", "10"), ("10", "5"), ("abc", "10"), ("1e400", "10"), ("10.001", "20")):
        with pytest.raises(ValidationError):
            limits.limit_change_request(table=sic_bo, minimum=low, maximum=high, patrons_playing=False,
                                        user=floorperson)


def test_an_asia_poker_minimum_that_would_pass_the_payout_limit_is_refused(approved, asia, floorperson,
                                                                           compliance_officer):
    from compliance.submissions import services
    from tests.submissions.conftest import approve

    amendment = services.submission_draft(facility=approved.facility, title="Limit", user=compliance_officer)
    values = dict(amendment.rules["asia-poker"], payout_limit="100000")
    services.submission_game_set(submission=amendment, code="asia-poker", values=values, user=compliance_officer)
    approve(amendment, compliance_officer)
    # $100,000 covers a $19 minimum ($19 × 5,001 = $95,019) but not $20 ($100,020).
    limits.limit_change_request(table=asia, minimum="19", maximum="500", patrons_playing=False, user=floorperson)
    with pytest.raises(ValidationError, match=r"\$100,000.00 is below \$100,020.00"):
        limits.limit_change_request(table=asia, minimum="20", maximum="500", patrons_playing=False, user=floorperson)


def test_a_dealer_may_not_change_limits(in_force, sic_bo, dealer):
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=False, user=dealer)


def test_a_change_once_applied_can_no_longer_change(in_force):
    from compliance.models import RegulatedWriteError

    in_force.maximum = 5000
    with pytest.raises(RegulatedWriteError, match="can no longer change"):
        in_force.save()
    from django.db import connection

    if connection.vendor == "postgresql":
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("UPDATE submissions_wagerlimitchange SET maximum = 5000 WHERE id = %s", [in_force.pk])


def test_an_asia_poker_minimum_is_checked_against_a_version_awaiting_the_board(approved, asia, floorperson,
                                                                              compliance_officer):
    from compliance.submissions import services
    from tests.factories import PASSWORD

    limits.limit_change_request(table=asia, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    amendment = services.submission_draft(facility=approved.facility, title="Limit", user=compliance_officer)
    services.submission_game_set(submission=amendment, code="asia-poker", user=compliance_officer,
                                 values=dict(amendment.rules["asia-poker"], payout_limit="60000"))
    services.submission_submit(submission=amendment, user=compliance_officer, password=PASSWORD)
    with pytest.raises(ValidationError, match=r"Version 2: The Asia Poker payout limit \$60,000.00 is below"):
        limits.limit_change_request(table=asia, minimum="12", maximum="500", patrons_playing=False, user=floorperson)
