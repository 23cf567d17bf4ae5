"""Sic Bo (58 Pa. Code ch. 539): every wager of § 539.3 at the facility's payout odds (§ 539.6), exactly.

Three dice make 6³ = 216 equally likely ordered rolls; each wager is settled on every one of them. A wager on a
number (or a pair of numbers) the player picks is settled for every pick, so its figures are those of any pick.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from fractions import Fraction
from itertools import combinations, product

from compliance.games.math.core import (
    Analysis,
    GameMath,
    OptionError,
    OptionSpec,
    Tally,
    WagerFigures,
    odds_text,
    outcomes_from,
    read_odds,
    register,
)

__all__ = ["GAME", "parse_odds"]

Roll = tuple[int, int, int]
Pick = tuple[int, ...]  # the number (or two numbers) the player selected; () for a wager with no pick

TOTAL_MINIMUMS = {4: 50, 5: 18, 6: 14, 7: 12, 8: 8, 9: 6, 10: 6, 11: 6, 12: 6, 13: 8, 14: 12, 15: 14, 16: 18, 17: 50}

# (option / wager code, name as § 539.3 and § 539.6(b) call it, § 539.6(b) minimum odds)
MINIMUMS: tuple[tuple[str, str, Fraction], ...] = (
    ("three-of-a-kind", "Three of a Kind", Fraction(150)),
    ("two-of-a-kind", "Two of a Kind", Fraction(8)),
    ("any-three-of-a-kind", "Any Three of a Kind", Fraction(24)),
    *((f"total-{t}", f"Total Value Bet of {t}", Fraction(m)) for t, m in TOTAL_MINIMUMS.items()),
    ("two-dice-combination", "Two Dice Combination", Fraction(5)),
    ("small", "Small Bet", Fraction(1)),
    ("big", "Big Bet", Fraction(1)),
)
NAMES = {code: name for code, name, _ in MINIMUMS}

# § 539.6(c): One of a Kind "shall be paid at" these odds — fixed, not a minimum the Rules Submission may raise.
ONE_OF_A_KIND = {1: Fraction(1), 2: Fraction(2), 3: Fraction(3)}

READINGS = (
    "Each roll of the three dice is one of 6³ = 216 equally likely ordered rolls; every wager is settled on all "
    "216 (§ 539.4(c)), in exact fractions.",
    "Three of a Kind, Two of a Kind, One of a Kind and the Two Dice Combination are on a number (or two different "
    "numbers) the player selects; they are computed over every selection, and every selection has the same figures.",
    "Two of a Kind (§ 539.3(2)): 'the same number is showing on two of the three dice' is read as at least two, so a "
    "three of a kind of the selected number also wins — the text, unlike the Small and Big Bets (§ 539.3(6)–(7)), "
    "does not make a three of a kind lose it. That triple is shown as its own outcome.",
    "Total Value Bet (§ 539.3(4)): each total 4 to 17 is its own wager at its own odds (§ 539.6(b)); a three of a "
    "kind adding up to the total wins it (only the Small and Big Bets lose on a three of a kind). Totals 3 and 18 "
    "have no wager in § 539.6(b).",
    "Small and Big Bets (§ 539.3(6)–(7)) lose on any three of a kind, including 2-2-2 and 3-3-3 (Small) and 4-4-4 "
    "and 5-5-5 (Big), whose totals are in their range.",
    "Two Dice Combination (§ 539.3(5)): wins when both selected numbers show, whatever the third die; it is paid "
    "once at the § 539.6(b) 'Any Two Dice Combination' odds.",
    "One of a Kind (§ 539.3(8)) is paid 1, 2 or 3 to 1 as one, two or three dice show the number: § 539.6(c) says it "
    "'shall be paid at' those odds (where § 539.6(b) says 'no less than'), so they are fixed, not an option.",
    "The other payout odds are the Rules Submission's (§ 539.6(b)): an option per wager, no lower than the § 539.6(b) "
    "table, stated 'a to b' and never with 'for' (§ 539.6(a)); without an option a wager is at the table's odds.",
    "The § 539.6(b) table's lines 'Total Value of Bet 13', '14' and '15' are read as the Total Value Bets of 13, 14 "
    "and 15.",
    "A 'no roll' (§ 539.7(a)) or a void round (§ 539.7(c)) returns the wagers and is no roll of the dice: not counted.",
)

def parse_odds(text: str, what: str) -> Fraction:
    """Odds typed "a to b" (a, b whole numbers, b > 0) as a/b; "for" odds and anything else are refused in words."""
    a, b = read_odds(text, what)
    if b > 0:
        return Fraction(a, b)
    raise OptionError(f"{what}: payout odds are written 'a to b' with b above 0, e.g. '8 to 1', not {text!r}.")


def paytable(options: Mapping[str, str]) -> dict[str, Fraction]:
    """The Rules Submission's odds for every § 539.6(b) wager, each checked against its minimum."""
    odds: dict[str, Fraction] = {}
    for code, name, minimum in MINIMUMS:
        value = options.get(code, odds_text(minimum))
        chosen = parse_odds(value, name)
        if chosen < minimum:
            raise OptionError(
                f"{name} pays at least {odds_text(minimum)} (§ 539.6(b)); {value.strip()} is lower."
            )
        odds[code] = chosen
    return odds


