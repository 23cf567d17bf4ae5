"""The abridged gaming guide of a game (§ 521.9(b)), generated from the game catalogue, the exact figures of the
game math engine and the choices of a Rules Submission version. The same rules always give the same guide, so a
guide's *material hash* (``selectors.material_hash``) tells whether the rules in force still match an approved
sample (§ 521.9(d)).

Payout odds are stated with "to", never "for" (§ 539.6(a)); the guide never uses the word "for" at all, so no
reader can take a payout so.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from compliance.games.math.core import WagerFigures
from compliance.submissions import catalogue

__all__ = ["guide_body", "option_words", "payout_lines"]

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
        return f"${catalogue.money_text(Decimal(value))}" if value else "None established"
    if option.kind == "choice" and option.name == "paytable":
        return f"Paytable {value}"
    return value


def payout_lines(wagers: tuple[WagerFigures, ...] | list[WagerFigures]) -> list[str]:
    """One line per wager, and per tier of a wager paying by tier: "Bonus Wager — Five aces: 800 to 1"."""
    lines = []
    for wager in wagers:
        tiers = wager.tiers
        if len(tiers) == 1:
            lines.append(f"{wager.name}: {wager.payout_odds}")
        else:
            lines += [f"{wager.name}, {tier.label}: {tier.net.numerator} to {tier.net.denominator}" for tier in tiers]
    return lines


def _sections(code: str, values: Mapping[str, str]) -> list[dict[str, Any]]:
    rules = catalogue.game_rules(code)
    assert rules is not None
    sections = [{"heading": "How the game is played", "lines": PLAY.get(code, [])}]
    figures = catalogue.analysis(code, values)
    wagers = list(figures.wagers) if figures else []
    if code == "asia-poker" and values.get("bonus_wager") != catalogue.YES:
        wagers = [w for w in wagers if w.code != "bonus"]
    if code == "high-roll-dice":
        wagers = [w for w in wagers if "extra-roll" not in w.code or w.code == "extra-roll"]
        wagers = [w for w in wagers if w.code != "like-kind-every-circle-extra-roll"]
    lines = (["Asia Poker Wager: 1 to 1"] if code == "asia-poker" else []) + payout_lines(wagers)
    sections.append({"heading": "Wagers and payout odds", "lines": lines})
    if code == "high-roll-dice" and values.get("six_dice") == catalogue.YES:
        six = catalogue.analysis(code, values, six_dice=True)
        sections.append({"heading": "Six-dice variation (at the tables marked so)",
                         "lines": payout_lines(list(six.wagers) if six else [])})
    chosen = [f"{o.label}: {option_words(o, values.get(o.name, o.default))} (§ {o.clause})"
              for o in rules.options if not (o.when and values.get(o.when) != catalogue.YES)]
    if rules.fixed:
        chosen.append(rules.fixed)
    sections.append({"heading": "Rules chosen by this casino", "lines": chosen})
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


def guide_body(code: str, title: str, values: Mapping[str, str]) -> dict[str, Any]:
    """The guide as stored and printed; a function of the game and its rules only."""
    return {"title": f"{title}: gaming guide", "game": code, "sections": _sections(code, values)}
