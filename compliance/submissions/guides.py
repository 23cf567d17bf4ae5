"""The abridged gaming guide of a game (§ 521.9(b)), generated from the game catalogue, the exact figures of the
game math engine and the choices of a Rules Submission version. A guide's *material hash*
(``selectors.material_hash``, of the game's choices) tells whether the rules in force are still the ones its
approved sample states (§ 521.9(d)).

Payout odds are stated with "to", never "for" (§ 539.6(a)); the lines the system writes never use the word "for"
at all, and the facility's own words (how the dealer's hands are set) may not state odds with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

from compliance.games.math.core import WagerFigures
from compliance.submissions import catalogue, requirements

__all__ = ["guide_body", "high_roll_dice_lines", "odds_words", "option_words", "payout_lines"]

PLAY = {
    "asia-poker": [
        "Asia Poker is played with 53 cards: a standard deck and one joker (§ 575.3(a)).",
        "Each player and the dealer receive seven cards and set them into a four-card high hand, a two-card medium "
        "hand and a one-card low hand; the high hand must outrank the medium hand, and the medium hand the low "
        "hand (§ 575.11(b)).",
        "Each player's hands are compared with the dealer's; a winning Asia Poker Wager is paid at 1 to 1 "
        "(§ 575.12(a)).",
    ],
    "high-roll-dice": [
        "Before the roll, players place Pip Street and Like Kind Boulevard wagers, all of equal value, and may "
        "place Millionaire Row wagers on the first roll (§ 675a.2).",
        "The dealer shakes the dice in the shaker; the face shown by the most dice decides the Like Kind "
        "wagers, and the ranking of the dice decides the Pip Street wagers (§ 675a.4).",
    ],
    "sic-bo": [
        "Sic Bo is played with three dice shaken in the Sic Bo shaker (§ 539.2).",
        "Wagers are placed on the numbers, totals and combinations the three dice will show (§ 539.3); the "
        "winning combinations light up on the layout once the dealer enters the dice (§ 539.1(b)).",
    ],
    "three-dice-football": [
        "Three dice decide the plays of a football game on the layout: a drive, its downs and its score "
        "(§ 577.3).",
        "Full game wagers and single play wagers are settled at the odds of § 577.8.",
    ],
}

_WORDS = {catalogue.YES: "Yes", catalogue.NO: "No"}


def option_words(option: catalogue.RuleOption, value: str) -> str:
    if option.kind == "flag":
        return _WORDS.get(value, value)
    if option.kind == "money":
        if not value:
            return "None established"
        try:
            amount = Decimal(value)
        except (ArithmeticError, ValueError):
            return value  # as typed, on a form being corrected
        return f"${catalogue.money_text(amount)}" if amount.is_finite() and abs(amount) <= catalogue.MAX_MONEY \
            else value
    if option.kind == "choice" and option.name == "paytable":
        return f"Paytable {value}"
    return value


def odds_words(ratio: Fraction) -> str:
    """Odds as a sign prints them: "5,000 to 1", "3 to 5" — "to", never "for" (§ 539.6(a))."""
    return f"{ratio.numerator:,} to {ratio.denominator:,}"


def payout_lines(wagers: tuple[WagerFigures, ...] | list[WagerFigures]) -> list[str]:
    """One line per wager ("Big Bet: 1 to 1"), or per tier of a wager whose tiers pay differently."""
    lines = []
    for wager in wagers:
        tiers = wager.tiers
        if len({t.net for t in tiers}) <= 1:
            lines.append(f"{wager.name}: {odds_words(tiers[0].net)}" if tiers else f"{wager.name}: —")
        else:
            lines += [f"{wager.name}, {tier.label}: {odds_words(tier.net)}" for tier in tiers]
    return lines


_FACES = {1: "One/ace", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six"}
_COUNT = {1: "No matches", 2: "Two-of-a-kind", 3: "Three-of-a-kind", 4: "Four-of-a-kind", 5: "Five-of-a-kind",
          6: "Six-of-a-kind", 7: "Seven-of-a-kind", 8: "Eight-of-a-kind", 9: "Nine-of-a-kind", 10: "Ten-of-a-kind"}


def high_roll_dice_lines(six_dice: bool, millionaire_row_max: str = "1.00") -> list[str]:
    """High Roll Dice's paytable as § 675a.5 (or, six dice, § 675a.6(j)–(k)) sets it out."""
    from compliance.games.math.high_roll_dice import SIX_DICE, TEN_DICE

    variant = SIX_DICE if six_dice else TEN_DICE
    lines = [f"Pip Street, {_FACES[face]} occurs the most: {odds_words(odds)}"
             for face, odds in sorted(variant.pip_street.items(), key=lambda item: (item[0] == 1, item[0]))]
    lines += [f"Like Kind Boulevard, {_COUNT[n]}: {odds_words(odds)}"
              for n, odds in sorted(variant.like_kind.items(), key=lambda item: (item[0] == 1, -item[0]))]
    lines += [f"Like Kind Boulevard on the Extra Roll, {_COUNT[n]}: {odds_words(odds)}"
              for n, odds in sorted(variant.extra_roll.items(), key=lambda item: -item[0])]
    most = f"${catalogue.money_text(Decimal(millionaire_row_max or '1.00'))}"
    lines += [f"Millionaire Row (first roll; at most {most} a circle), {_COUNT[n]}: ${odds.numerator:,}"
              for n, odds in sorted(variant.millionaire_row.items(), key=lambda item: -item[0])]  # § 675a.5(c): sums
    return lines


