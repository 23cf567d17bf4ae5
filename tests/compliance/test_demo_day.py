"""`make run`'s demo is a normal day (issue 25, item 6): `seed_demo --all` staffs every table so it can open lawfully,
opens some through the services, leaves one clock overdue, imports the Board's lists, authorizes a mailing provider,
gives last quarter redemptions (its quarterly report is not zeros) and today some at the open tables — and the audit
chain verifies after it. Seeding again adds nothing. Run at the hours that matter: the gaming day's first minutes,
mid-morning, the small hours (still yesterday's gaming day) and the first days of a quarter."""

from __future__ import annotations

import io
from datetime import datetime

import pytest
import time_machine
from django.core.management import call_command

from compliance.gaming_day import gaming_day
from compliance.models import AuditEvent, Facility, GamingTable
from compliance.readiness import facility_readiness
from compliance.reports.models import ReportRun
from compliance.reports.periods import previous_quarter
from compliance.reports.selectors import run_content
from coupons.models import MailingCampaign, MailingProvider, Redemption
from coupons.report_kinds.quarterly_coupons import quarterly_figures
from equipment.services import equipment_sweep

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

OPEN = {"TDF-1", "SB-1", "AP-1", "CR-1", "RL-1"}


def _seed() -> str:
    out = io.StringIO()
    call_command("seed_demo", "--all", stdout=out)
    return out.getvalue()


def _counts() -> dict[str, int]:
    from compliance.exclusion.models import ExclusionList
    from compliance.staffing.models import Assignment
    from coupons.models import LedgerLine
    from equipment.models import DiceSet

    return {
        "audit": AuditEvent.objects.count(),
        "redemptions": Redemption.objects.count(),
        "ledger": LedgerLine.objects.count(),
        "dice": DiceSet.objects.count(),
        "places": Assignment.objects.count(),
        "lists": ExclusionList.objects.count(),
    }


@pytest.mark.parametrize(
    "now",
    [
        "2026-11-04 14:00:00+00:00",  # Wednesday 09:00 in Harrisburg, the day shift
        "2026-11-05 09:30:00+00:00",  # 04:30: still the gaming day of the 4th, the grave shift
        "2026-10-02 10:05:00+00:00",  # 06:05 on the second day of a quarter: its first gaming day just begun
    ],
)
def test_the_demo_is_a_normal_day_and_seeding_again_adds_nothing(now):
    with time_machine.travel(datetime.fromisoformat(now), tick=True):
        output = _seed()
        facility = Facility.objects.get(code="demo")
        readiness = {r.number: r for r in facility_readiness(facility).values()}
        # Some tables open and taking wagers; every other one wants no person the demo lacks.
        assert {n for n, r in readiness.items() if r.takes_wagers} == OPEN, output
        staffing = {
            n: [u.code for u in r.unmet if u.code.startswith(("staffing:", "span:", "cameras"))]
            for n, r in readiness.items()
        }
        assert not any(staffing.values()), staffing
        assert [u.code for u in readiness["TDF-2"].unmet] == ["equipment:dice"]  # staffed: the floor's dice to put
        # One clock overdue: PH-1's dice, 25 hours on the table (§ 668a.3(b)(1)); the sweep finds it.
        assert "dice" in readiness["PH-1"].unmet[0].code and "past their 24-hour limit" in readiness["PH-1"].sentence()
        swept = equipment_sweep()
        assert [(i.table_number, i.kind) for i in swept.overdue] == [("PH-1", "dice")]
        # The Board's lists, a mailing provider and a draft mailing whose list was read.
        from compliance.exclusion.selectors import list_in_force

        assert list_in_force(facility, "self_exclusion") and list_in_force(facility, "involuntary_exclusion")
        assert MailingProvider.objects.filter(facility=facility, active=True).count() == 1
        campaign = MailingCampaign.objects.get(facility=facility)
        assert campaign.recipients.count() == 43
        # Last quarter: redemptions on two of its gaming days, and its report produced from them.
        quarter = previous_quarter(gaming_day(facility))
        figures = quarterly_figures(facility, quarter)
        assert sum(count for _, _, count, _ in figures) == 290, figures
        run = ReportRun.objects.get(facility=facility, kind="quarterly-coupons", period_start=quarter.start)
        content = run_content(run)
        assert run.status == "succeeded" and content is not None and content.figures["coupons"] == 290
        # Today: coupons redeemed at the open craps and roulette tables.
        today = Redemption.objects.filter(facility=facility, gaming_date=gaming_day(facility))
        assert {r.table.number for r in today} == {"CR-1", "RL-1"} and today.count() == 28
        verified = io.StringIO()
        call_command("verify_audit_chain", "--link", stdout=verified, stderr=verified)
        assert "intact" in verified.getvalue().lower()

        before = _counts()
        again = _seed()
        assert _counts() == before, again
        assert GamingTable.objects.filter(facility=facility, is_open=True).count() == len(OPEN)


@pytest.mark.django_db(transaction=False)
def test_a_refusal_while_seeding_last_quarter_is_said_and_leaves_nothing_half_made(monkeypatch):
    """A var/ of an older demo may no longer allow what the seeding records (a day closed since): it says why, adds
    nothing, and `make run` goes on."""
    from datetime import timedelta

    from compliance.demo import demo_seed
    from coupons import demo
    from coupons.models import CouponSeries

    facility, _logins = demo_seed()
    later = gaming_day(facility) + timedelta(days=3)  # a gaming day that has not started: every service refuses it
    monkeypatch.setattr(demo, "_past_days", lambda f: [demo.PastDay(later, (200_001, 200_300), 260, {"CR-1": 95})])
    words = demo.past_quarter_demo_seed(facility=facility)
    assert words is not None and words.startswith("nothing added:") and "has not started" in words, words
    assert not CouponSeries.objects.filter(facility=facility).exists()
