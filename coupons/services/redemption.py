"""Coupons redeemed at a banking table, § 525.22 (the seam the redemption issue builds its checks and
screens on)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from compliance.actors import acts_as_user
from compliance.models import Facility
from compliance.roles import Capability, require_capability
from coupons import ranges as spans_
from coupons.days import day_words, today
from coupons.ledger import move
from coupons.models import CouponRedemption, CouponSeries, CouponState, LedgerLine
from coupons.ranges import Span
from coupons.services._common import create, require_day_open, require_facility, require_gates

__all__ = ["redemption_record"]


@transaction.atomic
@acts_as_user
def redemption_record(
    *, facility: Facility, series: CouponSeries, spans: Sequence[Span], user: Any, gaming_date: date | None = None,
    table: Any = None,
) -> CouponRedemption:
    """Coupons redeemed at a banking table (seam for the redemption issue, which adds its checks and screens)."""
    require_capability(user, Capability.REDEEM_COUPONS)
    require_facility(series, facility)
    gaming_date = gaming_date or today(facility)
    require_gates(series, gaming_date)
    require_day_open(facility, gaming_date, marketing=False)
    if series.is_expired_on(gaming_date):
        raise ValidationError(f"{series.name} expired on {day_words(series.expires_on)} (§ 525.21(q)(5)).")
    redemption = create(CouponRedemption, user, facility=facility, series=series, gaming_date=gaming_date,
                        quantity=spans_.count(spans_.merge(spans)), table=table)
    move(document=redemption, series=series, spans=spans, kind=LedgerLine.Kind.REDEEM,
         from_states=[CouponState.DISTRIBUTED], to_state=CouponState.REDEEMED,
         step="only coupons distributed to patrons can be redeemed")
    return redemption
