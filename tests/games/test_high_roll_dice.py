"""High Roll Dice (ch. 675a), ten dice and the six-dice variation: the exact figures against an independent
generating-function count, a brute force over every ordered roll of six dice, the text's own examples, hand
figures and a seeded simulation. Pure: no database."""

from __future__ import annotations

import ast
import math
import time
from collections import Counter
from fractions import Fraction
from itertools import product
from math import comb, factorial
from pathlib import Path

import pytest

from compliance.games.math import core
from compliance.games.math import high_roll_dice as hrd

ROUNDS = 60_000
SEED = 675
TEN, SIX = 6**10, 6**6
CIRCLE_PARTS = [f"like-kind-{n}-extra-roll" for n in range(3, 9)]


@pytest.fixture(scope="module")
def ten() -> core.Analysis:
    return core.GAMES["high-roll-dice"].run()


@pytest.fixture(scope="module")
def six() -> core.Analysis:
    return core.GAMES["high-roll-dice-six"].run()


def exact_sd(wager: core.WagerFigures) -> float:
    second = sum((o.probability * o.net**2 for o in wager.outcomes), Fraction(0))
    return math.sqrt(float(second - wager.expected**2))


def capped_orders(dice: int, caps: list[int]) -> int:
    """Ordered rolls of ``dice`` dice on faces whose counts are capped (an exponential generating function)."""
    poly = [Fraction(1)]
    for cap in caps:
        term = [Fraction(1, factorial(j)) for j in range(cap + 1)]
        poly = [sum((poly[i] * term[n - i] for i in range(len(poly)) if 0 <= n - i < len(term)), Fraction(0))
                for n in range(len(poly) + len(term) - 1)]
    coefficient = poly[dice] if dice < len(poly) else Fraction(0)
    return int(coefficient * factorial(dice))


def pip_street_by_gf(dice: int, face: int) -> Fraction:
    """The face wins: it shows c dice, every face ranked above it fewer than c, every face below at most c."""
    above = hrd.RANK[: hrd.RANK.index(face)]
    won = 0
    for c in range(1, dice + 1):
        caps = [c - 1 if f in above else c for f in range(1, 7) if f != face]
        won += comb(dice, c) * capped_orders(dice - c, caps)
    return Fraction(won, 6**dice)


def most_by_gf(dice: int, n: int) -> Fraction:
    """The most-matched count is exactly n: every face at most n, less every face at most n − 1."""
    return Fraction(capped_orders(dice, [n] * 6) - capped_orders(dice, [n - 1] * 6), 6**dice)


def test_both_games_are_registered_without_options():
    for slug in ("high-roll-dice", "high-roll-dice-six"):
        game = core.GAMES[slug]
        assert game.chapter == "ch. 675a"
        assert game.options == ()
        assert game.readings
        with pytest.raises(core.OptionError, match="has no option"):
            game.run({"paytable": "B"})


