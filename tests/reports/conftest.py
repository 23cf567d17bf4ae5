"""Fixtures of the report tests: coupon series of several denominations and redemptions placed at instants."""

from __future__ import annotations

from datetime import datetime
from itertools import count
from typing import Any

import pytest

from compliance.gaming_day import gaming_day
from compliance.models import Game, regulated_bulk_create
from coupons.models import CouponProgram, Redemption
from tests.coupons.conftest import approve, make_series
from tests.factories import GamingTableFactory

_serials = count(1)


@pytest.fixture
def craps(facility: Any) -> Any:
    return GamingTableFactory(is_open=True, facility=facility, number="CR-7", game=Game.objects.get(code="craps"))


@pytest.fixture
def denominations(facility: Any, finance_supervisor: Any, compliance_officer: Any) -> dict[int, Any]:
    """Approved series of $5, $10 and $25 coupons: {cents: series}."""
    program = CouponProgram.objects.get(code="match-play")
    made = {}
    for cents, code in ((500, "mp5"), (1000, "mp10"), (2500, "mp25")):
        series = make_series(facility, program, finance_supervisor, code=code, denomination_cents=cents,
                             prefix=code.upper())
        approve(facility, program, compliance_officer, series, kinds=("design",))
        made[cents] = series
    approve(facility, program, compliance_officer, kinds=("internal_controls",))
    return made


@pytest.fixture
def redeemed(facility: Any, craps: Any, dealer: Any) -> Any:
    """``redeemed(series, at, n=1, channel="table")``: n coupons of the series redeemed at the instant ``at``,
    dated by the facility's gaming day as the redemption service dates them."""

    def make(series: Any, at: datetime, n: int = 1, channel: str = Redemption.Channel.TABLE) -> list[Redemption]:
        rows = [
            Redemption(facility=facility, series=series, serial=next(_serials), denomination_cents=series.denomination_cents,
                       gaming_date=gaming_day(facility, at), redeemed_at=at, table=craps, game=craps.game,
                       position="pass_line" if channel == Redemption.Channel.TABLE else "",
                       chips_cents=series.denomination_cents if channel == Redemption.Channel.TABLE else None,
                       channel=channel, redeemed_by=dealer)
            for _ in range(n)
        ]
        return regulated_bulk_create(Redemption, rows)

    return make


@pytest.fixture
def produce(django_capture_on_commit_callbacks: Any) -> Any:
    """``produce(facility, kind, start, end, user)``: ask for a version and run its job (Celery eager), as a
    request followed by a worker would; the run as it was left."""
    from compliance.reports import services

    def make(facility: Any, kind: str, start: Any, end: Any, user: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            run = services.run_request(facility=facility, kind=kind, start=start, end=end, user=user)
        run.refresh_from_db()
        return run

    return make
