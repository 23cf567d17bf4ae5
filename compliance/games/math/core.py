"""The engine's shared vocabulary: outcomes of a wager, its figures, a game's analysis, options and the simulator's
tallies. Exact: every probability and payout is a :class:`fractions.Fraction`; percentages are rounded only when
printed.

A wager's *outcomes* partition its probability space: each is a label, the net result per unit wagered (30 to 1
is ``30``, a loss ``-1``, a push ``0``, a loss of half the wager ``-1/2``) and its exact probability; they sum to
exactly 1. From them: the probability of winning (net > 0), the true odds against winning, the payout odds of
each winning tier, and the house advantage = −(expected net per unit wagered).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from typing import Any

__all__ = [
    "GAMES",
    "MAX_ODDS_TERM",
    "Analysis",
    "GameMath",
    "OptionError",
    "OptionSpec",
    "Outcome",
    "Tally",
    "WagerFigures",
    "fraction_text",
    "odds_terms_refusal",
    "odds_text",
    "outcomes_from",
    "percent",
    "read_odds",
    "register",
]


class OptionError(ValueError):
    """An option the regulation does not allow, in words that name the option and what is allowed."""


def fraction_text(value: Fraction) -> str:
    return str(Fraction(value))


def odds_text(ratio: Fraction) -> str:
    """A ratio as odds, always "to", never "for" (§ 539.6(a)): 35 → "35 to 1", 3/2 → "3 to 2"."""
    ratio = Fraction(ratio)
    return f"{ratio.numerator} to {ratio.denominator}"


MAX_ODDS_TERM = 1_000_000_000  # either side of odds a person types: past any paytable (a $1,000,000 payout is 10⁶)


def odds_terms_refusal(a: int, b: int, what: str) -> str:
    """Why typed odds "a to b" are out of bounds ("" when they are not)."""
    if a > MAX_ODDS_TERM or b > MAX_ODDS_TERM:
        return f"{what}: each side of the odds is at most {MAX_ODDS_TERM:,}; check the figure typed."
    return ""


_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+)"
_ODDS = re.compile(rf"\s*{_NUMBER}\s+to\s+{_NUMBER}\s*", re.IGNORECASE)
_FOR = re.compile(rf"\s*{_NUMBER}\s+for\s+{_NUMBER}\s*", re.IGNORECASE)


def read_odds(text: str, what: str, *, example: str = "8 to 1") -> tuple[int, int]:
    """The two whole numbers of odds typed "a to b" (thousands may be grouped with commas), each at most
    :data:`MAX_ODDS_TERM`; odds stated with "for" (§ 539.6(a)) and anything else are refused in words naming
    ``what``. The caller judges the figures (a minimum, b > 0)."""
    found = _ODDS.fullmatch(text)
    if found:
        a, b = (int(g.replace(",", "")) for g in found.groups())
        too_big = odds_terms_refusal(a, b, what)
        if too_big:
            raise OptionError(too_big)
        return a, b
    stated_for = _FOR.fullmatch(text)
    if stated_for:
        a, b = (int(g.replace(",", "")) for g in stated_for.groups())
        same = f" ({odds_text(Fraction(a - b, b))} is the same payout)" if 0 < b < a else ""
        raise OptionError(f"{what}: odds are stated with 'to', never 'for' (§ 539.6(a)); {text.strip()!r} is "
                          f"refused{same}.")
    raise OptionError(f"{what}: payout odds are written 'a to b' with whole numbers, e.g. '{example}', not {text!r}.")


def percent(value: Fraction, places: int = 4) -> Decimal:
    """``value`` × 100, rounded half up to ``places`` decimals (exact until here, whatever its size)."""
    whole_digits = len(str(abs(value.numerator) // value.denominator))
    with localcontext() as context:
        context.prec = whole_digits + places + 10
        exact = Decimal(value.numerator) * 100 / Decimal(value.denominator)
        return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class Outcome:
    label: str
    net: Fraction  # per unit wagered: 30 to 1 pays +30; a loss is -1; a push 0
    probability: Fraction


@dataclass(frozen=True)
class WagerFigures:
    """One wager's exact figures."""

    code: str  # stable slug within the game, e.g. "small", "any-triple"
    name: str  # as the layout or the regulation names it
    clause: str  # where its payout is set, e.g. "539.6(b)"
    outcomes: tuple[Outcome, ...]
    note: str = ""  # a reading that applies to this wager only

    @property
    def total(self) -> Fraction:
        return sum((o.probability for o in self.outcomes), Fraction(0))

    @property
    def tiers(self) -> tuple[Outcome, ...]:
        """The winning outcomes, highest payout first."""
        return tuple(sorted((o for o in self.outcomes if o.net > 0), key=lambda o: -o.net))

    @property
    def probability(self) -> Fraction:
        """Of winning (any tier)."""
        return sum((o.probability for o in self.tiers), Fraction(0))

    @property
    def push(self) -> Fraction:
        return sum((o.probability for o in self.outcomes if o.net == 0), Fraction(0))

    @property
    def expected(self) -> Fraction:
        return sum((o.net * o.probability for o in self.outcomes), Fraction(0))

    @property
    def house_edge(self) -> Fraction:
        return -self.expected

    @property
    def true_odds(self) -> str:
        """Against winning: (1 − p) to p; "—" for a wager that never wins or always does."""
        p = self.probability
        return odds_text((1 - p) / p) if 0 < p < 1 else "—"

    @property
    def payout_odds(self) -> str:
        tiers = self.tiers
        if len(tiers) == 1:
            return odds_text(tiers[0].net)
        return "; ".join(f"{odds_text(t.net)} ({t.label})" for t in tiers)

    def as_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "wager": self.name,
            "code": self.code,
            "clause": self.clause,
            "payout_odds": self.payout_odds,
            "probability": fraction_text(self.probability),
            "true_odds": self.true_odds,
            "house_edge": fraction_text(self.house_edge),
            "house_edge_percent": float(percent(self.house_edge)),
        }
        if self.push:
            row["push_probability"] = fraction_text(self.push)
        if len(self.tiers) > 1:
            row["tiers"] = [
                {"tier": t.label, "payout_odds": odds_text(t.net), "probability": fraction_text(t.probability),
                 "true_odds": odds_text((1 - t.probability) / t.probability)}
                for t in self.tiers
            ]
        if self.note:
            row["note"] = self.note
        return row