# --- the rules of § 539.3 on one roll: (outcome label, net per unit) for each wager, given the player's pick -----

def _three_of_a_kind(roll: Roll, pick: Pick, odds: Fraction) -> tuple[str, Fraction]:
    # § 539.3(1): all three dice show the selected number.
    if roll.count(pick[0]) == 3:
        return "all three dice show the number", odds
    return "lose", Fraction(-1)


def _two_of_a_kind(roll: Roll, pick: Pick, odds: Fraction) -> tuple[str, Fraction]:
    # § 539.3(2), read as at least two dice (READINGS): the selected number's triple wins too.
    shown = roll.count(pick[0])
    if shown == 2:
        return "two dice show the number", odds
    if shown == 3:
        return "three dice show the number, read as two of the three", odds
    return "lose", Fraction(-1)


def _any_three(roll: Roll, pick: Pick, odds: Fraction) -> tuple[str, Fraction]:
    # § 539.3(3): any number on all three dice.
    if roll[0] == roll[1] == roll[2]:
        return "any three of a kind", odds
    return "lose", Fraction(-1)


def _total(total: int) -> Callable[[Roll, Pick, Fraction], tuple[str, Fraction]]:
    def settle(roll: Roll, pick: Pick, odds: Fraction) -> tuple[str, Fraction]:
        # § 539.3(4): the total of the three dice; a three of a kind with that total wins too.
        if sum(roll) == total:
            return f"total {total}", odds
        return "lose", Fraction(-1)

    return settle


def _two_dice_combination(roll: Roll, pick: Pick, odds: Fraction) -> tuple[str, Fraction]:
    # § 539.3(5): both selected (different) numbers show.
    if pick[0] in roll and pick[1] in roll:
        return "both numbers show", odds
    return "lose", Fraction(-1)


def _small_big(low: int, high: int) -> Callable[[Roll, Pick, Fraction], tuple[str, Fraction]]:
    def settle(roll: Roll, pick: Pick, odds: Fraction) -> tuple[str, Fraction]:
        # § 539.3(6)–(7): a total in range wins unless the dice are a three of a kind, which loses.
        if roll[0] == roll[1] == roll[2]:
            return "lose: a three of a kind", Fraction(-1)
        if low <= sum(roll) <= high:
            return f"total {low} to {high}, no three of a kind", odds
        return f"lose: total outside {low} to {high}", Fraction(-1)

    return settle


def _one_of_a_kind(roll: Roll, pick: Pick, odds: Fraction) -> tuple[str, Fraction]:
    # § 539.3(8) at § 539.6(c)'s fixed odds by the number of dice showing the number.
    shown = roll.count(pick[0])
    if shown:
        return f"{shown} {'die shows' if shown == 1 else 'dice show'} the number", ONE_OF_A_KIND[shown]
    return "lose", Fraction(-1)


SINGLE: tuple[Pick, ...] = tuple((n,) for n in range(1, 7))
PAIR: tuple[Pick, ...] = tuple(combinations(range(1, 7), 2))
NONE: tuple[Pick, ...] = ((),)

