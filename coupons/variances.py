"""The comparisons of § 525.21 as pure functions: no database, no writes, only figures in and the
differences out, in the words the reports print. The services read the figures (selectors), call
these, then lock, check, write and sign; the tests call these directly
(``tests/coupons/test_variances.py``).

* :func:`receipt_deviation`: the invoice against the coupons received, § 525.21(e)–(f).
* :func:`uncounted` / :func:`count_variations`: marketing's physical count against the ledger on the
  daily reconciliation form, § 525.21(j)(5), (7).
* :func:`finance_variances`: finance's daily reconciliation, § 525.21(m)(3), each side read independently.
* :func:`inventory_difference`: the monthly count of one series against the ledger, § 525.21(n).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compliance.numbers import how_many
from coupons import ranges as spans_
from coupons.models import format_cents
from coupons.ranges import Span
from coupons.selectors.day import DayFigure

__all__ = [
    "COUNTED_STATES",
    "Counts",
    "InventoryDifference",
    "SignedForm",
    "Variance",
    "count_differences",
    "count_variations",
    "finance_variances",
    "inventory_difference",
    "receipt_deviation",
    "same_counts",
    "uncounted",
]


def receipt_deviation(invoice_quantity: int, invoice_first: int, invoice_last: int, received: Sequence[Span],
                      series: Any) -> str:
    """How the coupons received differ from the invoice ("" when they agree), § 525.21(e)."""
    problems = []
    quantity = spans_.count(received)
    if quantity != invoice_quantity:
        problems.append(f"the invoice lists {how_many(invoice_quantity)} but {quantity:,} were received")
    if invoice_last - invoice_first + 1 != invoice_quantity:
        problems.append(
            f"the invoice serials {series.span(invoice_first, invoice_last)} do not add up to its quantity "
            f"of {invoice_quantity:,}"
        )
    short = spans_.subtract([(invoice_first, invoice_last)], received)
    if short:
        problems.append(f"serials {spans_.describe(series, short)} on the invoice were not received")
    extra = spans_.subtract(received, [(invoice_first, invoice_last)])
    if extra:
        problems.append(f"serials {spans_.describe(series, extra)} were received but are not on the invoice")
    return "; ".join(problems).capitalize() + ("." if problems else "")


# --- marketing's form, § 525.21(j) -------------------------------------------------------------------------
def uncounted(figures: Sequence[DayFigure], counted: Mapping[int, int]) -> list[str]:
    """Denominations marketing still holds coupons of but entered no count for."""
    return [f.denomination for f in figures if f.remaining and f.denomination_cents not in counted]


def count_variations(figures: Sequence[DayFigure], counted: Mapping[int, int]) -> list[str]:
    """Where the physical count of coupons remaining differs from the ledger, § 525.21(j)(5)."""
    variations = [
        f"{figure.denomination}: the ledger expects {figure.remaining:,} remaining, "
        f"{counted.get(figure.denomination_cents, 0):,} were counted"
        for figure in figures if counted.get(figure.denomination_cents, 0) != figure.remaining
    ]
    unknown = set(counted) - {f.denomination_cents for f in figures}
    if any(counted[d] for d in unknown):
        variations.append("coupons were counted in a denomination marketing did not hold today")
    return variations


# --- finance's day, § 525.21(m) ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Variance:
    """One difference finance found: what, in words, and by how many coupons."""

    words: str
    coupons: int


@dataclass(frozen=True)
class SignedForm:
    """What marketing's signed form says: its frozen figures by denomination (each with ``carried_in``,
    ``received``, ``distributed``, ``voided``, ``returned``, ``remaining_expected`` and ``variance``),
    where the remaining coupons went, and the explanation of a counted variation."""

    disposition: str  # ReconciliationForm.Disposition: "return" or "keep"
    figures: Mapping[int, Any] = field(default_factory=dict)
    variation_explanation: str = ""


def _custody(cents: int, line: DayFigure, carried_in: int, kept: int) -> list[Variance]:
    """Given to marketing (carried in + issued) = returned + voided + distributed + kept."""
    given = carried_in + line.received
    accounted = line.returned + line.voided + line.distributed + kept
    if given == accounted:
        return []
    return [Variance(
        f"{format_cents(cents)}: given to marketing {given:,} (carried in {carried_in:,} + issued "
        f"{line.received:,}) ≠ returned {line.returned:,} + voided {line.voided:,} + distributed "
        f"{line.distributed:,} + kept {kept:,} (off by {given - accounted:,})",
        abs(given - accounted),
    )]


def _against_form(cents: int, line: DayFigure, form: SignedForm, carried_in: int, kept: int) -> list[Variance]:
    """The signed form's figures against the ledger: anything recorded into the day after signing shows."""
    figure = form.figures.get(cents)
    remaining = figure.remaining_expected if figure is not None else 0
    returned_with_form = remaining if form.disposition == "return" else 0
    kept_by_form = remaining if form.disposition == "keep" else 0
    found = []
    for label, on_form, in_ledger in (
        ("carried in", figure.carried_in if figure else 0, carried_in),
        ("received", figure.received if figure else 0, line.received),
        ("distributed", figure.distributed if figure else 0, line.distributed),
        ("voided", figure.voided if figure else 0, line.voided),
        ("returned", (figure.returned if figure else 0) + returned_with_form, line.returned),
        ("kept for the next day", kept_by_form, kept),
    ):
        if on_form != in_ledger:
            found.append(Variance(
                f"{format_cents(cents)} {label}: the signed form has {on_form:,}, the ledger {in_ledger:,}",
                abs(on_form - in_ledger),
            ))
    return found