def test_the_engine_imports_nothing_from_django():
    tree = ast.parse(Path(hrd.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not [name for name in imported if name.startswith("django")]
    assert {name for name in imported if name.startswith("compliance")} == {"compliance.games.math.core"}


def test_count_vectors_cover_every_ordered_roll():
    assert len(list(hrd.count_vectors(10))) == comb(15, 5) == 3003
    assert sum(hrd.orders(v) for v in hrd.count_vectors(10)) == TEN
    assert len(list(hrd.count_vectors(6))) == comb(11, 5) == 462
    assert sum(hrd.orders(v) for v in hrd.count_vectors(6)) == SIX


def test_every_wager_outcome_sums_to_exactly_one(ten, six):
    assert len(ten.wagers) == 6 + 7 + 6 + 1 + 1 + 2  # + the whole position with an Extra Roll
    assert len(six.wagers) == 6 + 6
    for analysis in (ten, six):
        for wager in analysis.wagers:
            assert wager.total == 1, wager.code
            assert all(isinstance(o.probability, Fraction) and o.probability > 0 for o in wager.outcomes), wager.code


def counts_of(**faces: int) -> tuple[int, ...]:
    named = {"aces": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
    counts = [0] * 6
    for name, n in faces.items():
        counts[named[name] - 1] = n
    return tuple(counts)


def test_the_texts_own_examples_of_the_most_matches_and_the_ranking():
    # § 675a.2(e)(1)(i)–(ii), (e)(2)(i)–(ii); § 675a.4(e), (g); § 675a.6(d)(1)–(2), (h).
    assert hrd.most_matched(counts_of(sixes=3, fours=4, twos=3))[:2] == (4, 4)
    assert hrd.most_matched(counts_of(sixes=3, aces=3, twos=2, threes=2)) == (1, 3, True)
    assert hrd.most_matched(counts_of(sixes=3, aces=4, twos=3))[1] == 4
    assert hrd.most_matched(counts_of(twos=5, aces=3, fours=2)) == (2, 5, False)
    assert hrd.most_matched(counts_of(fives=4, sixes=3, aces=2, fours=1)) == (5, 4, False)
    assert hrd.most_matched(counts_of(sixes=3, fours=3, twos=2, aces=2)) == (6, 3, True)
    assert hrd.most_matched(counts_of(sixes=2, aces=4)) == (1, 4, False)
    assert hrd.most_matched((1, 1, 1, 1, 1, 1)) == (1, 1, True)  # no match: the ace ranks highest
    assert hrd.most_matched(counts_of(fives=3, sixes=2, fours=1)) == (5, 3, False)


def test_pip_street_and_like_kind_against_an_independent_generating_function(ten, six):
    for analysis, dice in ((ten, 10), (six, 6)):
        for face in range(1, 7):
            wager = analysis.wager(f"pip-street-{hrd.CODE[face]}")
            assert wager.probability == pip_street_by_gf(dice, face), (dice, face)
        assert sum(analysis.wager(f"pip-street-{hrd.CODE[f]}").probability for f in range(1, 7)) == 1
    for n in range(2, 9):
        assert ten.wager(f"like-kind-{n}").probability == most_by_gf(10, n), n
    for n in range(2, 7):
        assert six.wager(f"like-kind-{n}").probability == most_by_gf(6, n), n


def test_the_six_dice_game_against_every_ordered_roll(six: core.Analysis) -> None:
    pip: Counter[int] = Counter()
    most: Counter[int] = Counter()
    for roll in product(range(1, 7), repeat=6):
        shown = Counter(roll)
        top = max(shown.values())
        # The ranking written out again: the ace first, then the higher face.
        pip[max((f for f in shown if shown[f] == top), key=lambda f: (f == 1, f))] += 1
        most[top] += 1
    for face in range(1, 7):
        assert six.wager(f"pip-street-{hrd.CODE[face]}").probability == Fraction(pip[face], SIX)
    assert six.wager("like-kind-no-match").probability == Fraction(most[1], SIX) == Fraction(720, SIX)
    for n in range(2, 7):
        assert six.wager(f"like-kind-{n}").probability == Fraction(most[n], SIX)


def test_known_figures_by_hand(ten, six):
    two_of_a_kind = 6 * factorial(10) // 2**5 + 15 * factorial(10) // 2**4  # 2,2,2,2,2,0 and 2,2,2,2,1,1
    assert ten.wager("like-kind-2").probability == Fraction(two_of_a_kind, TEN)
    assert ten.wager("like-kind-2").house_edge == 1 - 13 * Fraction(two_of_a_kind, TEN)
    assert ten.wager("millionaire-row-10").probability == Fraction(6, TEN)
    assert ten.wager("millionaire-row-10").house_edge == 1 - 1_000_001 * Fraction(6, TEN)
    assert ten.wager("millionaire-row-9").probability == Fraction(6 * 5 * 10, TEN)
    assert ten.wager("millionaire-row-9").house_edge == 1 - 50_001 * Fraction(300, TEN)
    assert six.wager("like-kind-6").probability == Fraction(6, SIX)
    assert six.wager("like-kind-5").probability == Fraction(6 * 5 * 6, SIX)
    assert six.wager("like-kind-no-match").house_edge == 1 - 61 * Fraction(720, SIX)
    # No match pays Pip Street's ace: one of its ways to win is the tie of all six faces.
    ace = six.wager("pip-street-ace")
    assert next(o for o in ace.tiers if "rank" in o.label).probability >= Fraction(720, SIX)


def test_the_extra_roll_by_hand(ten):
    m2, m3 = ten.wager("like-kind-2").probability, ten.wager("like-kind-3").probability
    # Circle three: three on the first roll (3 to 5), or a pair plus one of the eight dice thrown again (6 to 1).
    three = ten.wager("like-kind-3-extra-roll")
    after = m2 * 8 * Fraction(1, 6) * Fraction(5, 6) ** 7
    assert {o.label: o.probability for o in three.tiers} == {"three-of-a-kind on the first roll": m3,
                                                             "three-of-a-kind after the Extra Roll": after}
    assert three.expected == Fraction(3, 5) * m3 + 6 * after - (1 - m3 - after)
    purchase = ten.wager("extra-roll")
    assert next(o for o in purchase.tiers if o.net == 6).probability == after
    # The whole position of a player on every circle: its parts less the price, per unit of eight.
    parts = sum((ten.wager(code).expected for code in CIRCLE_PARTS), ten.wager("like-kind-2").expected)
    assert f"({-(parts - 1) / 8})" in ten.readings[-1]
    assert -(parts - 1) / 8 == Fraction(87856037977, 940369969152)  # 9.34 %
    # The purchase alone adds to every circle's part what the circle would have lost.
    gained = sum(ten.wager(c).expected - ten.wager(c.removesuffix("-extra-roll")).expected for c in CIRCLE_PARTS)
    assert purchase.expected == gained - 1


def test_house_advantage_is_positive_except_the_extra_roll_judged_apart(ten, six):
    for wager in six.wagers:
        assert wager.house_edge > 0, wager.code
    apart = {"extra-roll", *CIRCLE_PARTS}
    for wager in ten.wagers:
        if wager.code not in apart:
            assert wager.house_edge > 0, wager.code
    # The truth, not hidden: bought for a player on every circle, the Extra Roll returns more than its price, and
    # circles three to seven are worth more with it than the circle alone.
    assert ten.wager("extra-roll").house_edge == Fraction(-230128478231, 117546246144)  # −195.78 %
    assert [ten.wager(c).house_edge < 0 for c in CIRCLE_PARTS] == [True, True, True, True, True, False]
    # Yet every position a player can take with an Extra Roll favours the house.
    parts = {n: ten.wager(f"like-kind-{n}-extra-roll").expected for n in range(3, 9)}
    parts[2] = ten.wager("like-kind-2").expected
    for size in range(1, 128):
        picked = [n for i, n in enumerate(range(2, 9)) if size >> i & 1]
        assert sum(parts[n] for n in picked) - 1 < 0, picked
    for words in (ten.readings[-1], ten.wager("extra-roll").note):
        assert "every circle and an Extra Roll (8 units) gives the house 9.34%" in words
        assert "from 8.93% (circles 3, 4, 5, 6, 7, 8) to 56.11% (circle 2)" in words


@pytest.mark.parametrize("slug", ["high-roll-dice", "high-roll-dice-six"])
def test_the_simulator_agrees_with_every_exact_house_edge(slug):
    game = core.GAMES[slug]
    exact = game.run()
    assert game.simulate is not None
    tallies = game.simulate({}, ROUNDS, SEED)
    assert set(tallies) == {w.code for w in exact.wagers}
    for wager in exact.wagers:
        tally = tallies[wager.code]
        assert tally.n == ROUNDS
        # The exact standard error: a Millionaire Row win is too rare for the sample's own.
        error = exact_sd(wager) / math.sqrt(ROUNDS)
        assert abs(tally.mean - float(wager.expected)) < 4 * error, (wager.code, tally.mean, float(wager.expected))


@pytest.mark.parametrize("slug", ["high-roll-dice", "high-roll-dice-six"])
def test_the_analysis_takes_well_under_a_second(slug):
    started = time.perf_counter()
    core.GAMES[slug].run()
    assert time.perf_counter() - started < 1.0
