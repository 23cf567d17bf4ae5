"""Props & Hops (ch. 668a): the Six Eight Shake's exact chance against inclusion–exclusion, its payout as an option
(§ 668a.4 is not among the texts) and a seeded simulation. Pure: no database."""

from __future__ import annotations

import ast
import math
import time
from fractions import Fraction
from itertools import combinations, product
from pathlib import Path

import pytest

from compliance.games.math import core
from compliance.games.math import props_and_hops as ph

ROUNDS = 60_000
SEED = 668
CHANCE = Fraction(89, 17160)


@pytest.fixture(scope="module")
def unknown() -> core.Analysis:
    return core.GAMES["props-and-hops"].run()


def exact_sd(wager: core.WagerFigures) -> float:
    second = sum((o.probability * o.net**2 for o in wager.outcomes), Fraction(0))
    return math.sqrt(float(second - wager.expected**2))


def test_the_game_is_registered_with_the_payout_as_its_only_option():
    game = core.GAMES["props-and-hops"]
    assert game.chapter == "ch. 668a"
    assert [(o.name, o.default, o.clause) for o in game.options] == [("payout", "", "668a.4")]
    assert game.simulate is ph.simulate
    with pytest.raises(core.OptionError, match="has no option"):
        game.run({"hop": "15 to 1"})


def test_the_engine_imports_nothing_from_django():
    tree = ast.parse(Path(ph.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not [name for name in imported if name.startswith("django")]
    assert {name for name in imported if name.startswith("compliance")} == {"compliance.games.math.core"}


def test_the_combinations_are_the_six_of_668a_3_e_counted_on_two_dice():
    ways = dict.fromkeys(ph.COMBINATIONS, 0)
    sevens = 0
    for a, b in product(range(1, 7), repeat=2):
        if (min(a, b), max(a, b)) in ways:
            ways[(min(a, b), max(a, b))] += 1
        sevens += a + b == 7
    assert ways == ph.COMBINATIONS
    assert sorted(ph.COMBINATIONS) == [(1, 5), (2, 4), (2, 6), (3, 3), (3, 5), (4, 4)]
    assert {a + b for a, b in ph.COMBINATIONS} == {6, 8}
    assert sevens == ph.SEVEN == 6


def test_the_chance_against_inclusion_exclusion():
    # All six before the first 7 = Σ over sets T of combinations (−1)^|T| P(a 7 before any of T) = 6 / (6 + w(T)).
    weights = [2, 2, 1, 2, 2, 1]
    by_hand = sum((Fraction((-1) ** len(t) * 6, 6 + sum(t)) for r in range(7) for t in combinations(weights, r)),
                  Fraction(0))
    assert by_hand == CHANCE
    assert ph.win_probability() == CHANCE


def test_the_chain_from_states_worked_by_hand():
    everything = frozenset(ph.COMBINATIONS)
    assert ph._from(everything) == 1
    # Only 3-3 left (1 way) against a 7 (6 ways): 1/7. Only 3-3 and 4-4: either first (2/8), then the other (1/7).
    assert ph._from(everything - {(3, 3)}) == Fraction(1, 7)
    assert ph._from(everything - {(3, 3), (4, 4)}) == Fraction(2, 8) * Fraction(1, 7) == Fraction(1, 28)
    # Only 1-5 (2 ways) and 3-3 (1 way): 1-5 first (2/9) then 3-3 (1/7), or 3-3 first (1/9) then 1-5 (2/8).
    assert ph._from(everything - {(1, 5), (3, 3)}) == Fraction(2, 9) * Fraction(1, 7) + Fraction(1, 9) * Fraction(2, 8)


def test_without_the_payout_the_chance_and_true_odds_are_given_and_the_gap_is_said(unknown):
    (wager,) = unknown.wagers  # no other § 668a.4 wager is invented
    assert wager.code == "six-eight-shake"
    assert wager.name == "Six Eight Shake (payout not known: § 668a.4; shown at the true odds)"
    assert wager.total == 1
    assert wager.probability == CHANCE
    assert wager.true_odds == "17071 to 89"  # about 191.8 to 1
    assert wager.house_edge == 0  # shown at the true odds: not a finding
    assert "§ 668a.4, which is not among the texts" in wager.note and "Six Eight Shake payout odds" in wager.note
    assert "true odds" in wager.tiers[0].label
    assert dict(unknown.options) == {"payout": ""}
    assert any("§ 668a.4" in reading for reading in unknown.readings)


def test_a_payout_gives_the_house_advantage():
    game = core.GAMES["props-and-hops"]
    at_150 = game.run({"payout": "150 to 1"}).wagers[0]
    assert at_150.house_edge == 1 - 151 * CHANCE == Fraction(3721, 17160)
    assert at_150.payout_odds == "150 to 1" and at_150.name == "Six Eight Shake"
    assert "At the payout given (150 to 1)" in at_150.note
    # Break-even lies between 191 and 192 to 1: below it the house is ahead, above it the player.
    assert game.run({"payout": "191 to 1"}).wagers[0].house_edge > 0
    assert game.run({"payout": "192 to 1"}).wagers[0].house_edge < 0
    assert game.run({"payout": "17071 to 89"}).wagers[0].house_edge == 0


@pytest.mark.parametrize(("value", "words"), [
    ("150 for 1", "never 'for'"),
    ("0 to 1", "both above 0"),
    ("150 to 0", "both above 0"),
    ("150:1", "written 'a to b'"),
    ("lots", "written 'a to b'"),
    ("150.5 to 1", "written 'a to b'"),
])
def test_a_malformed_payout_is_refused_in_words(value, words):
    with pytest.raises(core.OptionError) as refused:
        core.GAMES["props-and-hops"].run({"payout": value})
    assert "Six Eight Shake payout" in str(refused.value) and words in str(refused.value)


@pytest.mark.parametrize("options", [{}, {"payout": "150 to 1"}])
def test_the_simulator_agrees_with_the_exact_figures(options):
    game = core.GAMES["props-and-hops"]
    wager = game.run(options).wagers[0]
    assert game.simulate is not None
    tally = game.simulate(options, ROUNDS, SEED)["six-eight-shake"]
    assert tally.n == ROUNDS
    error = exact_sd(wager) / math.sqrt(ROUNDS)
    assert abs(tally.mean - float(wager.expected)) < 4 * error, (tally.mean, float(wager.expected))


def test_the_analysis_takes_well_under_a_second():
    started = time.perf_counter()
    core.GAMES["props-and-hops"].run({"payout": "150 to 1"})
    assert time.perf_counter() - started < 1.0
