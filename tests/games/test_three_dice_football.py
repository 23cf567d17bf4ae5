"""Three Dice Football (ch. 577): the exact figures against hand counts, the regulation's paytable and a
seeded play-by-play simulation. Pure: no database."""

from __future__ import annotations

import ast
import time
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from compliance.games.math import core
from compliance.games.math import three_dice_football as tdf

DICE = list(product(range(1, 7), repeat=3))  # (green, green, red)
GAMES_SIMULATED = 150_000
SEED = 577


@pytest.fixture(scope="module")
def analysis() -> core.Analysis:
    return core.GAMES["three-dice-football"].run()


@pytest.fixture(scope="module")
def endings() -> dict[tuple[str, int], Fraction]:
    return tdf.game_endings()


def test_the_game_is_registered_with_no_options():
    game = core.GAMES["three-dice-football"]
    assert game.chapter == "ch. 577"
    assert game.options == ()
    assert game.simulate is tdf.simulate
    with pytest.raises(core.OptionError):
        game.run({"paytable": "B"})


def test_the_engine_imports_nothing_from_django():
    tree = ast.parse(Path(tdf.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not [name for name in imported if name.startswith("django")]
    assert {name for name in imported if name.startswith("compliance")} == {"compliance.games.math"}


def test_every_wager_outcome_sums_to_exactly_one(analysis):
    assert len(analysis.wagers) == 19
    for wager in analysis.wagers:
        assert wager.total == 1, wager.code
        assert all(isinstance(o.probability, Fraction) and o.probability >= 0 for o in wager.outcomes), wager.code


def test_the_ways_a_game_ends_sum_to_exactly_one_within_six_plays(endings):
    assert sum(endings.values()) == 1
    assert {plays for _, plays in endings} == {1, 2, 3, 4, 5, 6}
    assert {how for how, _ in endings} == set(tdf.ENDINGS)
    # the first series can only fail on its third play; the goal series no earlier than the fourth
    assert {plays for how, plays in endings if how == tdf.DOWNS_FIRST} == {3}
    assert min(plays for how, plays in endings if how == tdf.DOWNS_GOAL) == 4


def test_every_wager_has_a_positive_house_advantage(analysis):
    # True at the regulation paytable under the readings in tdf.READINGS (checked, not assumed).
    for wager in analysis.wagers:
        assert wager.house_edge > 0, f"{wager.code}: house advantage {wager.house_edge}"


def test_the_paytable_is_the_regulations(analysis):
    odds = {w.code: w.payout_odds for w in analysis.wagers}
    assert odds["touchdown"] == "1 to 1"
    assert odds["defense"] == "4 to 5"
    assert odds["game-changer"] == "5 to 1"
    assert [t.net for t in analysis.wager("extra-point").tiers] == [50, 10, 10, 1]
    assert [t.net for t in analysis.wager("quick-strike").tiers] == [8, 5, 3, 1]
    lengths = [analysis.wager(f"game-length-{n}").payout_odds for n in range(1, 7)]
    assert lengths == ["22 to 1", "22 to 1", "6 to 5", "5 to 1", "3 to 1", "6 to 1"]
    singles = {"trips-td": "30 to 1", "penalty": "9 to 1", "turnover": "60 to 1", "cover-three": "7 to 1",
               "no-gain": "5 to 1", "big-play": "4 to 1", "under-four": "1 to 1"}
    assert {code: odds[code] for code in singles} == singles
    assert [(t.label, t.net) for t in analysis.wager("over-four").tiers] == [("Trips TD", 7), ("5 yards or more", 1)]
    assert {w.clause for w in analysis.wagers} == {"577.8(a)", "577.8(b)"}


def test_single_play_figures_match_a_separate_count_of_the_216_throws(analysis):
    # Counted here straight from § 577.3(d), separately from the engine's settlement.
    def count(test) -> int:
        return sum(1 for g1, g2, r in DICE if test(g1, g2, r))

    trips = count(lambda g1, g2, r: g1 == g2 == r)
    turnover = count(lambda g1, g2, r: r == 6 and g1 + g2 in (2, 3))
    penalty = count(lambda g1, g2, r: g1 + g2 < r)  # penalties and turnovers
    level = count(lambda g1, g2, r: g1 + g2 == r)
    big = count(lambda g1, g2, r: g1 + g2 - r >= 7 or g1 == g2 == r)
    five_up = count(lambda g1, g2, r: g1 + g2 - r >= 5 and not g1 == g2 == r)
    three_down = count(lambda g1, g2, r: g1 + g2 - r <= 3 and not g1 == g2 == r)
    assert (trips, turnover, penalty, level, big, five_up, three_down) == (6, 3, 20, 15, 41, 79, 105)

    def won(code: str) -> Fraction:
        return analysis.wager(code).probability

    assert won("trips-td") == Fraction(6, 216)
    assert won("turnover") == Fraction(3, 216)
    assert won("penalty") == Fraction(20, 216)
    assert won("cover-three") == Fraction(6 + 20, 216)
    assert won("no-gain") == Fraction(15 + 20, 216)
    assert won("big-play") == Fraction(41, 216)
    assert won("over-four") == Fraction(79 + 6, 216)
    assert won("under-four") == Fraction(105, 216)
    # house advantages by hand: 1 − (payout + 1) × wins / 216
    assert analysis.wager("trips-td").house_edge == Fraction(216 - 31 * 6, 216)
    assert analysis.wager("turnover").house_edge == Fraction(216 - 61 * 3, 216)
    assert analysis.wager("over-four").house_edge == Fraction(216 - 2 * 79 - 8 * 6, 216)


def test_one_throw_moves_the_marker_as_the_rules_say():
    assert tdf.read_throw(1, 1, 1) == ("trips", 0)  # a Trips TD, not a 1-yard gain
    assert tdf.read_throw(6, 6, 6) == ("trips", 0)
    assert tdf.read_throw(1, 2, 6) == ("turnover", 0)
    assert tdf.read_throw(2, 2, 6) == ("penalty", -1)  # green 4 under a red 6: not a turnover
    assert tdf.read_throw(4, 6, 2) == ("gain", 8)  # § 577.6(c)(1)'s example
    assert tdf.read_throw(2, 3, 5) == ("gain", 0)
    effects = tdf.throw_effects()
    assert sum(effects.values()) == 1
    assert effects[("trips", 0)] == Fraction(6, 216)
    assert max(yards for kind, yards in effects if kind == "gain") == 11


def _brute_force_first_two_plays() -> Counter[tuple[str, int]]:
    """Every pair of throws from the 20, played out by hand: how many of the 216² end on play 1 or 2."""
    ends: Counter[tuple[str, int]] = Counter()
    for first in DICE:
        for second in DICE:
            marker = 20
            for play, (g1, g2, r) in enumerate((first, second), start=1):
                if g1 == g2 == r:
                    ends["trips", play] += 1
                    break
                if r == 6 and g1 + g2 <= 3:
                    ends["turnover", play] += 1
                    break
                marker -= g1 + g2 - r if g1 + g2 >= r else -1
                if marker <= 0:
                    ends["touchdown", play] += 1
                    break
    return ends


def test_the_first_two_plays_match_a_brute_force_over_every_pair_of_throws(endings):
    ends = _brute_force_first_two_plays()
    total = 216**2
    assert endings[(tdf.TRIPS_TD, 1)] == Fraction(ends["trips", 1], total) == Fraction(6, 216)
    assert endings[(tdf.TURNOVER, 1)] == Fraction(ends["turnover", 1], total) == Fraction(3, 216)
    assert (tdf.TOUCHDOWN, 1) not in endings  # 11 yards at most: only a Trips TD scores on play 1
    assert endings[(tdf.TRIPS_TD, 2)] == Fraction(ends["trips", 2], total)
    assert endings[(tdf.TURNOVER, 2)] == Fraction(ends["turnover", 2], total)
    assert endings[(tdf.TOUCHDOWN, 2)] == Fraction(ends["touchdown", 2], total)
    one_play = Fraction(9, 216)
    assert sum(p for (_, plays), p in endings.items() if plays == 1) == one_play
    assert core.GAMES["three-dice-football"].run().wager("game-length-1").house_edge == 1 - 23 * one_play


def test_full_game_wagers_follow_from_the_endings(analysis, endings):
    scored = sum(p for (how, _), p in endings.items() if how in tdf.SCORED)
    assert analysis.wager("touchdown").probability == scored
    assert analysis.wager("defense").probability == 1 - scored
    assert Fraction(4, 9) < scored < Fraction(1, 2)  # the only window where both sides favour the house
    assert analysis.wager("game-changer").probability == sum(
        p for (how, _), p in endings.items() if how in (tdf.TRIPS_TD, tdf.TURNOVER))
    assert analysis.wager("quick-strike").probability == sum(
        p for (how, plays), p in endings.items() if how in tdf.SCORED and plays <= 4)
    # extra point roll by hand: one 1 in 3 × 25, two 1s in 3 × 5, three 1s once, other triples 5, of 216
    tiers = {t.label: t.probability for t in analysis.wager("extra-point").tiers}
    assert tiers == {"score, then one 1": scored * Fraction(75, 216), "score, then two 1s": scored * Fraction(15, 216),
                     "score, then three 1s": scored * Fraction(1, 216),
                     "score, then any other triple": scored * Fraction(5, 216)}
    assert analysis.wager("extra-point").house_edge == 1 - scored * Fraction(2 * 75 + 11 * 15 + 51 + 11 * 5, 216)


def test_the_simulator_agrees_with_every_exact_house_edge(analysis):
    tallies = tdf.simulate({}, GAMES_SIMULATED, SEED)
    assert set(tallies) == {w.code for w in analysis.wagers}
    assert tallies["touchdown"].n == GAMES_SIMULATED
    assert tallies["trips-td"].n > 3 * GAMES_SIMULATED  # one single-play settlement per down
    for wager in analysis.wagers:
        tally = tallies[wager.code]
        gap = abs(-tally.mean - float(wager.house_edge))
        assert gap < 4 * tally.stderr, f"{wager.code}: simulated {-tally.mean:.5f}, exact {float(wager.house_edge):.5f}"


def test_the_simulator_is_reproducible():
    first, again = tdf.simulate({}, 500, 1), tdf.simulate({}, 500, 1)
    assert {c: (t.n, t.total) for c, t in first.items()} == {c: (t.n, t.total) for c, t in again.items()}


def test_the_readings_are_stated(analysis):
    assert analysis.readings == tdf.READINGS
    text = " ".join(analysis.readings)
    for reading in ("20 yard line", "reaches the goal line", "10 yard line or inside it", "back 1 yard",
                    "red 6 with a green total of 2 or 3", "Trips TD that ends the game at once", "§ 577.3(b)(3)"):
        assert reading in text, reading


def test_the_analysis_runs_in_under_a_second():
    started = time.perf_counter()
    tdf.analyse({})
    assert time.perf_counter() - started < 1.0
