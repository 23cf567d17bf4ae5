"""The choices a Rules Submission makes for each game (§ 521.2, § 521.8(b)), each with its clause, and how a
table's own settings must stay inside them.

Values are kept as the strings a person types or picks (``"yes"``/``"no"`` for a choice the regulation lets the
facility offer, ``"B"`` for a paytable, ``"150 to 1"`` for odds, ``"1.00"`` for dollars), so a submission's rules
are a plain ``{game code: {option: value}}`` that is signed, compared and printed as it was filed.

Readings (also in docs/submissions.md):

* An option the regulation lets the facility *offer* ("may, if specified in its Rules Submission": the Bonus
  Wager § 575.7(e), adjacent betting areas § 575.7(f), the six-dice High Roll Dice § 675a.6(a)) is a permission:
  a table may run without it, never with it unless the submission in force says "yes". Every other option is a
  rule of the game and a table runs exactly the submission's value.
* The Asia Poker payout limit (§ 575.12(c)) is optional ("may … establish"); when established it is at least
  $50,000 or the most one player could win in one round betting the minimum, whichever is greater. That most is
  read as: the table minimum on the Asia Poker Wager (1 to 1, § 575.12(a)) plus, where the Bonus Wager is offered,
  the table minimum on the Bonus Wager at its highest payout (5,000 to 1 in every paytable, § 575.12(b)); with two
  adjacent betting areas (§ 575.7(f)) both Asia Poker Wagers and the two highest Bonus payouts two hands of one deck
  can hold together (four 8s once, then five aces: 5,000 + 800 to 1).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

from compliance.games.math import asia_poker, registry
from compliance.games.math.core import Analysis, OptionError, WagerFigures, odds_text
from compliance.numbers import typed_dollars
from compliance.submissions import requirements

__all__ = [
    "ASIA_POKER_LIMIT_FLOOR",
    "GAMES",
    "Conflict",
    "GameRules",
    "RuleOption",
    "analysis",
    "asia_poker_payout_floor",
    "engine_slug",
    "game_rules",
    "money_text",
    "table_conflicts",
    "table_refusals",
]

YES, NO = "yes", "no"
_ODDS_FOR = re.compile(r"\d+\s+for\s+\d+", re.IGNORECASE)
ASIA_POKER_LIMIT_FLOOR = Decimal(50_000)
MAX_MONEY = Decimal("100000000")


@dataclass(frozen=True)
class RuleOption:
    name: str
    label: str
    clause: str  # a key of compliance/clause_rows.py's catalogue, printed with "§"
    kind: str  # "flag", "choice", "money", "odds" or "text"
    default: str
    choices: tuple[str, ...] = ()
    help: str = ""
    when: str = ""  # a flag that must be "yes" for this option to apply
    permission: bool = False  # a flag the facility may offer: a table may run it off, never on unless approved
    required: bool = True  # money: False means "none established" may be left empty
    maximum: Decimal | None = None
    minimum: Decimal | None = None


@dataclass(frozen=True)
class GameRules:
    code: str  # compliance.models.Game.code
    title: str
    chapter: str
    options: tuple[RuleOption, ...]
    fixed: str = ""  # words for a game whose paytable the regulation fixes

    def option(self, name: str) -> RuleOption | None:
        return next((o for o in self.options if o.name == name), None)

    def defaults(self) -> dict[str, str]:
        return {o.name: o.default for o in self.options}


def _sic_bo_options() -> tuple[RuleOption, ...]:
    from compliance.games.math import sic_bo

    return tuple(
        RuleOption(name=code, label=f"{name} payout odds", clause="539.6(b)", kind="odds",
                   default=f"{minimum.numerator} to {minimum.denominator}",
                   help=f"At least {minimum.numerator} to {minimum.denominator} (§ 539.6(b)); stated with 'to', "
                        f"never 'for' (§ 539.6(a)).")
        for code, name, minimum in sic_bo.MINIMUMS
    )


GAMES: tuple[GameRules, ...] = (
    GameRules("asia-poker", "Asia Poker", "575", (
        RuleOption("bonus_wager", "Offer the Bonus Wager", "575.7(e)", "flag", NO, (YES, NO), permission=True,
                   help="The optional wager that the player's seven cards form 9-high or better (§ 575.7(e))."),
        RuleOption("paytable", "Bonus Wager paytable", "575.12(b)", "choice", "A", ("A", "B", "C"),
                   when="bonus_wager", help="Paytable A, B or C of § 575.12(b)."),
        RuleOption("adjacent_areas", "Permit wagering on two adjacent betting areas", "575.7(f)", "flag", NO,
                   (YES, NO), permission=True,
                   help="Each area's cards are played separately; the larger wager's hand is set first (§ 575.7(f))."),
        RuleOption("dealer_hand_setting", "How the dealer's hands are set", "575.11(c)", "text", "",
                   help="The house way, in the words the dealer uses to tell a player who asks (§ 575.11(a)(1))."),
        RuleOption("ace_low_straight_flush", "Ace-2-3-4 of one suit is the lowest straight flush", "575.6(b)(3)",
                   "flag", NO, (YES, NO),
                   help="Without it, ace-2-3-4 is the highest straight flush (§ 575.6(b)(3))."),
        RuleOption("ace_low_straight", "Ace-2-3-4 is the lowest straight", "575.6(b)(6)", "flag", NO, (YES, NO),
                   help="Without it, ace-2-3-4 is the second highest straight (§ 575.6(b)(6))."),
        RuleOption("payout_limit", "Payout limit per hand ($)", "575.12(c)", "money", "", required=False,
                   minimum=ASIA_POKER_LIMIT_FLOOR, maximum=MAX_MONEY,
                   help="Optional. At least $50,000 or the most one player could win in a round at the table "
                        "minimum, whichever is greater (§ 575.12(c)); checked against every Asia Poker table's "
                        "minimum."),
    )),
    GameRules("high-roll-dice", "High Roll Dice", "675a", (
        RuleOption("six_dice", "Offer the six-dice variation", "675a.6(a)", "flag", NO, (YES, NO), permission=True,
                   help="Six dice instead of ten at the tables set to it (§ 675a.6); its own paytable "
                        "(§ 675a.6(j)–(k)) and no Millionaire Row."),
        RuleOption("millionaire_row_max", "Millionaire Row wager at most ($)", "675a.2(e)(4)", "money", "1.00",
                   minimum=Decimal("0.01"), maximum=Decimal("1.00"),
                   help="The most a player may place on a Millionaire Row circle: no more than $1 (§ 675a.2(e)(4))."),
    )),
    GameRules("sic-bo", "Sic Bo", "539", _sic_bo_options()),
    GameRules("three-dice-football", "Three Dice Football", "577", (),
              fixed="The payout odds are fixed by § 577.8; the Rules Submission has no choice to make."),
)
_BY_CODE = {g.code: g for g in GAMES}


def game_rules(code: str) -> GameRules | None:
    return _BY_CODE.get(code)


def money_text(value: Decimal) -> str:
    return f"{value:,.2f}"


def _money(text: str, option: RuleOption, title: str) -> str:
    raw = (text or "").strip().replace(",", "").lstrip("$").strip()
    if not raw:
        if option.required:
            raise OptionError(f"{title}: give the {option.label.lower()} (§ {option.clause}).")
        return ""
    value = typed_dollars(raw)
    if value is None or abs(value) > MAX_MONEY:
        raise OptionError(f"{title}: {option.label.lower()} is an amount in dollars such as 1.00, not {text!r}.")
    if value != value.quantize(Decimal("0.01")):
        raise OptionError(f"{title}: {option.label.lower()} is in dollars and cents, not {text!r}.")
    if option.maximum is not None and value > option.maximum:
        raise OptionError(f"{title}: {option.label.lower()} is at most ${money_text(option.maximum)} "
                          f"(§ {option.clause}); ${money_text(value)} is more.")
    if option.minimum is not None and value < option.minimum:
        raise OptionError(f"{title}: {option.label.lower()} is at least ${money_text(option.minimum)} "
                          f"(§ {option.clause}); ${money_text(value)} is less.")
    return f"{value:.2f}"


def _value(option: RuleOption, raw: str, title: str) -> str:
    text = (raw if raw is not None else option.default)
    text = str(text).strip()
    if option.kind in ("flag", "choice"):
        if text not in option.choices:
            raise OptionError(f"{title}: {option.label.lower()} (§ {option.clause}) is one of "
                              f"{', '.join(option.choices)}, not {text!r}.")
        return text
    if option.kind == "money":
        return _money(text, option, title)
    if option.kind == "text":
        if not text:
            raise OptionError(f"{title}: state {option.label.lower()} (§ {option.clause}).")
        if len(text) > 2000:
            raise OptionError(f"{title}: {option.label.lower()} is longer than 2,000 characters.")
        if _ODDS_FOR.search(text):
            raise OptionError(f"{title}: {option.label.lower()} is printed in the guide; odds there are stated with "
                              f"'to', never 'for' (§ 539.6(a)).")
        return " ".join(text.split())
    if option.kind == "odds":
        from compliance.games.math.sic_bo import parse_odds

        return odds_text(parse_odds(text, f"{title}: {option.label}"))  # "16 to 2" is filed as "8 to 1"
    return text


def clean_game(code: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """One game's options, checked against the regulation; ``OptionError`` names the first thing wrong. Its
    additional wagering requirements (§ 521.7(d), :mod:`compliance.submissions.requirements`) are kept under their
    key only when there are some."""
    rules = _BY_CODE[code]
    values = dict(values)
    wagering = requirements.clean_requirements(rules.title, values.pop(requirements.KEY, None))
    unknown = sorted(set(values) - {o.name for o in rules.options})
    if unknown:
        raise OptionError(f"{rules.title} has no option {', '.join(unknown)}.")
    cleaned: dict[str, Any] = {o.name: _value(o, values.get(o.name, o.default), rules.title) for o in rules.options}
    for option in rules.options:
        if option.when and cleaned.get(option.when) != YES:
            cleaned[option.name] = option.default  # not offered: the default, so versions compare cleanly
    analysis(code, cleaned)  # the engine refuses odds below a minimum or stated with "for"
    if wagering:
        cleaned[requirements.KEY] = wagering
    return cleaned


def engine_slug(code: str, values: Mapping[str, Any], *, six_dice: bool = False) -> str:
    return "high-roll-dice-six" if code == "high-roll-dice" and six_dice else code


def _engine_options(code: str, values: Mapping[str, Any]) -> dict[str, str]:
    if code == "sic-bo":
        return {k: v for k, v in values.items() if k != requirements.KEY}
    if code == "asia-poker":
        return {"paytable": values.get("paytable", "A")}
    return {}


@lru_cache(maxsize=256)
def _analysis(slug: str, options: tuple[tuple[str, str], ...]) -> Analysis:
    game = registry.game(slug)
    assert game is not None, slug
    return game.run(dict(options))


def analysis(code: str, values: Mapping[str, Any], *, six_dice: bool = False) -> Analysis | None:
    """The engine's exact figures for the game under these options (None for a game the engine lacks)."""
    slug = engine_slug(code, values, six_dice=six_dice)
    if registry.game(slug) is None:
        return None
    return _analysis(slug, tuple(sorted(_engine_options(code, values).items())))


