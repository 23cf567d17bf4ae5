"""High Roll Dice (58 Pa. Code ch. 675a), with ten dice and in the six-dice variation of § 675a.6, exactly.

A roll of n dice is enumerated as its count vector (how many dice show each face: 3,003 vectors for ten dice, 462
for six), weighted by the multinomial coefficient over 6ⁿ ordered rolls; the Extra Roll's rethrown dice by the
binomial law. Every figure is an exact fraction; no roll order is enumerated.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from math import comb, factorial

from compliance.games.math.core import (
    Analysis,
    GameMath,
    Tally,
    WagerFigures,
    outcomes_from,
    percent,
    register,
)

__all__ = ["GAME", "GAME_SIX", "SIX_DICE", "TEN_DICE", "most_matched"]

# § 675a.2(d): the ace ranks highest, then 6, 5, 4, 3, and the 2 lowest.
RANK = (1, 6, 5, 4, 3, 2)
FACE = {1: "One/ace", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six"}
CODE = {1: "ace", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6"}
KIND = {1: "no matches", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
        10: "ten"}


@dataclass(frozen=True)
class Variant:
    slug: str
    title: str
    dice: int
    pip_street: Mapping[int, Fraction]  # face → odds (§ 675a.5(a) / § 675a.6(j))
    like_kind: Mapping[int, Fraction]  # most-matched count → odds on the first roll (§ 675a.5(b) / § 675a.6(k))
    extra_roll: Mapping[int, Fraction]  # final count → odds on the Extra Roll (§ 675a.5(d)); empty: no Extra Roll
    millionaire_row: Mapping[int, Fraction]  # count → payout of a $1 wager (§ 675a.5(c)); empty: none
    pip_clause: str
    like_kind_clause: str
    readings: tuple[str, ...]


COMMON_READINGS = (
    "Pip Street: the wager on a face wins when that face occurs the greatest number of times on the first roll; a "
    "tie for the most is won by the tied face ranking highest, the ace above 6, 5, 4, 3 and 2 (§ 675a.2(d), "
    "(e)(1)(ii)). Each face is its own wager at its own odds; it is settled on the first roll only (§ 675a.4(f)(1)). "
    "The outcomes show a face's wins alone and in a tie it wins on rank, and its losses to a tie it loses on rank.",
    "Like Kind Boulevard: the circle n wins when the most-matched count of the first roll is exactly n (§ 675a.2(e)(2)"
    "; § 675a.6(d)); ties between faces do not change the count.",
    "A void or invalid roll (§ 675a.4(b)–(c)) is thrown again and settles nothing: not counted.",
)

TEN_READINGS = (
    "Ten dice: every first roll is one of 6¹⁰ ordered rolls, enumerated as 3,003 count vectors with multinomial "
    "weights. At least two of ten dice always match.",
    *COMMON_READINGS,
    "Nine or ten matching dice on the first roll lose every Like Kind Boulevard circle (two through eight): they are "
    "the Millionaire Row results, and the count wagered on is the exact count.",
    "Extra Roll (§ 675a.2(e)(3), § 675a.4(g)–(h)): the dice of the face the first roll's Pip Street result names "
    "(the most matches, ties to the higher rank) stay in its box; the other dice are thrown once more, and the final "
    "count is the kept dice plus the rethrown dice showing that face.",
    "With an Extra Roll, a circle equal to the first roll's count is paid at § 675a.5(b) and not again (§ 675a.4(h))"
    "; a circle below it loses on the first roll (§ 675a.4(f)(2)(ii)); a circle above it wins at § 675a.5(d) if the "
    "final count equals it and otherwise loses. Two of a kind has no § 675a.5(d) odds and cannot be reached by the "
    "Extra Roll; a final count of nine or ten pays no circle.",
    "The Extra Roll costs one unit, as much as one Like Kind wager (§ 675a.1(b)(2)(iv), § 675a.2(e)(3): one "
    "extra-roll sensor per position), is collected (§ 675a.4(a)) and serves all of the player's circles, so what it "
    "is worth depends on which circles the player holds — a choice the text leaves to the player. Computed: (1) each "
    "circle three through eight's part once an Extra Roll is bought, its price apart (not a wager on its own); (2) "
    "the purchase alone for a player on every circle, its price against the § 675a.5(d) wins it adds (the most it "
    "can add: it never turns a circle's win into a loss); (3) the whole position of a player on every circle with an "
    "Extra Roll, per unit of the eight units staked, and the range of the house advantage over all 127 choices of "
    "circles with an Extra Roll (the last reading, and the Extra Roll's note).",
    "Millionaire Row (§ 675a.2(e)(4)): the nine circle wins on exactly nine matching dice, the ten circle on all ten "
    "(§ 675a.4(f)(3)), on the first roll. § 675a.5(c) pays dollar sums and the wager is at most $1: computed for a "
    "$1 wager winning $1,000,000 or $50,000 and kept (1,000,000 to 1, 50,000 to 1). Whether a wager under $1 wins "
    "the whole sum or a share of it the text does not say.",
    "The payout odds are fixed (§ 675a.5: 'shall pay out ... at the following odds'); the game has no paytable "
    "option. The six-dice variation (§ 675a.6) is the game high-roll-dice-six.",
)

SIX_READINGS = (
    "Six dice (§ 675a.6): every roll is one of 6⁶ = 46,656 ordered rolls, enumerated as 462 count vectors with "
    "multinomial weights. Only Pip Street and Like Kind Boulevard are offered: the variation has no Extra Roll and "
    "no Millionaire Row (§ 675a.6(d): 'instead of the optional wagers in § 675a.2(e)(2)—(4)').",
    *COMMON_READINGS,
    "No matches (§ 675a.6(d)(2)) is six different faces. Each face then occurs once, so by the ranking the Pip "
    "Street wager on the ace wins (the text makes no exception for a roll with no match).",
    "The payout odds are fixed (§ 675a.6(j)–(k)); the game has no paytable option.",
)

F = Fraction
TEN_DICE = Variant(
    slug="high-roll-dice",
    title="High Roll Dice",
    dice=10,
    pip_street={2: F(6), 3: F(6), 4: F(5), 5: F(4), 6: F(4), 1: F(3)},
    like_kind={8: F(5000), 7: F(400), 6: F(30), 5: F(4), 4: F(1), 3: F(3, 5), 2: F(12)},
    extra_roll={8: F(50), 7: F(10), 6: F(4), 5: F(2), 4: F(1), 3: F(6)},
    millionaire_row={10: F(1_000_000), 9: F(50_000)},
    pip_clause="675a.5(a)",
    like_kind_clause="675a.5(b)",
    readings=TEN_READINGS,
)
SIX_DICE = Variant(
    slug="high-roll-dice-six",
    title="High Roll Dice (six-dice variation)",
    dice=6,
    pip_street={2: F(8), 3: F(6), 4: F(5), 5: F(4), 6: F(3), 1: F(2)},
    like_kind={6: F(6000), 5: F(200), 4: F(15), 3: F(2), 2: F(1, 2), 1: F(60)},
    extra_roll={},
    millionaire_row={},
    pip_clause="675a.6(j)",
    like_kind_clause="675a.6(k)",
    readings=SIX_READINGS,
)
LOSE = Fraction(-1)


def count_vectors(dice: int, faces: int = 6) -> Iterator[tuple[int, ...]]:
    """Every way ``dice`` dice fall as counts of faces 1..``faces``."""
    if faces == 1:
        yield (dice,)
        return
    for first in range(dice + 1):
        for rest in count_vectors(dice - first, faces - 1):
            yield (first, *rest)


def orders(counts: tuple[int, ...]) -> int:
    """How many ordered rolls show these counts (the multinomial coefficient)."""
    ways = factorial(sum(counts))
    for c in counts:
        ways //= factorial(c)
    return ways


def most_matched(counts: tuple[int, ...]) -> tuple[int, int, bool]:
    """(face, count, tied): the face occurring most often, a tie to the higher rank (§ 675a.2(d)), and whether
    another face ties with it. ``counts[f - 1]`` is how many dice show f."""
    most = max(counts)
    face = next(f for f in RANK if counts[f - 1] == most)
    return face, most, counts.count(most) > 1


# --- first roll: Pip Street and the most-matched count ----------------------------------------------------------

def _pip_street(variant: Variant, rolls: list[tuple[tuple[int, ...], int]], total: int) -> list[WagerFigures]:
    wagers = []
    for face in variant.pip_street:  # in the order of the paytable
        odds, cases = variant.pip_street[face], []
        for counts, ways in rolls:
            winner, most, tied = most_matched(counts)
            if winner == face:
                label = "tied for the most, wins on rank" if tied else "occurs the most"
                cases.append((label, odds, ways))
            elif counts[face - 1] == most:
                cases.append(("tied for the most, loses on rank", LOSE, ways))
            else:
                cases.append(("another face occurs more", LOSE, ways))
        wagers.append(WagerFigures(
            f"pip-street-{CODE[face]}", f"Pip Street: {FACE[face]}", variant.pip_clause, outcomes_from(cases, total),
        ))
    return wagers


def _like_kind(variant: Variant, by_count: Mapping[int, int], total: int) -> list[WagerFigures]:
    wagers = []
    for n, odds in variant.like_kind.items():
        cases = [(f"{KIND[n]}-of-a-kind" if n > 1 else "no matches", odds, by_count.get(n, 0)),
                 ("lose", LOSE, total - by_count.get(n, 0))]
        name = f"Like Kind Boulevard: {KIND[n]}-of-a-kind" if n > 1 else "Like Kind Boulevard: no matches"
        code = f"like-kind-{n}" if n > 1 else "like-kind-no-match"
        note = "Without an Extra Roll (§ 675a.4(f)(2)(i))." if variant.extra_roll else ""
        wagers.append(WagerFigures(code, name, variant.like_kind_clause, outcomes_from(cases, total), note))
    return wagers


def _millionaire_row(variant: Variant, by_count: Mapping[int, int], total: int) -> list[WagerFigures]:
    wagers = []
    for n, payout in sorted(variant.millionaire_row.items()):
        cases = [(f"all {KIND[n]} dice match" if n == variant.dice else f"{KIND[n]} dice match", payout,
                  by_count.get(n, 0)), ("lose", LOSE, total - by_count.get(n, 0))]
        wagers.append(WagerFigures(
            f"millionaire-row-{n}", f"Millionaire Row: {KIND[n]}-of-a-kind", "675a.5(c)",
            outcomes_from(cases, total), note=f"A $1 wager (the most allowed, § 675a.2(e)(4)) paying ${int(payout):,}.",
        ))
    return wagers


# --- the Extra Roll: the first roll's count m, then k of the rethrown dice showing the kept face ----------------

def extra_roll_counts(dice: int, by_count: Mapping[int, int]) -> dict[tuple[int, int], int]:
    """(m, k) → ordered cases out of 6^(2·dice): m most-matched dice kept, k of the dice − m rethrown match them."""
    joint: dict[tuple[int, int], int] = {}
    for m, ways in by_count.items():
        rethrown = dice - m
        for k in range(rethrown + 1):
            # k of the rethrown dice show the kept face (1 way in 6 each), the rest another (5 ways); 6^m pads the
            # rethrow's 6^rethrown cases to the common 6^dice.
            joint[(m, k)] = ways * comb(rethrown, k) * 5 ** (rethrown - k) * 6**m
    return joint


def _circle_result(variant: Variant, circle: int, m: int, k: int) -> tuple[str, Fraction]:
    """One Like Kind circle when an Extra Roll was bought: first roll m matching dice, k more on the Extra Roll."""
    if m == circle:  # paid at § 675a.5(b) on the first roll, and not again (§ 675a.4(h))
        return f"{KIND[circle]}-of-a-kind on the first roll", variant.like_kind[circle]
    if m < circle == m + k and circle in variant.extra_roll:  # § 675a.4(h) at § 675a.5(d)
        return f"{KIND[circle]}-of-a-kind after the Extra Roll", variant.extra_roll[circle]
    return "lose", LOSE  # below m: collected on the first roll (§ 675a.4(f)(2)(ii)); above m: not reached


def _circles_with_extra_roll(variant: Variant, joint: Mapping[tuple[int, int], int], total: int) -> list[WagerFigures]:
    wagers = []
    for n in variant.extra_roll:
        cases = [(*_circle_result(variant, n, m, k), ways) for (m, k), ways in joint.items()]
        wagers.append(WagerFigures(
            f"like-kind-{n}-extra-roll", f"Like Kind Boulevard: {KIND[n]}-of-a-kind, its part when an Extra Roll is "
            "bought (the Extra Roll's price apart)", "675a.5(b), (d)", outcomes_from(cases, total),
            note="Not a wager on its own: the circle's results once the player bought an Extra Roll, whose price "
                 "(one unit, shared by all the player's circles) is not in it: a player's position is the parts of "
                 "the circles held, less the price.",
        ))
    return wagers


def _extra_roll_purchase(variant: Variant, joint: Mapping[tuple[int, int], int], total: int) -> WagerFigures:
    cases = []
    for (m, k), ways in joint.items():
        final = m + k
        if k and final in variant.extra_roll:
            # The circle `final` would have lost (−1) and now wins its § 675a.5(d) odds (+odds + 1), less the price.
            cases.append((f"the Extra Roll makes {KIND[final]}-of-a-kind", variant.extra_roll[final], ways))
        else:
            cases.append(("the Extra Roll wins no circle", LOSE, ways))
    return WagerFigures(
        "extra-roll", "Extra Roll (the purchase alone, for a player on every circle)", "675a.5(d)",
        outcomes_from(cases, total),
        note="The Extra Roll's price against what it adds for a player with a Like Kind Boulevard wager on every "
             "circle: the circle of the final count, above the first roll's, is paid at § 675a.5(d) instead of "
             "losing. The most it can add; with fewer circles it adds less. The circles' own losses are not in it.",
    )


def _every_circle_with_extra_roll(variant: Variant, joint: Mapping[tuple[int, int], int], total: int) -> WagerFigures:
    """The whole position a player most often takes with an Extra Roll: one unit on every Like Kind circle and one
    for the Extra Roll, its result per unit staked — the figure to read beside the circles' parts above."""
    circles = sorted(variant.like_kind)
    staked = len(circles) + 1
    cases = []
    for (m, k), ways in joint.items():
        net = sum((_circle_result(variant, c, m, k)[1] for c in circles), Fraction(0)) - 1  # the price is lost
        cases.append((f"{KIND.get(m + k, m + k)}-of-a-kind after the Extra Roll"
                      if k else f"{KIND.get(m, m)}-of-a-kind, the Extra Roll adds none",
                      net / staked, ways))
    return WagerFigures(
        "like-kind-every-circle-extra-roll",
        f"Like Kind Boulevard on every circle with an Extra Roll ({staked} units, per unit staked)", "675a.5(b), (d)",
        outcomes_from(cases, total),
        note="A position, not one wager: one unit on each Like Kind circle and one for the Extra Roll, the result "
             "per unit staked. Every choice of circles with an Extra Roll favours the house (see the readings).",
    )


