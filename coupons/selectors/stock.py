"""Where the coupons are now: open ranges by state, what marketing holds, a serial's path, the
serials the monthly inventory expects."""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from typing import Any

from django.db.models import F, Q, QuerySet, Sum

from compliance.key_pages import KeyPage, key_page
from compliance.models import Facility
from coupons import ranges as spans_
from coupons.models import (
    CouponRange,
    CouponSeries,
    CouponState,
    LedgerLine,
    Redemption,
)
from coupons.ranges import Span

S = CouponState
K = LedgerLine.Kind


LEDGER_STATES: tuple[str, ...] = tuple(S.values)
# Column headings narrow enough for the ledger's nine balances on a 1280-pixel screen and a landscape page.
LEDGER_STATE_SHORT = {
    S.RECEIVED: "Exam.", S.IN_STOCK: "Stock", S.ISSUED: "Mktg", S.DISTRIBUTED: "Distr.", S.VOIDED: "Void",
    S.RETURNED: "Ret.", S.EXPIRED: "Exp.", S.REDEEMED: "Redm.", S.CANCELLED: "Canc.",
}


def held_by_marketing(facility: Facility) -> QuerySet[CouponRange]:
    return (
        CouponRange.objects.filter(facility=facility, state=S.ISSUED, closed_by__isnull=True)
        .select_related("series", "since", "location")
        .order_by("series__code", "first_serial")
    )


def held_spans_by_series(facility: Facility, *, denomination_cents: int | None = None) -> dict[CouponSeries, list[Span]]:
    """The serials marketing holds, by series (of one denomination, if given)."""
    rows = held_by_marketing(facility)
    if denomination_cents is not None:
        rows = rows.filter(series__denomination_cents=denomination_cents)
    spans: dict[CouponSeries, list[Span]] = {}
    for row in rows:
        spans.setdefault(row.series, []).append((row.first_serial, row.last_serial))
    return spans


def expired_held(facility: Facility, on_date: date) -> list[CouponRange]:
    """Coupons marketing still holds whose series has expired (to be returned today, § 525.21(k))."""
    return list(held_by_marketing(facility).filter(series__expires_on__lt=on_date))


def finance_stock(facility: Facility) -> QuerySet[CouponRange]:
    """The coupons in finance's stock (§ 525.21(i)), by series and serial."""
    return (CouponRange.objects.filter(facility=facility, state=S.IN_STOCK, closed_by__isnull=True)
            .select_related("series").order_by("series__code", "first_serial"))


def expiring_held(facility: Facility, gaming_date: date) -> list[CouponRange]:
    """Coupons marketing held at the end of ``gaming_date`` and still holds whose series expires that day: they
    cannot be used during the next gaming day, so they cannot be kept for it (§ 525.21(k))."""
    return list(held_by_marketing(facility).filter(series__expires_on=gaming_date,
                                                   opened_by__gaming_date__lte=gaming_date))


def state_totals(facility: Facility) -> dict[int, dict[str, int]]:
    """Coupons by denomination and state, from the open ranges (one query), a coupon whose redemption is
    recorded but not yet posted into the ranges counted *redeemed* (its electronic cancellation, § 525.21(q)(6);
    :func:`coupons.selectors.redemption.awaiting_posting_by_denomination`, one more)."""
    from coupons.selectors.redemption import awaiting_posting_by_denomination

    rows = (
        CouponRange.objects.filter(facility=facility, closed_by__isnull=True)
        .values("series__denomination_cents", "state")
        .annotate(total=Sum(F("last_serial") - F("first_serial") + 1))
        .order_by()
    )
    totals: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(LEDGER_STATES, 0))
    for row in rows:
        totals[row["series__denomination_cents"]][row["state"]] = int(row["total"])
    for cents, redeemed in awaiting_posting_by_denomination(facility).items():
        totals[cents][S.DISTRIBUTED] -= redeemed
        totals[cents][S.REDEEMED] += redeemed
    return dict(totals)


def serial_path(series: CouponSeries, serial: int) -> list[LedgerLine]:
    """Every ledger line that moved ``serial``, oldest first."""
    return list(
        LedgerLine.objects.filter(series=series, first_serial__lte=serial, last_serial__gte=serial)
        .exclude(kind=K.INVENTORY)
        .order_by("occurred_at", "pk")
    )


