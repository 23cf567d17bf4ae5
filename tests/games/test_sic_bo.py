"""Sic Bo (ch. 539): every § 539.3 wager against hand counts, the § 539.6 paytable and its minimums, and a seeded
simulation. Pure: no database."""

from __future__ import annotations

import ast
import math
import time
from fractions import Fraction
from pathlib import Path

import pytest

from compliance.games.math import core, sic_bo

ROUNDS = 60_000
SEED = 539
# Ordered rolls of three dice for each total 3..18, counted by hand (the triangular numbers, then the cap at 27).
WAYS = {3: 1, 4: 3, 5: 6, 6: 10, 7: 15, 8: 21, 9: 25, 10: 27, 11: 27, 12: 25, 13: 21, 14: 15, 15: 10, 16: 6, 17: 3,
        18: 1}
MINIMUM = {"total-4": 50, "total-5": 18, "total-6": 14, "total-7": 12, "total-8": 8, "total-9": 6, "total-10": 6,
           "total-11": 6, "total-12": 6, "total-13": 8, "total-14": 12, "total-15": 14, "total-16": 18,
           "total-17": 50, "three-of-a-kind": 150, "two-of-a-kind": 8, "any-three-of-a-kind": 24,
           "two-dice-combination": 5, "small": 1, "big": 1}


@pytest.fixture(scope="module")
def analysis() -> core.Analysis:
    return core.GAMES["sic-bo"].run()


def exact_sd(wager: core.WagerFigures) -> float:
    second = sum((o.probability * o.net**2 for o in wager.outcomes), Fraction(0))
    return math.sqrt(float(second - wager.expected**2))


def test_the_game_is_registered_with_an_odds_option_per_wager_of_539_6_b():
    game = core.GAMES["sic-bo"]
    assert game.chapter == "ch. 539"
    assert game.simulate is sic_bo.simulate
    assert {spec.name: spec.default for spec in game.options} == {code: f"{n} to 1" for code, n in MINIMUM.items()}
    assert all(spec.clause == "539.6(b)" and not spec.choices for spec in game.options)