def positions(variant: Variant, joint: Mapping[tuple[int, int], int], total: int) -> str:
    """In words: the house advantage per unit staked of every choice of Like Kind circles with an Extra Roll."""
    circles = sorted(variant.like_kind)
    # Each circle's expected result once an Extra Roll is bought (its price apart).
    parts = {c: sum((_circle_result(variant, c, m, k)[1] * ways for (m, k), ways in joint.items()), Fraction(0))
             / total for c in circles}
    edges = []
    for chosen in range(1, 2 ** len(circles)):
        picked = [c for i, c in enumerate(circles) if chosen >> i & 1]
        # One unit on each circle picked and one for the Extra Roll (§ 675a.1(b)(2)(iv)).
        edges.append((-(sum((parts[c] for c in picked), Fraction(0)) - 1) / (len(picked) + 1), picked))
    every = next(edge for edge, picked in edges if len(picked) == len(circles))
    (low, low_at), (high, high_at) = min(edges), max(edges)
    return (
        f"A player with a Like Kind Boulevard wager on every circle and an Extra Roll ({len(circles) + 1} units) "
        f"gives the house {percent(every, 2)}% of the units staked ({every}); over all {len(edges)} choices of "
        f"circles with an Extra Roll the house advantage runs from {percent(low, 2)}% (circles "
        f"{', '.join(map(str, low_at))}) to {percent(high, 2)}% (circle{'s' if len(high_at) > 1 else ''} "
        f"{', '.join(map(str, high_at))}): every position with an Extra Roll favours the house."
    )