# What finance counts each day, § 525.21(m)(1): the coupons awaiting its processing, by denomination and state.
COUNTED_STATES = ("returned", "voided", "redeemed")
Counts = Mapping[int, Mapping[str, int]]  # {denomination_cents: {"returned": n, "voided": n, "redeemed": n}}


def count_differences(counted: Counts, pending: Counts) -> list[Variance]:
    """Where finance's physical count differs from the ledger's coupons awaiting processing, by denomination
    and state, § 525.21(m)(1), (3); a denomination or state not given counts 0."""
    found = []
    for cents in sorted(set(counted) | set(pending)):
        for label in COUNTED_STATES:
            have, want = counted.get(cents, {}).get(label, 0), pending.get(cents, {}).get(label, 0)
            if have != want:
                found.append(Variance(
                    f"{format_cents(cents)}: {how_many(have, label + ' coupon')} counted, the ledger has {want:,}",
                    abs(have - want)))
    return found


def same_counts(first: Counts, second: Counts) -> bool:
    """Two counts agree in every denomination and state (a state or denomination not given counts 0)."""
    return all(first.get(cents, {}).get(label, 0) == second.get(cents, {}).get(label, 0)
               for cents in set(first) | set(second) for label in COUNTED_STATES)


def finance_variances(
    *,
    moved: Mapping[int, DayFigure],
    carried_in: Mapping[int, int],
    kept: Mapping[int, int],
    form: SignedForm | None,
    counted: Counts,
    pending: Counts,
) -> list[Variance]:
    """Every difference in a gaming day, § 525.21(m)(3), from three sources read independently:

    * ``moved``: the ledger's movements of the day by denomination; ``carried_in`` / ``kept``: what
      marketing held at the end of the day before and of the day, read from the ranges;
    * ``form``: marketing's signed form (None when marketing handled no coupons);
    * ``counted``: finance's physical counts of "returned", "voided" and "redeemed" coupons by denomination,
      against ``pending``, the ledger's coupons awaiting processing in those states (:func:`count_differences`).
    """
    found: list[Variance] = []
    frozen = form.figures if form is not None else {}
    for cents in sorted(set(moved) | set(carried_in) | set(kept) | set(frozen)):
        line = moved.get(cents) or DayFigure(cents)
        found += _custody(cents, line, carried_in.get(cents, 0), kept.get(cents, 0))
        if form is not None:
            found += _against_form(cents, line, form, carried_in.get(cents, 0), kept.get(cents, 0))
    found += count_differences(counted, pending)
    form_variance = sum(abs(f.variance) for f in frozen.values())
    if form_variance:
        found.append(Variance(
            f"marketing's form reports a variation of {how_many(form_variance)}: "
            f"{form.variation_explanation if form else ''}",
            form_variance,
        ))
    return found


# --- the monthly inventory, § 525.21(n) -------------------------------------------------------------------
@dataclass(frozen=True)
class InventoryDifference:
    expected: list[Span]
    counted: list[Span]
    words: str

    @property
    def surplus(self) -> int:
        """Counted minus expected (negative: coupons missing)."""
        return spans_.count(self.counted) - spans_.count(self.expected)


def inventory_difference(series: Any, expected: Sequence[Span], counted: Sequence[Span]) -> InventoryDifference:
    """One series' count against the ledger, in the words the inventory's ledger line carries."""
    want, have = spans_.merge(expected), spans_.merge(counted)
    missing, extra = spans_.subtract(want, have), spans_.subtract(have, want)
    words = [f"expected {spans_.count(want):,}, counted {spans_.count(have):,}"]
    if missing:
        words.append(f"not found: {spans_.describe(series, missing)}")
    if extra:
        words.append(f"not expected: {spans_.describe(series, extra)}")
    return InventoryDifference(expected=want, counted=have, words="; ".join(words))
