"""A gaming day's coupon figures, read from the ledger: what marketing was given, gave out, voided,
returned and kept, § 525.21(j)–(m). The reconciliation form, finance's processing and their screens
all read these."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import Case, F, IntegerField, Q, Sum, When

from compliance.models import Facility
from coupons.models import CouponRange, CouponState, LedgerLine, format_cents

__all__ = [
    "DayFigure",
    "ToDate",
    "awaiting_processing",
    "day_figures",
    "held_at_end_of",
    "to_date_by_denomination",
    "to_date_totals",
    "voided_on",
]

S = CouponState
K = LedgerLine.Kind


@dataclass
class DayFigure:
    denomination_cents: int
    carried_in: int = 0
    received: int = 0
    distributed: int = 0
    voided: int = 0
    returned: int = 0

    @property
    def to_distribute(self) -> int:
        return self.carried_in + self.received

    @property
    def remaining(self) -> int:
        return self.to_distribute - self.distributed - self.voided - self.returned

    @property
    def denomination(self) -> str:
        return format_cents(self.denomination_cents)


def day_figures(facility: Facility, gaming_date: date) -> list[DayFigure]:
    """Marketing's figures for a gaming day by denomination, from the ledger (one aggregate query)."""

    def total(condition: Q) -> Any:
        return Sum(Case(When(condition, then=F("quantity")), default=0, output_field=IntegerField()))

    on_day = Q(gaming_date=gaming_date)
    before = Q(gaming_date__lt=gaming_date)
    rows = (
        LedgerLine.objects.filter(facility=facility, gaming_date__lte=gaming_date)
        .values("denomination_cents")
        .annotate(
            in_before=total(before & Q(to_state=S.ISSUED) & ~Q(from_state=S.ISSUED)),
            out_before=total(before & Q(from_state=S.ISSUED) & ~Q(to_state=S.ISSUED)),
            # A correction approved today brings coupons back into marketing's hands: received today.
            received=total(on_day & (Q(kind=K.ISSUE) | Q(kind=K.CORRECT, to_state=S.ISSUED))),
            # A same-day reversal nets the mistaken movement out of its column.
            distributed=total(on_day & Q(kind=K.DISTRIBUTE)) - total(on_day & Q(kind=K.REVERSE, from_state=S.DISTRIBUTED)),
            voided=total(on_day & Q(kind=K.VOID, from_state=S.ISSUED)) - total(on_day & Q(kind=K.REVERSE, from_state=S.VOIDED)),
            returned=total(on_day & Q(kind=K.RETURN)) - total(on_day & Q(kind=K.REVERSE, from_state=S.RETURNED)),
        )
        .order_by("denomination_cents")
    )
    figures = []
    for row in rows:
        figure = DayFigure(
            denomination_cents=row["denomination_cents"],
            carried_in=(row["in_before"] or 0) - (row["out_before"] or 0),
            received=row["received"] or 0,
            distributed=row["distributed"] or 0,
            voided=row["voided"] or 0,
            returned=row["returned"] or 0,
        )
        if figure.to_distribute or figure.distributed or figure.voided or figure.returned:
            figures.append(figure)
    return figures


def voided_on(facility: Facility, gaming_date: date) -> dict[int, tuple[int, int]]:
    """Coupons voided on a gaming day by denomination: (voided by finance at issuance or in stock, § 525.21(h)(4);
    voided by marketing from what it held, § 525.21(j)(6)). One query."""
    rows = (
        LedgerLine.objects.filter(facility=facility, gaming_date=gaming_date, kind=K.VOID)
        .values("denomination_cents", "from_state").annotate(n=Sum("quantity")).order_by()
    )
    voided: dict[int, tuple[int, int]] = {}
    for row in rows:
        finance, marketing = voided.get(row["denomination_cents"], (0, 0))
        if row["from_state"] == S.ISSUED:
            marketing += int(row["n"])
        else:
            finance += int(row["n"])
        voided[row["denomination_cents"]] = (finance, marketing)
    return voided