def _sections(code: str, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    rules = catalogue.game_rules(code)
    assert rules is not None
    sections = [{"heading": "How the game is played", "lines": PLAY.get(code, [])}]
    if code == "high-roll-dice":
        sections.append({"heading": "Wagers and payout odds",
                         "lines": high_roll_dice_lines(False, values.get("millionaire_row_max", "1.00"))})
        if values.get("six_dice") == catalogue.YES:
            sections.append({"heading": "Six-dice variation (at the tables marked so)",
                             "lines": high_roll_dice_lines(True)})
    else:
        figures = catalogue.analysis(code, values)
        wagers = [w for w in (figures.wagers if figures else ())
                  if not (w.code == "bonus" and values.get("bonus_wager") != catalogue.YES)]
        lines = (["Asia Poker Wager: 1 to 1"] if code == "asia-poker" else []) + payout_lines(wagers)
        sections.append({"heading": "Wagers and payout odds", "lines": lines})
    chosen = [f"{o.label}: {option_words(o, values.get(o.name, o.default))} (§ {o.clause})"
              for o in rules.options if not (o.when and values.get(o.when) != catalogue.YES)]
    if rules.fixed:
        chosen.append(rules.fixed)
    sections.append({"heading": "Rules chosen by this casino", "lines": chosen})
    wagering = requirements.requirement_lines(values)
    if wagering:
        sections.append({"heading": f"Additional wagering requirements (§ {requirements.CLAUSE})",
                         "lines": wagering})
    limits = ["The minimum and maximum wagers are posted at each table (§ 521.7(b)).",
              "A wager a dealer accepts above the table maximum or below the table minimum is paid or lost in its "
              "entirety (§ 521.7(c))."]
    if code == "asia-poker" and values.get("payout_limit"):
        limits.append(f"The most paid to a player on a single hand is "
                      f"${catalogue.money_text(Decimal(values['payout_limit']))} (§ 575.12(c)).")
    sections.append({"heading": "Limits", "lines": limits})
    sections.append({"heading": "The complete rules", "lines": [
        "This guide is a summary. The complete rules of every game are kept at the security podium and may be "
        "read on request (§ 521.9(a))."]})
    return sections


def guide_body(code: str, title: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The guide as stored and printed; a function of the game and its rules only."""
    return {"title": f"{title}: gaming guide", "game": code, "sections": _sections(code, values)}
