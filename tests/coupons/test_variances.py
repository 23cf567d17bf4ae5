"""The comparisons of § 525.21 as pure functions (coupons/variances.py): no database is touched."""

from __future__ import annotations

from dataclasses import dataclass

from coupons.selectors.day import DayFigure
from coupons.variances import (
    SignedForm,
    count_differences,
    count_variations,
    finance_variances,
    inventory_difference,
    receipt_deviation,
    same_counts,
    uncounted,
)


class _Series:
    """What the words need of a series: how a serial is printed."""

    def span(self, first: int, last: int) -> str:
        return str(first) if first == last else f"{first}–{last}"


@dataclass
class _Frozen:
    """A signed form's frozen figure, as ReconciliationFigure carries it."""

    carried_in: int = 0
    received: int = 0
    distributed: int = 0
    voided: int = 0
    returned: int = 0
    remaining_expected: int = 0
    remaining_counted: int = 0

    @property
    def variance(self) -> int:
        return self.remaining_counted - self.remaining_expected


def test_a_receipt_that_matches_its_invoice_has_no_deviation():
    assert receipt_deviation(100, 1, 100, [(1, 100)], _Series()) == ""


def test_a_short_shipment_names_the_missing_serials_and_the_counts():
    words = receipt_deviation(100, 1, 100, [(1, 40), (51, 100)], _Series())
    assert words == "The invoice lists 100 coupons but 90 were received; serials 41–50 on the invoice were not received."


def test_serials_received_but_not_invoiced_and_an_invoice_that_does_not_add_up_are_both_said():
    words = receipt_deviation(50, 1, 100, [(1, 50), (201, 201)], _Series())
    assert "do not add up to its quantity of 50" in words
    assert "serials 201 were received but are not on the invoice" in words


def test_uncounted_lists_only_denominations_still_held():
    figures = [DayFigure(2500, received=10, distributed=10), DayFigure(5000, received=5)]
    assert uncounted(figures, {}) == ["$50"]
    assert uncounted(figures, {5000: 5}) == []


def test_count_variations_compare_the_count_with_the_ledger():
    figures = [DayFigure(2500, received=10, distributed=4)]
    assert count_variations(figures, {2500: 6}) == []
    assert count_variations(figures, {2500: 5}) == ["$25: the ledger expects 6 remaining, 5 were counted"]
    assert count_variations(figures, {2500: 6, 10000: 2}) == [
        "coupons were counted in a denomination marketing did not hold today"
    ]


def test_a_day_that_balances_has_no_variance():
    moved = {2500: DayFigure(2500, carried_in=0, received=10, distributed=6, returned=4)}
    form = SignedForm("return", {2500: _Frozen(received=10, distributed=6, remaining_expected=4,
                                               remaining_counted=4)})
    assert finance_variances(moved=moved, carried_in={}, kept={}, form=form, counted={2500: {"returned": 4}},
                             pending={2500: {"returned": 4}}) == []


def test_custody_that_does_not_add_up_is_a_variance_by_its_difference():
    moved = {2500: DayFigure(2500, received=10, distributed=6)}
    (variance,) = finance_variances(moved=moved, carried_in={}, kept={2500: 3}, form=None, counted={},
                                    pending={})
    assert variance.coupons == 1
    assert variance.words.startswith("$25: given to marketing 10 (carried in 0 + issued 10)")


def test_a_movement_recorded_after_the_form_was_signed_shows_against_the_form():
    moved = {2500: DayFigure(2500, received=10, distributed=7, returned=3)}
    form = SignedForm("return", {2500: _Frozen(received=10, distributed=6, remaining_expected=4,
                                               remaining_counted=4)})
    found = finance_variances(moved=moved, carried_in={}, kept={}, form=form, counted={2500: {"returned": 3}},
                              pending={2500: {"returned": 3}})
    assert [v.words for v in found] == [
        "$25 distributed: the signed form has 6, the ledger 7",
        "$25 returned: the signed form has 4, the ledger 3",
    ]
    assert sum(v.coupons for v in found) == 2


def test_finance_counts_and_marketings_own_variation_are_variances():
    form = SignedForm("keep", {2500: _Frozen(received=5, remaining_expected=5, remaining_counted=3)}, "two torn")
    found = finance_variances(moved={2500: DayFigure(2500, received=5)}, carried_in={}, kept={2500: 5}, form=form,
                              counted={2500: {"returned": 0, "voided": 1, "redeemed": 0}}, pending={})
    assert [v.words for v in found] == [
        "$25: 1 voided coupon counted, the ledger has 0",
        "marketing's form reports a variation of 2 coupons: two torn",
    ]


def test_finance_counts_are_compared_by_denomination_and_state_525_21_m_3():
    """§ 525.21(m)(1), (3): finance's count of each denomination against the ledger's coupons awaiting processing;
    a $50 short does not hide behind a $25 over (their totals agree)."""
    pending = {2500: {"returned": 10, "voided": 1, "redeemed": 3}, 5000: {"returned": 4, "voided": 0, "redeemed": 0}}
    counted = {2500: {"returned": 11, "voided": 1, "redeemed": 3}, 5000: {"returned": 3}}
    assert [(v.words, v.coupons) for v in count_differences(counted, pending)] == [
        ("$25: 11 returned coupons counted, the ledger has 10", 1),
        ("$50: 3 returned coupons counted, the ledger has 4", 1),
    ]
    assert count_differences(pending, pending) == []
    assert same_counts(counted, {**counted, 10000: {"returned": 0}})
    assert not same_counts(counted, pending)


def test_an_inventory_difference_names_missing_and_unexpected_serials():
    difference = inventory_difference(_Series(), [(1, 100)], [(1, 49), (51, 101)])
    assert difference.words == "expected 100, counted 100; not found: 50; not expected: 101"
    assert difference.surplus == 0
    assert inventory_difference(_Series(), [(1, 10)], [(1, 8)]).surplus == -2