def _extra_roll(variant: Variant, by_count: Mapping[int, int], total: int) -> tuple[list[WagerFigures], str]:
    joint = extra_roll_counts(variant.dice, by_count)
    whole = positions(variant, joint, total * total)
    purchase = _extra_roll_purchase(variant, joint, total * total)
    purchase = replace(purchase, note=f"{purchase.note} {whole}")
    every = _every_circle_with_extra_roll(variant, joint, total * total)
    return [*_circles_with_extra_roll(variant, joint, total * total), purchase, every], whole


def analyse_variant(variant: Variant) -> Analysis:
    total = 6**variant.dice
    rolls = [(counts, orders(counts)) for counts in count_vectors(variant.dice)]
    by_count: dict[int, int] = {}
    for counts, ways in rolls:
        by_count[max(counts)] = by_count.get(max(counts), 0) + ways
    wagers = _pip_street(variant, rolls, total) + _like_kind(variant, by_count, total)
    readings = variant.readings
    if variant.extra_roll:
        extra, whole = _extra_roll(variant, by_count, total)
        wagers += extra
        readings = (*readings, whole)
    wagers += _millionaire_row(variant, by_count, total)
    return Analysis(variant.slug, variant.title, (), readings, tuple(wagers))


# --- the simulator: the dice thrown as the dealer throws them, every wager settled on the same throws -----------

