"""A redemption and its electronic cancellation written in one statement (PostgreSQL; § 525.21(q)(6)).

The same rows as the ORM path of :func:`coupons.services.redemption.redemption_record` — the
:class:`~coupons.models.Redemption`, the ledger line moving the one serial from *distributed* to
*redeemed*, the range closed and its replacements, the ``Idempotency-Key`` answer, each with its history row
and audit event — built in Python and sent through :class:`compliance.row_batch.RowBatch`, so a scan costs
a handful of statements instead of thirty. What must never happen is still refused by the database:
``coupon_redeemed_once`` (never twice), ``coupon_one_per_wager``, the open ranges' exclusion constraint, and
the range closed only while still open (a neighbour's redemption that split it first makes this write fail
whole with :class:`~compliance.row_batch.RowsMoved`; the caller reads the range again).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from compliance.models import Facility
from compliance.row_batch import RowBatch, reserve_ids
from coupons import ranges as spans_
from coupons.ledger import document_type, finance_day_gate, ledger_line
from coupons.models import CouponRange, CouponState, LedgerLine, Redemption, RedemptionAnswer

__all__ = ["redemption_rows_send"]


def _replacements(row: CouponRange, number: int, line: LedgerLine) -> list[CouponRange]:
    """The rows replacing ``row`` once serial ``number`` moved (as :func:`coupons.ledger.move_rows` makes them):
    the serial redeemed, the serials either side as they were."""
    rows = [CouponRange(facility_id=row.facility_id, series=row.series, first_serial=number, last_serial=number,
                        state=CouponState.REDEEMED, location=None, opened_by=line, since=line)]
    for first, last in spans_.subtract([(row.first_serial, row.last_serial)], [(number, number)]):
        rows.append(CouponRange(facility_id=row.facility_id, series=row.series, first_serial=first, last_serial=last,
                                state=row.state, location=row.location, opened_by=line, since=row.since))
    return rows


def redemption_rows_send(*, facility: Facility, redemption: Redemption, row: CouponRange, number: int,
                         reason: str, answer_of: Callable[[Redemption], RedemptionAnswer | None]) -> Redemption:
    """Write ``redemption`` (unsaved) and the ledger's move of its serial out of ``row``, in the caller's
    transaction. ``answer_of``: the Idempotency-Key answer to keep with it (or None).

    Two statements: the ids with the facility's share lock (redemptions run side by side; signing a day's
    form or finance's processing, which lock it exclusively, wait for them), then every row, written only if
    finance has not processed the redemption's gaming day (:class:`~compliance.row_batch.GateRefused`
    carries the last processed day) and the range is still open (:class:`~compliance.row_batch.RowsMoved`)."""
    ids = reserve_ids({Redemption: 1, LedgerLine: 1, CouponRange: 3, RedemptionAnswer: 1}, share_lock=facility)
    batch = RowBatch(ids)
    redemption.pk = batch.next_id(Redemption)
    redemption.redeemed_at = batch.now
    batch.created(redemption)
    line = ledger_line(redemption, row.series, LedgerLine.Kind.REDEEM, number, number, 1, from_state=row.state,
                       to_state=CouponState.REDEEMED, reason=reason, doc_type=document_type(redemption))
    line.pk = batch.next_id(LedgerLine)
    line.occurred_at = batch.now
    batch.created_in_bulk([line])
    batch.closed(row, "closed_by", line)
    replacements = _replacements(row, number, line)
    for replacement in replacements:
        replacement.pk = batch.next_id(CouponRange)
    batch.created_in_bulk(replacements)
    answer = answer_of(redemption)
    if answer is not None:
        answer.pk = batch.next_id(RedemptionAnswer)
        answer.created_at = batch.now
        batch.inserted(answer)
    batch.send(gate=finance_day_gate(facility, redemption.gaming_date))
    for written in (redemption, line, *replacements, *([answer] if answer is not None else [])):
        written._state.adding, written._state.db = False, "default"
    return redemption


def forward_in_time(row: CouponRange, on: date) -> bool:
    """The ledger runs forward in gaming days (:func:`coupons.ledger.move_rows`)."""
    return row.opened_by.gaming_date <= on