@dataclass(frozen=True)
class OptionSpec:
    """An option of a game's Rules Submission that changes the figures."""

    name: str  # as typed: --option name=value
    label: str
    clause: str
    default: str
    choices: tuple[str, ...] = ()  # empty: free text the game parses (e.g. odds "150 to 1")
    help: str = ""


@dataclass(frozen=True)
class Analysis:
    game: str  # slug
    title: str
    options: tuple[tuple[str, str], ...]  # (name, value) as applied, defaults included
    readings: tuple[str, ...]
    wagers: tuple[WagerFigures, ...]

    def wager(self, code: str) -> WagerFigures:
        return next(w for w in self.wagers if w.code == code)

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "title": self.title,
            "options": dict(self.options),
            "readings": list(self.readings),
            "wagers": [w.as_json() for w in self.wagers],
        }


@dataclass
class Tally:
    """The simulator's running sums of one wager's net result per unit wagered."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, net: float) -> None:
        self.n += 1
        self.total += net
        self.squares += net * net

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    @property
    def stderr(self) -> float:
        if self.n < 2:
            return math.inf
        variance = (self.squares - self.n * self.mean**2) / (self.n - 1)
        return math.sqrt(max(variance, 0.0) / self.n)


@dataclass(frozen=True)
class GameMath:
    """A game the engine computes: its options, its exact analysis and its seeded simulator."""

    slug: str
    title: str
    chapter: str  # e.g. "ch. 539"
    citations: tuple[str, ...]
    options: tuple[OptionSpec, ...]
    analyse: Callable[[Mapping[str, str]], Analysis]  # options as typed (defaults filled in by the game)
    simulate: Callable[[Mapping[str, str], int, int], dict[str, Tally]] | None = None  # (options, rounds, seed)
    readings: tuple[str, ...] = field(default_factory=tuple)

    def defaults(self) -> dict[str, str]:
        return {o.name: o.default for o in self.options}

    def run(self, options: Mapping[str, str] | None = None) -> Analysis:
        chosen = dict(options or {})
        unknown = sorted(set(chosen) - {o.name for o in self.options})
        if unknown:
            known = ", ".join(o.name for o in self.options) or "none"
            raise OptionError(f"{self.title} has no option {', '.join(unknown)}; its options: {known}.")
        for spec in self.options:
            value = chosen.get(spec.name, spec.default)
            if spec.choices and value not in spec.choices:
                raise OptionError(f"{spec.label} (§ {spec.clause}) is one of {', '.join(spec.choices)}, not {value!r}.")
        return self.analyse(self.defaults() | chosen)


GAMES: dict[str, GameMath] = {}


def register(game: GameMath) -> GameMath:
    GAMES[game.slug] = game
    return game


def outcomes_from(counts: Iterable[tuple[str, Fraction, int]], total: int) -> tuple[Outcome, ...]:
    """Outcomes from counted cases: (label, net, count of equally likely cases) over ``total`` cases."""
    merged: dict[tuple[str, Fraction], int] = {}
    for label, net, count in counts:
        merged[(label, net)] = merged.get((label, net), 0) + count
    return tuple(Outcome(label, net, Fraction(count, total)) for (label, net), count in merged.items() if count)
