"""Props & Hops (58 Pa. Code ch. 668a): the Six Eight Shake of § 668a.3(e), (i), exactly.

The wager wins when all six two-dice combinations of 6 and 8 — 1-5, 2-4, 3-3 (the 6s) and 2-6, 3-5, 4-4 (the 8s),
as unordered pairs — have been rolled before a 7. Its probability is a Markov chain over the set of combinations
already rolled: a 7 ends it (lost), a combination not yet rolled moves it on, and every other roll (any other total,
or a combination already rolled) leaves it where it was and is skipped.

The payout odds of Props & Hops are in § 668a.4, which is not among the texts: the payout is an option, and without
it only the probability and the true odds are known. The other wagers of § 668a.4 are not computed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from functools import cache

from compliance.games.math.core import (
    Analysis,
    GameMath,
    OptionError,
    OptionSpec,
    Outcome,
    Tally,
    WagerFigures,
    odds_text,
    read_odds,
    register,
)

__all__ = ["COMBINATIONS", "GAME", "SEVEN", "parse_payout", "win_probability"]

# § 668a.3(e): the combinations a red lammer button marks, as unordered pairs; their chance in 36 two-dice rolls.
COMBINATIONS: dict[tuple[int, int], int] = {(1, 5): 2, (2, 4): 2, (3, 3): 1, (2, 6): 2, (3, 5): 2, (4, 4): 1}
SEVEN = 6  # 1-6, 2-5, 3-4 in either order: 6 of the 36 rolls

MISSING = (
    "The payout odds are in § 668a.4, which is not among the texts; the house advantage is computed at the payout "
    "odds given as the option “Six Eight Shake payout odds” (a to b). Until then the win is shown at the true odds "
    "(house advantage 0), which is no payout of the regulation."
)

READINGS = (
    "Two dice make 36 equally likely ordered rolls; the six combinations are unordered pairs, so 1-5, 2-4, 2-6 and "
    "3-5 each come up in 2 rolls of 36 and 3-3 and 4-4 in 1, and a 7 in 6.",
    "The Six Eight Shake wins when all six combinations have been rolled, in any order, before a 7 (§ 668a.3(i)); "
    "a 7 first loses it — the text says only that the wager is paid if all six come before a 7, and the shooter's "
    "turn ends on a 7 (§ 668a.3(k)).",
    "Rolls of any other total, and a combination rolled again after its lammer was moved, change nothing and are "
    "skipped. So, once some combinations are rolled, the next roll that counts is a 7 or one of the combinations "
    "not yet rolled, each in proportion to its number of rolls (a 7: 6 of 36); the chance of winning is the sum, "
    "over each combination not yet rolled, of the chance that it comes next times the chance of winning once it "
    "is rolled too — computed in exact fractions.",
    "A 'no roll' (§ 668a.3(g)–(h)) is shaken again and settles nothing: not counted.",
    "The payout odds are set in § 668a.4, which is not among the texts: the option “Six Eight Shake payout odds” "
    "(a to b, never 'for') gives them. Without it the house advantage is not known; the wager's win is then shown at "
    "the true odds (a house advantage of 0 that is not a finding) and its name and note say so.",
    "The other Props & Hops wagers and their odds are in § 668a.4 too: none is computed here.",
)

def parse_payout(text: str) -> Fraction | None:
    """The Six Eight Shake's payout odds typed "a to b" (a > 0, b > 0); "" for not known. Others refused in words."""
    if not text.strip():
        return None
    a, b = read_odds(text, "Six Eight Shake payout", example="150 to 1")
    if a > 0 and b > 0:
        return Fraction(a, b)
    raise OptionError(f"Six Eight Shake payout: the odds 'a to b' are both above 0, not {text.strip()!r}.")


@cache
def _from(rolled: frozenset[tuple[int, int]]) -> Fraction:
    """The chance of rolling every combination not in ``rolled`` before a 7 (the Markov chain, absorbing on 7)."""
    waiting = [c for c in COMBINATIONS if c not in rolled]
    if not waiting:
        return Fraction(1)
    live = sum(COMBINATIONS[c] for c in waiting) + SEVEN  # the rolls that change anything
    return sum((Fraction(COMBINATIONS[c], live) * _from(rolled | {c}) for c in waiting), Fraction(0))


def win_probability() -> Fraction:
    return _from(frozenset())


def analyse(options: Mapping[str, str]) -> Analysis:
    value = options.get("payout", "")
    payout = parse_payout(value)
    p = win_probability()
    true_odds = (1 - p) / p
    if payout is None:
        # No payout to compute with: the win at the true odds, and the name itself says the figure is no finding.
        win = Outcome("all six before a 7, at the true odds (the § 668a.4 payout is not known)", true_odds, p)
        name, note = "Six Eight Shake (payout not known: § 668a.4; shown at the true odds)", MISSING
    else:
        win = Outcome("all six combinations of 6 and 8 before a 7", payout, p)
        name, note = "Six Eight Shake", f"At the payout given ({odds_text(payout)}); § 668a.4 is not among the texts."
    wager = WagerFigures(
        "six-eight-shake", name, "668a.3(e), (i); 668a.4", (win, Outcome("a 7 first", Fraction(-1), 1 - p)), note,
    )
    return Analysis("props-and-hops", "Props & Hops", (("payout", value),), READINGS, (wager,))


def simulate(options: Mapping[str, str], rounds: int, seed: int) -> dict[str, Tally]:
    """Settles ``rounds`` Six Eight Shake wagers, each by rolling two dice until a 7 or all six combinations."""
    payout = parse_payout(options.get("payout", ""))
    if payout is None:
        p = win_probability()
        payout = (1 - p) / p
    win = float(payout)
    rng = random.Random(seed)  # noqa: S311  (a seeded cross-check of the exact figures, not a game)
    tally = Tally()
    for _ in range(rounds):
        lammers = set(COMBINATIONS)  # § 668a.3(e): a red lammer on each combination
        while lammers:
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            if a + b == 7:
                break
            lammers.discard((min(a, b), max(a, b)))  # § 668a.3(i): its lammer moves to the wager
        tally.add(-1.0 if lammers else win)
    return {"six-eight-shake": tally}


GAME = register(
    GameMath(
        slug="props-and-hops",
        title="Props & Hops",
        chapter="ch. 668a",
        citations=("668a.3(e)", "668a.3(i)", "668a.4"),
        options=(
            OptionSpec(
                name="payout",
                label="Six Eight Shake payout odds",
                clause="668a.4",
                default="",
                help="'a to b' as § 668a.4 sets them (not among the texts); empty: not known.",
            ),
        ),
        analyse=analyse,
        simulate=simulate,
        readings=READINGS,
    )
)