def choice_figures(code: str, option: RuleOption, values: Mapping[str, str]) -> list[tuple[str, list[WagerFigures]]]:
    """What each choice of an option does to the house advantage: (choice, the wagers it changes)."""
    if code == "asia-poker" and option.name == "paytable":
        return [(c, [_bonus(c)]) for c in option.choices]
    if code == "high-roll-dice" and option.name == "six_dice":
        ten = analysis(code, values)
        six = analysis(code, values, six_dice=True)
        return [(NO, list(ten.wagers) if ten else []), (YES, list(six.wagers) if six else [])]
    return []


def _bonus(paytable: str) -> WagerFigures:
    found = analysis("asia-poker", {"paytable": paytable})
    assert found is not None
    return found.wager("bonus")


def asia_poker_payout_floor(values: Mapping[str, str], minimum_wager: Decimal) -> Decimal:
    """§ 575.12(c): the greater of $50,000 and the most one player could win in one round at the table minimum
    (the reading in this module's docstring)."""
    areas = 2 if values.get("adjacent_areas") == YES else 1
    most = Fraction(areas)  # the Asia Poker Wager at 1 to 1 on each area, § 575.12(a)
    if values.get("bonus_wager") == YES:
        # The Bonus on each area; two hands of one deck (§ 575.3(a)) cannot both hold the top hand (four 8s, there
        # being four), so two areas win at most the two highest tiers (5,000 to 1 and five aces' 800 to 1).
        # The paytable's own odds (the analysis's tiers are the same lines; counting its hands is not needed here).
        tiers = asia_poker.bonus_payouts(values.get("paytable", "A"))
        most += sum(tiers[:areas], Fraction(0))
    return max(ASIA_POKER_LIMIT_FLOOR, minimum_wager * Decimal(most.numerator) / Decimal(most.denominator))