# (code, name, clause, picks the player may make, the rule of one roll)
WAGERS: tuple[tuple[str, str, str, tuple[Pick, ...], Callable[[Roll, Pick, Fraction], tuple[str, Fraction]]], ...] = (
    ("three-of-a-kind", "Three of a Kind", "539.6(b)", SINGLE, _three_of_a_kind),
    ("two-of-a-kind", "Two of a Kind", "539.6(b)", SINGLE, _two_of_a_kind),
    ("any-three-of-a-kind", "Any Three of a Kind", "539.6(b)", NONE, _any_three),
    *((f"total-{t}", f"Total Value Bet of {t}", "539.6(b)", NONE, _total(t)) for t in TOTAL_MINIMUMS),
    ("two-dice-combination", "Two Dice Combination", "539.6(b)", PAIR, _two_dice_combination),
    ("small", "Small Bet", "539.6(b)", NONE, _small_big(4, 10)),
    ("big", "Big Bet", "539.6(b)", NONE, _small_big(11, 17)),
    ("one-of-a-kind", "One of a Kind", "539.6(c)", SINGLE, _one_of_a_kind),
)

NOTES = {
    "two-of-a-kind": "A three of the selected number also wins (read as at least two dice).",
    "small": "Loses on any three of a kind (§ 539.3(6)).",
    "big": "Loses on any three of a kind (§ 539.3(7)).",
    "one-of-a-kind": "Odds fixed by § 539.6(c) ('shall be paid at'); not an option.",
}

ROLLS: tuple[Roll, ...] = tuple((a, b, c) for a, b, c in product(range(1, 7), repeat=3))


def _odds_of(code: str, odds: Mapping[str, Fraction]) -> Fraction:
    return odds.get(code, Fraction(0))  # One of a Kind's odds come from ONE_OF_A_KIND inside its rule


def analyse(options: Mapping[str, str]) -> Analysis:
    odds = paytable(options)
    wagers = []
    for code, name, clause, picks, rule in WAGERS:
        counts = [(*rule(roll, pick, _odds_of(code, odds)), 1) for pick in picks for roll in ROLLS]
        outcomes = outcomes_from(counts, len(picks) * len(ROLLS))
        # Winning tiers first, then the losses, for a stable reading order.
        ordered = tuple(sorted(outcomes, key=lambda o: (-o.net, o.label)))
        wagers.append(WagerFigures(code, name, clause, ordered, NOTES.get(code, "")))
    applied = tuple((code, options.get(code, odds_text(minimum))) for code, _, minimum in MINIMUMS)
    return Analysis("sic-bo", "Sic Bo", applied, READINGS, tuple(wagers))


def simulate(options: Mapping[str, str], rounds: int, seed: int) -> dict[str, Tally]:
    """Throws three dice ``rounds`` times and settles every wager on each throw; the player's pick turns over
    every number (pair) in turn. A rule's result for a (roll, pick) is remembered, not recomputed."""
    odds = paytable(options)
    rng = random.Random(seed)  # noqa: S311  (a seeded cross-check of the exact figures, not a game)
    tallies = {code: Tally() for code, *_ in WAGERS}
    settled: dict[tuple[str, Roll, Pick], float] = {}
    for i in range(rounds):
        roll: Roll = (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
        for code, _name, _clause, picks, rule in WAGERS:
            pick = picks[i % len(picks)]
            key = (code, roll, pick)
            if key not in settled:
                settled[key] = float(rule(roll, pick, _odds_of(code, odds))[1])
            tallies[code].add(settled[key])
    return tallies


OPTIONS = tuple(
    OptionSpec(
        name=code,
        label=f"{name} payout odds",
        clause="539.6(b)",
        default=odds_text(minimum),
        help=f"'a to b', no less than {odds_text(minimum)} (§ 539.6(b)); never 'for' (§ 539.6(a)).",
    )
    for code, name, minimum in MINIMUMS
)

GAME = register(
    GameMath(
        slug="sic-bo",
        title="Sic Bo",
        chapter="ch. 539",
        citations=("539.3", "539.6"),
        options=OPTIONS,
        analyse=analyse,
        simulate=simulate,
        readings=READINGS,
    )
)