def _settle_round(variant: Variant, rng: random.Random, tallies: Mapping[str, Tally]) -> None:
    dice = rng.choices(range(1, 7), k=variant.dice)
    counts = tuple(dice.count(f) for f in range(1, 7))
    face, most = max((counts[f - 1], -RANK.index(f), f) for f in RANK)[2], max(counts)
    for f, odds in variant.pip_street.items():
        tallies[f"pip-street-{CODE[f]}"].add(float(odds) if f == face else -1.0)
    for n, odds in variant.like_kind.items():
        tallies[f"like-kind-{n}" if n > 1 else "like-kind-no-match"].add(float(odds) if most == n else -1.0)
    for n, payout in variant.millionaire_row.items():
        tallies[f"millionaire-row-{n}"].add(float(payout) if most == n else -1.0)
    if variant.extra_roll:
        # § 675a.4(g): the dice not showing the kept face go back in the shaker and are thrown once more.
        rethrown = [d for d in dice if d != face]
        _settle_extra_roll(variant, most, most + rng.choices(range(1, 7), k=len(rethrown)).count(face), tallies)


def _settle_extra_roll(variant: Variant, most: int, final: int, tallies: Mapping[str, Tally]) -> None:
    circle = {}
    for n, odds in variant.like_kind.items():
        if most == n:
            circle[n] = float(odds)  # paid on the first roll; not again on the Extra Roll
        elif most < n == final and n in variant.extra_roll:
            circle[n] = float(variant.extra_roll[n])
        else:
            circle[n] = -1.0
    for n in variant.extra_roll:
        tallies[f"like-kind-{n}-extra-roll"].add(circle[n])
    gained = final > most and final in variant.extra_roll
    tallies["extra-roll"].add(float(variant.extra_roll[final]) if gained else -1.0)
    # The whole position: a unit on every Like Kind circle and one for the Extra Roll, per unit staked.
    tallies["like-kind-every-circle-extra-roll"].add((sum(circle.values()) - 1.0) / (len(circle) + 1))


def simulate_variant(variant: Variant, rounds: int, seed: int) -> dict[str, Tally]:
    rng = random.Random(seed)  # noqa: S311  (a seeded cross-check of the exact figures, not a game)
    tallies = {w.code: Tally() for w in analyse_variant(variant).wagers}
    for _ in range(rounds):
        _settle_round(variant, rng, tallies)
    return tallies


def _game(variant: Variant, citations: tuple[str, ...]) -> GameMath:
    return register(GameMath(
        slug=variant.slug,
        title=variant.title,
        chapter="ch. 675a",
        citations=citations,
        options=(),
        analyse=lambda options: analyse_variant(variant),
        simulate=lambda options, rounds, seed: simulate_variant(variant, rounds, seed),
        readings=variant.readings,
    ))


GAME = _game(TEN_DICE, ("675a.2", "675a.4", "675a.5"))
GAME_SIX = _game(SIX_DICE, ("675a.2(d)", "675a.6"))