def series_ranges(series: CouponSeries, start: int | None = None, per_page: int = 100
                  ) -> tuple[KeyPage[CouponRange], list[dict[str, Any]]]:
    """A page of the series' current ranges from serial ``start`` (the range holding it first; None: the lowest),
    each with the path of states its serials went through.

    By keyset on the open ranges' index (series, first_serial) — no count, no OFFSET (issue 27: out-of-order
    redemptions split a series into many ranges). Four queries a page at most: the range holding ``start``, the
    open ranges (and the start of the page before), the movement lines overlapping the page's serials, and the
    redemptions among them still awaiting posting (``awaiting_posting``: redeemed, § 525.21(q)(6)). The path of a
    range is the lines that contain it, the same for every serial in it (a range is split whenever its serials part
    ways), so the work is bounded by the page, not the series' history.
    """
    open_ranges = series.ranges.filter(closed_by__isnull=True)
    if start is not None:
        holding = open_ranges.filter(first_serial__lte=start).order_by("-first_serial").values_list(
            "first_serial", "last_serial").first()
        start = holding[0] if holding is not None and holding[1] >= start else start
    rows_page = key_page(open_ranges.select_related("location", "since"), "first_serial", start, per_page)
    rows = list(rows_page.object_list)
    if not rows:
        return rows_page, []
    lines = list(
        series.ledger_lines.filter(first_serial__lte=rows[-1].last_serial, last_serial__gte=rows[0].first_serial)
        .exclude(kind=K.INVENTORY)
        .order_by("occurred_at", "pk")
    )
    # A coupon with a redemption is redeemed whatever its range still says: one query for the page's serials.
    redeemed = sorted(Redemption.objects.filter(
        series=series, serial__gte=rows[0].first_serial, serial__lte=rows[-1].last_serial,
    ).values_list("serial", flat=True)) if any(row.state == S.DISTRIBUTED for row in rows) else []
    result = []
    for row in rows:
        path = [ln for ln in lines if ln.first_serial is not None and ln.last_serial is not None
                and ln.first_serial <= row.first_serial and ln.last_serial >= row.last_serial]
        awaiting = [series.serial(n) for n in redeemed if row.first_serial <= n <= row.last_serial] if (
            row.state == S.DISTRIBUTED) else []
        result.append({"range": row, "span": series.span(row.first_serial, row.last_serial), "path": path,
                       "awaiting_posting": awaiting})
    return rows_page, result


# What the inventory counts, § 525.21(n) "all Match Play Coupons that are not distributed to patrons":
# coupons awaiting examination, finance stock, coupons held by marketing, returned coupons awaiting
# processing, and the voided and expired coupons finance still holds — voided ones also once the daily
# processing cancelled them, since they are still in finance's hands until destroyed (no destruction
# is recorded yet, so they stay). Distributed and redeemed coupons went to patrons.
INVENTORY_STATES = (S.RECEIVED, S.IN_STOCK, S.ISSUED, S.RETURNED, S.VOIDED, S.EXPIRED)
PLACE_WORDS = {
    S.RECEIVED: "received, awaiting examination",
    S.IN_STOCK: "finance stock",
    S.ISSUED: "held by marketing",
    S.RETURNED: "returned, awaiting processing",
    S.VOIDED: "voided, awaiting cancellation",
    S.EXPIRED: "expired",
    S.CANCELLED: "voided and cancelled, awaiting destruction",
}


def _inventory_rows(facility: Facility) -> QuerySet[CouponRange]:
    return CouponRange.objects.filter(
        Q(state__in=INVENTORY_STATES) | Q(state=S.CANCELLED, since__from_state=S.VOIDED),
        facility=facility, closed_by__isnull=True,
    )


def expected_places(facility: Facility) -> dict[int, str]:
    """Where the coupons the inventory expects are, by series id: "finance stock 950 (Finance vault);
    held by marketing 20 (Marketing locked cabinet); ..." (one aggregate query)."""
    rows = (
        _inventory_rows(facility).values("series_id", "state", "location__name")
        .annotate(n=Sum(F("last_serial") - F("first_serial") + 1)).order_by("series_id", "state", "location__name")
    )
    places: dict[int, list[str]] = defaultdict(list)
    for row in rows:
        where = f" ({row['location__name']})" if row["location__name"] else ""
        places[row["series_id"]].append(f"{PLACE_WORDS[S(row['state'])]} {int(row['n']):,}{where}")
    return {series_id: "; ".join(words) for series_id, words in places.items()}


def expected_inventory(facility: Facility) -> dict[CouponSeries, list[Span]]:
    """The serials the monthly inventory should find, by series."""
    rows = _inventory_rows(facility).select_related("series").order_by("series__code", "first_serial")
    expected: dict[CouponSeries, list[Span]] = {}
    for row in rows:
        expected.setdefault(row.series, []).append((row.first_serial, row.last_serial))
    return {series: spans_.merge(s) for series, s in expected.items()}


def stock_to_issue(facility: Facility, program_id: int, denomination_cents: int, needed_for: date,
                   quantity: int) -> tuple[CouponSeries, list[Span]] | None:
    """What the issuance form suggests for ``quantity`` coupons (§ 525.21(h)): the lowest serials in finance stock
    of one series of the program and denomination still valid on ``needed_for`` (the soonest-expiring first),
    across as many stock ranges as it takes — coupons restocked by finance's processing sit in a range of their
    own below the shipment's. Fewer when the series holds fewer; None when nothing is in stock."""
    rows = list(CouponRange.objects.filter(
        facility=facility, state=S.IN_STOCK, closed_by__isnull=True, series__program_id=program_id,
        series__denomination_cents=denomination_cents, series__expires_on__gte=needed_for,
    ).select_related("series").order_by("series__expires_on", "series_id", "first_serial"))
    if not rows or quantity <= 0:
        return None
    series, spans, wanted = rows[0].series, [], quantity
    for row in rows:
        if row.series_id != series.pk or wanted <= 0:
            break
        last = min(row.last_serial, row.first_serial + wanted - 1)
        spans.append((row.first_serial, last))
        wanted -= last - row.first_serial + 1
    return series, spans_.merge(spans)