def test_the_engine_imports_nothing_from_django():
    tree = ast.parse(Path(sic_bo.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not [name for name in imported if name.startswith("django")]
    assert {name for name in imported if name.startswith("compliance")} == {"compliance.games.math.core"}


def test_every_wager_of_539_3_is_there_and_its_outcomes_sum_to_exactly_one(analysis):
    codes = [w.code for w in analysis.wagers]
    assert codes == ["three-of-a-kind", "two-of-a-kind", "any-three-of-a-kind", *(f"total-{t}" for t in range(4, 18)),
                     "two-dice-combination", "small", "big", "one-of-a-kind"]
    for wager in analysis.wagers:
        assert wager.total == 1, wager.code
        assert all(isinstance(o.probability, Fraction) and o.probability > 0 for o in wager.outcomes), wager.code
        assert wager.clause in {"539.6(b)", "539.6(c)"}
    assert analysis.readings and analysis.readings == core.GAMES["sic-bo"].readings


def test_small_and_big_lose_on_a_triple_for_a_house_edge_of_exactly_one_in_36(analysis):
    for code in ("small", "big"):
        wager = analysis.wager(code)
        assert wager.house_edge == Fraction(1, 36)
        assert str(core.percent(wager.house_edge, 2)) == "2.78"
        assert wager.probability == Fraction(105, 216)  # 107 rolls in range less the two triples in it
        triple = next(o for o in wager.outcomes if "three of a kind" in o.label and o.net < 0)
        assert triple.probability == Fraction(6, 216)


def test_known_figures_by_hand(analysis):
    assert analysis.wager("any-three-of-a-kind").probability == Fraction(6, 216)
    assert analysis.wager("any-three-of-a-kind").house_edge == 1 - 25 * Fraction(6, 216)
    assert analysis.wager("three-of-a-kind").probability == Fraction(1, 216)
    assert analysis.wager("three-of-a-kind").house_edge == Fraction(65, 216)
    # Two of a Kind: 15 rolls with exactly two of the number, and its triple (read as winning too).
    two = analysis.wager("two-of-a-kind")
    assert two.probability == Fraction(16, 216)
    assert sorted(o.probability for o in two.tiers) == [Fraction(1, 216), Fraction(15, 216)]
    assert two.house_edge == 1 - 9 * Fraction(16, 216)
    # Two Dice Combination: both numbers among three dice: 6 orders of (a, b, other of 4) + 3 + 3 with a repeat.
    assert analysis.wager("two-dice-combination").probability == Fraction(6 * 4 + 3 + 3, 216)
    assert analysis.wager("two-dice-combination").house_edge == Fraction(1, 6)
    # One of a Kind: 75 rolls with one die on the number, 15 with two, 1 with three, 125 with none.
    one = analysis.wager("one-of-a-kind")
    assert [(o.net, o.probability) for o in one.tiers] == [(3, Fraction(1, 216)), (2, Fraction(15, 216)),
                                                          (1, Fraction(75, 216))]
    assert one.house_edge == Fraction(125 - 75 - 30 - 3, 216)
    for total in range(4, 18):
        wager = analysis.wager(f"total-{total}")
        assert wager.probability == Fraction(WAYS[total], 216), total
        assert wager.house_edge == 1 - (MINIMUM[f"total-{total}"] + 1) * Fraction(WAYS[total], 216), total


def test_every_wager_at_the_regulation_paytable_favours_the_house(analysis):
    for wager in analysis.wagers:
        assert wager.house_edge > 0, wager.code
    lowest = min(analysis.wagers, key=lambda w: w.house_edge)
    assert lowest.code in {"small", "big"}


def test_a_changed_paytable_changes_the_figures(analysis):
    game = core.GAMES["sic-bo"]
    richer = game.run({"three-of-a-kind": "180 to 1", "total-4": "60 to 1", "small": "1 to 1"})
    assert richer.wager("three-of-a-kind").house_edge == 1 - Fraction(181, 216)
    assert richer.wager("three-of-a-kind").payout_odds == "180 to 1"
    assert richer.wager("total-4").house_edge == 1 - 61 * Fraction(3, 216)
    assert richer.wager("big").house_edge == analysis.wager("big").house_edge
    assert dict(richer.options)["three-of-a-kind"] == "180 to 1"
    # Odds in lowest terms or not, and with thousands separators.
    assert game.run({"three-of-a-kind": "301 to 2"}).wager("three-of-a-kind").tiers[0].net == Fraction(301, 2)
    assert game.run({"total-17": "1,000 to 1"}).wager("total-17").tiers[0].net == 1000


@pytest.mark.parametrize(("option", "value", "words"), [
    ("any-three-of-a-kind", "20 to 1", "Any Three of a Kind pays at least 24 to 1 (§ 539.6(b)); 20 to 1 is lower."),
    ("three-of-a-kind", "149 to 1", "Three of a Kind pays at least 150 to 1 (§ 539.6(b)); 149 to 1 is lower."),
    ("total-9", "11 to 2", "Total Value Bet of 9 pays at least 6 to 1 (§ 539.6(b)); 11 to 2 is lower."),
    ("small", "0 to 1", "Small Bet pays at least 1 to 1"),
    ("two-of-a-kind", "9 for 1", "never 'for' (§ 539.6(a))"),
    ("two-of-a-kind", "9 for 1", "8 to 1 is the same payout"),
    ("big", "1:1", "Big Bet: payout odds are written 'a to b'"),
    ("total-10", "6.5 to 1", "Total Value Bet of 10: payout odds are written 'a to b'"),
    ("total-10", "6 to 0", "Total Value Bet of 10: payout odds are written 'a to b'"),
    ("total-10", "", "Total Value Bet of 10: payout odds are written 'a to b'"),
    ("total-10", "six to one", "Total Value Bet of 10: payout odds are written 'a to b'"),
])
def test_odds_below_the_minimum_with_for_or_malformed_are_refused_in_words(option, value, words):
    with pytest.raises(core.OptionError) as refused:
        core.GAMES["sic-bo"].run({option: value})
    assert words in str(refused.value)


def test_one_of_a_kind_and_unknown_options_are_not_options():
    with pytest.raises(core.OptionError, match="has no option one-of-a-kind"):
        core.GAMES["sic-bo"].run({"one-of-a-kind": "2 to 1"})


@pytest.mark.parametrize("options", [{}, {"three-of-a-kind": "180 to 1", "total-7": "14 to 1"}])
def test_the_simulator_agrees_with_every_exact_house_edge(options):
    game = core.GAMES["sic-bo"]
    exact = game.run(options)
    assert game.simulate is not None
    tallies = game.simulate(options, ROUNDS, SEED)
    assert set(tallies) == {w.code for w in exact.wagers}
    for wager in exact.wagers:
        tally = tallies[wager.code]
        assert tally.n == ROUNDS
        # The exact standard error (a rare win leaves the sample's own too small to judge by).
        error = exact_sd(wager) / math.sqrt(ROUNDS)
        assert abs(tally.mean - float(wager.expected)) < 4 * error, (wager.code, tally.mean, float(wager.expected))


def test_the_analysis_takes_well_under_a_second():
    started = time.perf_counter()
    core.GAMES["sic-bo"].run()
    assert time.perf_counter() - started < 1.0