@dataclass(frozen=True)
class Conflict:
    """Why a table's rules are not the approved version's: the words (citing the clause), the clause, and what it
    concerns — ``"settings"`` (an option the table runs) or ``"limits"`` (its wager limits against the rules)."""

    words: str
    clause: str
    kind: str = "settings"


def table_conflicts(code: str, approved: Mapping[str, Any] | None, settings: Mapping[str, str]) -> list[Conflict]:
    """The table's settings against the approved submission's rules for its game ([] when they agree)."""
    rules = _BY_CODE.get(code)
    if rules is None:
        return []
    if approved is None:
        on = [o.label.lower() for o in rules.options if o.permission and settings.get(o.name) == YES]
        return [Conflict(f"No approved Rules Submission is in force for {rules.title}: the table may not {label} "
                         f"(§ 521.8(b)).", "521.8(b)") for label in on]
    found = []
    for option in rules.options:
        if not option.permission or option.name not in settings:
            continue
        if settings[option.name] == YES and approved.get(option.name) != YES:
            found.append(Conflict(f"The approved Rules Submission does not {option.label.lower()} "
                                  f"(§ {option.clause}, § 521.8(b)).", "521.8(b)"))
    return found


def table_refusals(code: str, approved: Mapping[str, Any] | None, settings: Mapping[str, str]) -> list[str]:
    """Why a table's settings differ from the approved submission's rules for its game ([] when they do not)."""
    return [c.words for c in table_conflicts(code, approved, settings)]
