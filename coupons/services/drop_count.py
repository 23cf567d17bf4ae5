"""The drop-box count, § 525.21(q)(6): coupons not cancelled at the table are cancelled by batch scan.

Finance scans every coupon in one table's drop box for one gaming day. Each scan is judged as at the
table — the coupon is known, was given to a patron, is not expired on that gaming day, its program is
approved, the game is a banking game its series allows (§ 525.22(a), § 525.21(c)(4), (q)(5)) — and:

* a coupon already redeemed at this table that day is *cancelled at the table* (expected);
* a coupon in a patron's hands that passes the checks is redeemed and cancelled now (a
  :class:`~coupons.models.Redemption` of channel *count*, its ledger line dated the drop's gaming day);
* anything else is an exception with the same code and sentence the table would have given.

Coupons the table redeemed that day that are not in the box are exceptions too (*missing*). The
chips and the position of a wager are not known at the count and are not checked there. The count
is written in one transaction, with a constant number of queries whatever the number of coupons.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from compliance.actors import acts_as_user
from compliance.bounds import require_day_between
from compliance.models import Facility, GamingTable, regulated_bulk_create
from compliance.roles import Capability, require_capability
from coupons import ranges as spans_
from coupons.days import day_words, today
from coupons.ledger import move
from coupons.models import (
    CouponRange,
    CouponSeries,
    CouponState,
    DropCount,
    DropCountItem,
    LedgerLine,
    ProgramApproval,
    Redemption,
)
from coupons.redemption_rules import Refusal, split_serial
from coupons.selectors import facility_approvals
from coupons.selectors.redemption import coupon_ranges_for, redemptions_at_table, redemptions_of_coupons
from coupons.services._common import create, require_day_open
from coupons.services.redemption import honoured_words, require_distributed, require_usable

__all__ = ["MAX_SCANS", "drop_count_record"]

MAX_SCANS = 5_000  # coupons in one drop box: far above a gaming day at one table
Found = DropCountItem.Outcome


def _judge(facility: Facility, table: GamingTable, on: date, text: str, rows: list[CouponRange], number: int,
           earlier: Redemption | None, approvals: list[ProgramApproval]) -> tuple[str, str, str]:
    """(outcome, code, message) of one scanned coupon."""
    if len(rows) != 1:
        refusal = (Refusal("unknown_coupon", f"No coupon of {facility.name} has the serial {text}.") if not rows
                   else Refusal("ambiguous_serial", f"Serial {text} is printed on coupons of several series."))
        return Found.EXCEPTION, refusal.refusal_code, refusal.sentence
    row = rows[0]
    coupon = row.series.serial(number)
    if earlier is not None:
        if earlier.table_id == table.pk and earlier.gaming_date == on:
            return Found.CANCELLED_AT_TABLE, "", f"Redeemed {honoured_words(facility, earlier)}."
        return (Found.EXCEPTION, "already_redeemed",
                f"Coupon {coupon} was redeemed {honoured_words(facility, earlier)}, not at this table on "
                f"{day_words(on)}.")
    try:
        require_distributed(facility, row, number)
        require_usable(row.series, coupon, on, table, approvals)
    except Refusal as refusal:
        return Found.EXCEPTION, refusal.refusal_code, refusal.sentence
    return Found.CANCELLED_NOW, "", f"Coupon {coupon} cancelled at the count."


def _parsed(scanned: Sequence[str]) -> tuple[list[tuple[str, str, int]], list[DropCountItem]]:
    """Each scan read as (text, prefix, number); unreadable and repeated scans as exception lines."""
    read: list[tuple[str, str, int]] = []
    bad: list[DropCountItem] = []
    seen: set[tuple[str, int]] = set()
    for raw in scanned:
        text = raw.strip()[:40]
        if not text:
            continue
        try:
            prefix, number = split_serial(text)
        except Refusal as refusal:
            bad.append(DropCountItem(scanned=text, outcome=Found.EXCEPTION, code=refusal.refusal_code,
                                     message=refusal.sentence[:300]))
            continue
        if (prefix, number) in seen:
            bad.append(DropCountItem(scanned=text, outcome=Found.EXCEPTION, code="invalid_request",
                                     message=f"{text} was scanned twice; the second scan is ignored."))
            continue
        seen.add((prefix, number))
        read.append((text, prefix, number))
    return read, bad


def _rows_of(rows: list[CouponRange], prefix: str, number: int) -> list[CouponRange]:
    return [r for r in rows if (r.series.serial_prefix or "").upper() == prefix
            and r.first_serial <= number <= r.last_serial]


@transaction.atomic
@acts_as_user
def drop_count_record(*, facility: Facility, table: GamingTable, gaming_date: date, scanned: Sequence[str],
                      user: Any) -> DropCount:
    """Record the count of ``table``'s drop box for ``gaming_date``: cancel what the table did not."""
    require_capability(user, Capability.COUNT_DROP_BOXES)
    if table.facility_id != facility.pk:
        raise ValidationError(f"Table {table.number} belongs to another facility.")
    require_day_between(gaming_date, facility_first_day(facility), today(facility), "the gaming day of the drop")
    if len(scanned) > MAX_SCANS:
        raise ValidationError(f"{len(scanned):,} scans is more than one drop box holds ({MAX_SCANS:,}); split the count.")
    require_day_open(facility, gaming_date, marketing=False)
    read, items = _parsed(scanned)
    rows = coupon_ranges_for(facility, [(prefix, number) for _, prefix, number in read])
    located = {(prefix, number): _rows_of(rows, prefix, number) for _, prefix, number in read}
    earlier = redemptions_of_coupons(
        facility, [(found[0].series_id, number) for (_, number), found in located.items() if len(found) == 1])
    approvals = facility_approvals(facility.pk, gaming_date)
    count = create(DropCount, user, facility=facility, gaming_date=gaming_date, table=table)
    to_cancel: dict[CouponSeries, list[tuple[int, int]]] = defaultdict(list)
    redemptions: list[Redemption] = []
    for text, prefix, number in read:
        found = located[(prefix, number)]
        series = found[0].series if len(found) == 1 else None
        previous = earlier.get((series.pk, number)) if series is not None else None
        outcome, code, message = _judge(facility, table, gaming_date, text, found, number, previous, approvals)
        items.append(DropCountItem(scanned=text, series=series, serial=number if series else None, outcome=outcome,
                                   code=code, message=message[:300], redemption=previous))
        if outcome == Found.CANCELLED_NOW and series is not None:
            to_cancel[series].append((number, number))
            redemptions.append(Redemption(
                facility=facility, series=series, serial=number, denomination_cents=series.denomination_cents,
                gaming_date=gaming_date, table=table, game=table.game, channel=Redemption.Channel.COUNT,
                redeemed_by=user, drop_count=count,
            ))
    try:
        with transaction.atomic():
            regulated_bulk_create(Redemption, redemptions)
    except IntegrityError:
        raise ValidationError("A coupon of this drop box was redeemed at a table while the count was being recorded; "
                              "record the count again.") from None
    for series, spans in to_cancel.items():
        move(document=count, series=series, spans=spans_.merge(spans), kind=LedgerLine.Kind.REDEEM,
             from_states=[CouponState.DISTRIBUTED], to_state=CouponState.REDEEMED,
             step="only coupons given to patrons are cancelled at the count",
             reason=f"Electronically cancelled at the drop-box count of table {table.number}, § 525.21(q)(6)")
    by_serial = {(r.series_id, r.serial): r for r in redemptions}
    for item in items:
        if item.outcome == Found.CANCELLED_NOW and item.series is not None and item.serial is not None:
            item.redemption = by_serial[(item.series.pk, item.serial)]
    scanned_keys = {(item.series.pk, item.serial) for item in items if item.series is not None}
    for missing in redemptions_at_table(table, gaming_date, limit=MAX_SCANS):
        if missing.channel == Redemption.Channel.TABLE and (missing.series_id, missing.serial) not in scanned_keys:
            items.append(DropCountItem(
                series=missing.series, serial=missing.serial, outcome=Found.MISSING, code="missing", redemption=missing,
                message=f"Coupon {missing.coupon} was redeemed {honoured_words(facility, missing)} but is not in "
                        f"the drop box.",
            ))
    for item in items:
        item.count = count
    regulated_bulk_create(DropCountItem, items)
    return count


def facility_first_day(facility: Facility) -> date:
    """The earliest drop a count may be recorded for: a week back covers a count delayed over a holiday."""
    from datetime import timedelta

    return today(facility) - timedelta(days=7)
