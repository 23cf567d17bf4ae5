"""The range-movement engine of the coupon ledger: every step of § 525.21 moves coupons through here.

Coupons move by serial range. :func:`move` locks the open ranges a request touches, checks that every
serial asked for is in a state the step accepts, writes one ledger line per piece moved, closes the
touched ranges and opens their replacements. Its work depends on the number of ranges touched, never
on the number of coupons. The database holds what must never happen (a serial in two open ranges, a
range row rewritten); this module turns those guarantees into refusals in words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q

from compliance.bounds import MAX_SERIAL
from compliance.locks import lock_facility, lock_facility_shared  # re-exported: the ledger's callers use them
from compliance.models import Facility, regulated_bulk_create, regulated_bulk_update
from coupons import ranges as spans_
from coupons.days import day_words
from coupons.models import CouponRange, CouponSeries, CouponState, LedgerLine, StorageLocation
from coupons.ranges import Span

__all__ = [
    "already_received",
    "by_series",
    "document_type",
    "ledger_line",
    "lock_facility",
    "lock_facility_shared",
    "lock_open_rows",
    "move",
    "move_rows",
    "overlapping",
]

K = LedgerLine.Kind


def overlapping(spans: Sequence[Span]) -> Q:
    """Rows (ranges or ledger lines) that share a serial with ``spans``."""
    overlap = Q()
    for first, last in spans:
        overlap |= Q(first_serial__lte=last, last_serial__gte=first)
    return overlap


def document_type(document: Any) -> ContentType:
    return ContentType.objects.get_for_model(type(document))


def ledger_line(document: Any, series: CouponSeries, kind: str, first: int | None, last: int | None, quantity: int,
                *, from_state: str = "", to_state: str = "", reason: str = "", location: StorageLocation | None = None,
                doc_type: ContentType | None = None, on: date | None = None) -> LedgerLine:
    """An unsaved ledger line of ``document`` (saved in bulk by the caller), dated the document's gaming day
    unless ``on`` names another (a step that completes the document later, like its examination)."""
    return LedgerLine(
        facility_id=series.facility_id, gaming_date=on or document.gaming_date, kind=kind, series=series,
        denomination_cents=series.denomination_cents, from_state=from_state, to_state=to_state,
        first_serial=first, last_serial=last, quantity=quantity, reason=reason,
        document_type=doc_type or document_type(document), document_id=document.pk, location=location,
    )


def _state_words(state: str) -> str:
    return str(CouponState(state).label).lower()


def already_received(series: CouponSeries, spans: Sequence[Span]) -> list[str]:
    """Why each of ``spans`` cannot be received again: the receipt that already brought it in."""
    clashes = LedgerLine.objects.filter(overlapping(spans), series=series, kind=K.RECEIVE).order_by("first_serial")
    words = []
    for line in clashes:
        assert line.first_serial is not None and line.last_serial is not None
        inside = spans_.clip(spans, line.first_serial, line.last_serial)
        words.append(
            f"Serials {spans_.describe(series, inside)} of {series.name} were already received on "
            f"{day_words(line.gaming_date)} (receipt #{line.document_id})."
        )
    return words


def _require_all_open(series: CouponSeries, spans: Sequence[Span], rows: Sequence[CouponRange]) -> None:
    """Every serial asked for is in an open range."""
    missing = spans_.subtract(spans, [(r.first_serial, r.last_serial) for r in rows])
    if missing and already_received(series, missing):
        # Received, yet no open range: another transaction moved them while this one waited for the lock.
        raise ValidationError(
            f"Serials {spans_.describe(series, missing)} of {series.name} were just moved by someone else. "
            f"Reload the page and try again."
        )
    if missing:
        raise ValidationError(
            f"Serials {spans_.describe(series, missing)} of {series.name} were never received into the ledger."
        )


def move(
    *,
    document: Any,
    series: CouponSeries,
    spans: Sequence[Span],
    kind: str,
    from_states: Iterable[str],
    to_state: str,
    step: str,
    location: StorageLocation | None = None,
    reason: str = "",
    on: date | None = None,
) -> list[LedgerLine]:
    """Move exactly ``spans`` of ``series`` from one of ``from_states`` to ``to_state`` (dated the document's
    gaming day, or ``on``)."""
    accepted = set(from_states)
    spans = spans_.merge(spans)
    if any(first < 0 or last > MAX_SERIAL for first, last in spans):
        raise ValidationError(f"Serial numbers run from 0 to {MAX_SERIAL:,}; check the serials entered.")
    rows = list(
        CouponRange.objects.select_for_update(of=("self",))
        .filter(overlapping(spans), series=series, closed_by__isnull=True)
        .select_related("since", "opened_by", "location")  # a remainder keeps its location: no query for it
        .order_by("first_serial")
    )
    _require_all_open(series, spans, rows)
    refusals = [
        f"Serials {spans_.describe(series, spans_.clip(spans, row.first_serial, row.last_serial))} of {series.name} "
        f"are {_state_words(row.state)} (since {day_words(row.since.gaming_date)}); {step}."
        for row in rows if row.state not in accepted
    ]
    if refusals:
        raise ValidationError(refusals)
    return move_rows(document=document, series=series, rows=rows, spans=spans, kind=kind, to_state=to_state,
                     location=location, reason=reason, on=on)


def _require_forward_in_time(on: date, series: CouponSeries, rows: Sequence[CouponRange]) -> None:
    # Each serial's history runs forward in gaming days, so "what was held at the end of a day" can be
    # read from the ranges (the finance reconciliation does): no movement is dated before the last one.
    late = [r for r in rows if r.opened_by.gaming_date > on]
    if late:
        raise ValidationError(
            f"Serials {spans_.describe(series, [(r.first_serial, r.last_serial) for r in late])} of {series.name} "
            f"were last moved on {day_words(max(r.opened_by.gaming_date for r in late))}; a movement cannot be "
            f"recorded on an earlier gaming day ({day_words(on)})."
        )


class _Piece:
    """A run of serials moved as one: one ledger line, one new range. Adjacent parts of several touched rows join
    one piece when they leave the same state for the same custody (a day's redeemed coupons cancelled together, each
    posted on its own by a scan, become one cancelled range, not one a coupon: issue 27)."""

    def __init__(self, row: CouponRange, first: int, last: int, location: StorageLocation | None) -> None:
        self.rows, self.first, self.last, self.location, self.state = [row], first, last, location, row.state
        self.line: LedgerLine | None = None

    def joins(self, row: CouponRange, first: int, location: StorageLocation | None) -> bool:
        return first == self.last + 1 and row.state == self.state and location == self.location


def _pieces(rows: Sequence[CouponRange], spans: Sequence[Span] | None, to_state: str,
            location: StorageLocation | None) -> list[_Piece]:
    pieces: list[_Piece] = []
    for row in rows:  # by first serial
        inside = ([(row.first_serial, row.last_serial)] if spans is None
                  else spans_.clip(spans, row.first_serial, row.last_serial))
        # A location is kept only while the coupons stay in the same custody (e.g. voiding stock in
        # the vault); coupons handed over leave the location behind unless the step names a new one.
        custody = location if location is not None else (row.location if to_state == row.state else None)
        for first, last in inside:
            if pieces and pieces[-1].joins(row, first, custody):
                pieces[-1].last = last
                if pieces[-1].rows[-1].pk != row.pk:
                    pieces[-1].rows.append(row)
            else:
                pieces.append(_Piece(row, first, last, custody))
    return pieces


def _replacement_rows(rows: Sequence[CouponRange], pieces: Sequence[_Piece], series: CouponSeries,
                      to_state: str) -> list[CouponRange]:
    """Close each touched row (by the line of the first piece that takes from it, all in one update with their
    history rows and audit events); the rows that replace them: each piece in ``to_state``, and what each row
    keeps as it was."""
    moved: dict[int, list[Span]] = {}
    closed_by: dict[int, LedgerLine] = {}
    for piece in pieces:
        for row in piece.rows:
            moved.setdefault(row.pk, []).append((max(piece.first, row.first_serial), min(piece.last, row.last_serial)))
            closed_by.setdefault(row.pk, piece.line)  # type: ignore[arg-type]
    before = {row.pk: {"closed_by": row.closed_by_id} for row in rows}
    for row in rows:
        row.closed_by = closed_by[row.pk]
        row.series = series  # every touched row is of the series (its audit event names it: no query a row)
        if row.since.series_id == series.pk:  # always: the line that opened a range moved that range's series
            # A remainder keeps the row's ``since`` line, which its audit event names in words (the line's serials
            # read from its series): one query a remainder before (make bench, 1 Dec 2026: 126 against 125).
            row.since.series = series
    regulated_bulk_update(CouponRange, list(rows), ["closed_by"], before=before)
    new_rows = [CouponRange(facility_id=series.facility_id, series=series, first_serial=piece.first,
                            last_serial=piece.last, state=to_state, location=piece.location, opened_by=piece.line,
                            since=piece.line) for piece in pieces]
    for row in rows:
        for first, last in spans_.subtract([(row.first_serial, row.last_serial)], moved[row.pk]):
            new_rows.append(CouponRange(
                facility_id=row.facility_id, series=series, first_serial=first, last_serial=last,
                state=row.state, location=row.location, opened_by=row.closed_by, since=row.since,
            ))
    return new_rows


def move_rows(
    *,
    document: Any,
    series: CouponSeries,
    rows: Sequence[CouponRange],
    spans: Sequence[Span] | None,
    kind: str,
    to_state: str,
    location: StorageLocation | None = None,
    reason: str = "",
    on: date | None = None,
) -> list[LedgerLine]:
    """Close ``rows`` (ordered by first serial) and reopen them with the parts inside ``spans`` (all, if None) in
    ``to_state``, dated the document's gaming day (or ``on``). One ledger line per run moved: adjacent parts of
    several rows leaving the same state for the same custody are one run (:class:`_Piece`). A few queries
    whatever the number of rows."""
    _require_forward_in_time(on or document.gaming_date, series, rows)
    doc_type = document_type(document)
    pieces = _pieces(rows, spans, to_state, location)
    lines = regulated_bulk_create(LedgerLine, [
        ledger_line(document, series, kind, piece.first, piece.last, piece.last - piece.first + 1,
                    from_state=piece.state, to_state=to_state, reason=reason, location=piece.location,
                    doc_type=doc_type, on=on)
        for piece in pieces
    ])
    for piece, line in zip(pieces, lines, strict=True):
        piece.line = line
    try:
        with transaction.atomic():
            regulated_bulk_create(CouponRange, _replacement_rows(rows, pieces, series, to_state))
    except IntegrityError:
        raise ValidationError(
            "Those coupons changed state while you were working (someone else recorded a movement). "
            "Reload the page and try again."
        ) from None
    return lines


def lock_open_rows(facility: Facility, states: Iterable[str], **filters: Any) -> list[CouponRange]:
    """The facility's open ranges in ``states``, locked for a movement, by series and serial."""
    return list(
        CouponRange.objects.select_for_update(of=("self",))
        .filter(facility=facility, state__in=list(states), closed_by__isnull=True, **filters)
        .select_related("series", "since", "opened_by", "location")
        .order_by("series_id", "first_serial")
    )


def by_series(rows: Iterable[CouponRange]) -> dict[CouponSeries, list[CouponRange]]:
    grouped: dict[CouponSeries, list[CouponRange]] = {}
    for row in rows:
        grouped.setdefault(row.series, []).append(row)
    return grouped