def held_at_end_of(facility: Facility, gaming_date: date, *, still_held: bool = False) -> dict[int, int]:
    """Coupons marketing held at the end of ``gaming_date``, by denomination, read from the ranges (not
    from the day's ledger lines): the ranges in the issued state opened on or before that day and not
    closed until a later one. ``still_held``: only those marketing still holds now, untouched since."""
    rows = CouponRange.objects.filter(facility=facility, state=S.ISSUED, opened_by__gaming_date__lte=gaming_date)
    rows = rows.filter(closed_by__isnull=True) if still_held else rows.filter(
        Q(closed_by__isnull=True) | Q(closed_by__gaming_date__gt=gaming_date))
    totals = (rows.values("series__denomination_cents")
              .annotate(n=Sum(F("last_serial") - F("first_serial") + 1)).order_by())
    return {row["series__denomination_cents"]: int(row["n"]) for row in totals if row["n"]}


@dataclass(frozen=True)
class ToDate:
    """One denomination's coupons to date, § 525.21(m)(3): given to marketing for distribution, distributed to
    patrons, redeemed."""

    given: int = 0
    distributed: int = 0
    redeemed: int = 0


def to_date_by_denomination(facility: Facility, through: date | None = None, *,
                            all_posted: bool = False) -> dict[int, ToDate]:
    """Coupons given to marketing, distributed and redeemed by denomination, from the ledger, to ``through``
    (the gaming day processed; the whole history if None), one query, and the redemptions not yet posted
    (their electronic cancellation, § 525.21(q)(6)). A distribution taken back (a same-day reversal, or a
    correction of a signed form) was not a coupon given to a patron: it is not counted as distributed.

    ``all_posted``: the caller has just posted every redemption under the facility's exclusive lock (finance's
    processing), so none awaits and they are not looked for: in that transaction the ranges it has just split
    make the look a minute long on a busy day of coupons redeemed in any order (issue 27)."""
    from coupons.selectors.redemption import awaiting_posting_counts

    def total(condition: Q) -> Any:
        return Sum(Case(When(condition, then=F("quantity")), default=0, output_field=IntegerField()))

    lines = LedgerLine.objects.filter(facility=facility)
    if through is not None:
        lines = lines.filter(gaming_date__lte=through)
    rows = lines.values("denomination_cents").annotate(
        given=total(Q(kind=K.ISSUE)),
        distributed=total(Q(kind=K.DISTRIBUTE))
        - total(Q(kind__in=[K.REVERSE, K.CORRECT], from_state=S.DISTRIBUTED)),
        redeemed=total(Q(kind=K.REDEEM)),
    ).order_by("denomination_cents")
    found = {row["denomination_cents"]: ToDate(int(row["given"] or 0), int(row["distributed"] or 0),
                                               int(row["redeemed"] or 0)) for row in rows}
    for cents, redeemed in ({} if all_posted else awaiting_posting_counts(facility, through)).items():
        was = found.get(cents, ToDate())
        found[cents] = ToDate(was.given, was.distributed, was.redeemed + redeemed)
    return {cents: figure for cents, figure in found.items() if figure != ToDate()}


def to_date_totals(facility: Facility) -> tuple[int, int]:
    """Coupons distributed to patrons and redeemed, to date, all denominations (§ 525.21(m)(3))."""
    figures = to_date_by_denomination(facility).values()
    return sum(f.distributed for f in figures), sum(f.redeemed for f in figures)


def awaiting_processing(facility: Facility, gaming_date: date) -> dict[int, dict[str, int]]:
    """The coupons finance's processing of ``gaming_date`` counts, by denomination: returned, voided and
    redeemed on or before that day and not processed yet, § 525.21(m)(1) (one query, and the redemptions not
    yet posted, which the processing posts first)."""
    from coupons.selectors.redemption import awaiting_posting_counts

    rows = (
        CouponRange.objects.filter(facility=facility, closed_by__isnull=True,
                                   state__in=[S.RETURNED, S.VOIDED, S.REDEEMED], since__gaming_date__lte=gaming_date)
        .values("series__denomination_cents", "state")
        .annotate(n=Sum(F("last_serial") - F("first_serial") + 1))
        .order_by()
    )
    found: dict[int, dict[str, int]] = {}
    for row in rows:
        counts = found.setdefault(row["series__denomination_cents"], dict.fromkeys(_COUNTED, 0))
        counts[str(row["state"])] += int(row["n"])
    for cents, redeemed in awaiting_posting_counts(facility, gaming_date).items():
        counts = found.setdefault(cents, dict.fromkeys(_COUNTED, 0))
        counts[S.REDEEMED] += redeemed
    return dict(sorted(found.items()))


_COUNTED = (S.RETURNED.value, S.VOIDED.value, S.REDEEMED.value)  # the states' values are the words finance counts
