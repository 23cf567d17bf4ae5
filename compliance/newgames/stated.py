"""The figures of § 521.4(1)(ii) as the facility states them, for a game or a wager the exact engine does not model:
read exactly and checked with fractions. Nothing here imports Django.

For each wager the facility states its name; its payout odds "a to b" (read by the engine's own reader, so odds
stated with "for" are refused as everywhere else, § 539.6(a)); the probability of winning, the true odds against
winning and the house advantage, each exact (a fraction "p/q" of whole numbers, odds "a to b"); and its method of
computation in words. Percentages are never typed: they are computed from the fractions when shown.

The rule of the check:

* A **simple** wager either wins at its one payout a to b or loses the whole wager. Everything follows from its
  probability of winning p: the true odds against winning are (1 − p) to p and the house advantage is
  1 − p·(a + b)/b. A stated figure that is not exactly that is refused, in words giving the exact value.
* A wager that is **not simple** (several payouts, a push, a loss of part of the wager) must be stated so. Its
  figures are filed as stated: each must be well formed (0 < p < 1, true odds a to b with a, b ≥ 1, payouts
  a to b, 0 ≤ house advantage < 1) but their consistency is not checked, and the page and the PDF say so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from compliance.games.math.core import OptionError, odds_text, percent, read_odds

__all__ = [
    "MAX_FRACTION_DIGITS",
    "MAX_METHOD",
    "MAX_WAGERS",
    "MAX_WAGER_NAME",
    "StatedError",
    "StatedWager",
    "WagerText",
    "read_fraction",
    "read_wagers",
    "wager_text",
    "wagers_from_json",
]

MAX_WAGERS = 40  # wagers stated in one request: past any layout's
MAX_WAGER_NAME = 120
MAX_METHOD = 2_000  # characters of a method of computation
MAX_FRACTION_DIGITS = 30  # digits of a numerator or a denominator: the engine's longest has 16
MAX_PAYOUTS = 20  # payout odds of one wager that is not simple
NOT_CHECKED = "Not a simple wager: filed as stated, not checked"
CHECKED = "Simple wager: checked exactly"

_FRACTION = re.compile(r"([0-9]+)\s*/\s*([0-9]+)")
_DECIMAL = re.compile(r"[0-9]*\.[0-9]+")


class StatedError(ValueError):
    """The figures as stated cannot be filed; ``messages`` says each reason in words."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__(" ".join(messages))
        self.messages = messages


def _foreign_digits(text: str) -> bool:
    return any((ch.isdigit() or ch.isnumeric()) and not "0" <= ch <= "9" for ch in text)


def read_fraction(text: Any, what: str, *, example: str, zero: bool = False) -> Fraction:
    """An exact fraction typed "p/q" with whole numbers above 0 (``zero``: "0" is accepted too); anything else —
    a percentage, a decimal, a negative, a zero, a huge or a foreign-script number — refused in words naming
    ``what`` (a :class:`ValueError`)."""
    typed = " ".join(str(text or "").split())
    if not typed:
        raise ValueError(f"{what}: give it as an exact fraction, e.g. {example}.")
    if _foreign_digits(typed):
        raise ValueError(f"{what}: type the fraction with the digits 0–9, e.g. {example}.")
    if "%" in typed:
        raise ValueError(f"{what}: give the exact fraction, e.g. {example}, not a percentage; the percentage is "
                         f"computed from the fraction.")
    if typed.startswith(("-", "−", "–")):
        raise ValueError(f"{what}: {typed[:40]!r} is negative; give a fraction of whole numbers above 0, e.g. "
                         f"{example}.")
    if set(typed) == {"0"}:
        if zero:
            return Fraction(0)
        raise ValueError(f"{what}: {typed[:40]!r} has a zero; give a fraction of whole numbers above 0, e.g. "
                         f"{example}.")
    if _DECIMAL.fullmatch(typed):
        raise ValueError(f"{what}: give the exact fraction, e.g. {example}, not a decimal ({typed[:40]!r}).")
    found = _FRACTION.fullmatch(typed)
    if found is None:
        raise ValueError(f"{what}: write it as a fraction p/q of whole numbers, e.g. {example}, not {typed[:40]!r}.")
    numerator, denominator = (g.lstrip("0") or "0" for g in found.groups())
    if max(len(numerator), len(denominator)) > MAX_FRACTION_DIGITS:
        raise ValueError(f"{what}: a numerator or a denominator is at most {MAX_FRACTION_DIGITS} digits; check the "
                         f"fraction typed.")
    if numerator == "0" or denominator == "0":
        allowed = " (or 0 alone)" if zero else ""
        raise ValueError(f"{what}: {typed!r} has a zero; the numerator and the denominator are whole numbers above "
                         f"0{allowed}, e.g. {example}.")
    return Fraction(int(numerator), int(denominator))


def _odds(text: str, what: str, example: str) -> tuple[int, int]:
    """Odds "a to b" with a and b above 0, read by the engine's reader ("for" refused, § 539.6(a))."""
    typed = " ".join(text.split())
    if not typed:
        raise ValueError(f"{what}: state them “a to b”, e.g. {example}.")
    if _foreign_digits(typed):
        raise ValueError(f"{what}: type the odds with the digits 0–9, e.g. {example}.")
    try:
        a, b = read_odds(typed, what, example=example)
    except OptionError as error:  # its words speak of payout odds; true odds are written the same way
        raise ValueError(str(error).replace("payout odds are written", "odds are written")) from None
    if a == 0 or b == 0:
        raise ValueError(f"{what}: {a} to {b} has a zero; each side of the odds is a whole number above 0, e.g. "
                         f"{example}.")
    return a, b


@dataclass(frozen=True)
class WagerText:
    """One wager as the facility typed it (and as it is kept with the request)."""

    name: str = ""
    payout_odds: str = ""
    probability: str = ""
    true_odds: str = ""
    house_edge: str = ""
    simple: bool = True
    method: str = ""

    @property
    def blank(self) -> bool:
        return not any(str(v).strip() for v in (self.name, self.payout_odds, self.probability, self.true_odds,
                                                 self.house_edge, self.method)) and self.simple


@dataclass(frozen=True)
class StatedWager:
    """One wager's figures as the facility states them, read exactly."""

    name: str
    payouts: tuple[tuple[int, int], ...]
    probability: Fraction
    probability_text: str  # as stated ("2/76" stays "2/76")
    true_odds: tuple[int, int]
    house_edge: Fraction
    house_edge_text: str
    simple: bool
    method: str

    @property
    def payout_odds(self) -> str:
        return "; ".join(f"{a} to {b}" for a, b in self.payouts)

    @property
    def true_odds_text(self) -> str:
        return f"{self.true_odds[0]} to {self.true_odds[1]}"

    @property
    def house_edge_percent(self) -> str:
        """Computed from the fraction, never typed."""
        return f"{percent(self.house_edge)}%"

    @property
    def checked(self) -> str:
        return CHECKED if self.simple else NOT_CHECKED

    def filed_row(self) -> list[str]:
        """The wager as the filing prints it: every ratio and fraction in lowest terms ("70 to 2" is "35 to 1",
        "2/38" is "1/19"), the percentage computed from the fraction, and whether it was checked."""
        payouts = "; ".join(odds_text(Fraction(a, b)) for a, b in self.payouts)
        return [self.name, payouts, str(self.probability), odds_text(Fraction(*self.true_odds)), str(self.house_edge),
                self.house_edge_percent, self.checked]

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "payout_odds": self.payout_odds, "probability": self.probability_text,
                "true_odds": self.true_odds_text, "house_edge": self.house_edge_text, "simple": self.simple,
                "method": self.method}


def _text(value: Any, limit: int, what: str, missing: str) -> str:
    text = " ".join(str(value or "").split()) if limit <= MAX_WAGER_NAME else str(value or "").strip()
    if not text:
        raise ValueError(missing)
    if len(text) > limit:
        raise ValueError(f"{what} is {len(text):,} characters long; it is at most {limit:,}.")
    return text


def _payouts(text: str, label: str, simple: bool) -> tuple[tuple[int, int], ...]:
    parts = [p for p in (part.strip() for part in text.split(";")) if p] or [""]
    if simple and len(parts) > 1:
        raise ValueError(f"{label}: a simple wager has one payout; a wager with several payouts is not a simple "
                         f"wager (tick “not a simple wager”).")
    if len(parts) > MAX_PAYOUTS:
        raise ValueError(f"{label}: at most {MAX_PAYOUTS} payout odds a wager.")
    return tuple(_odds(part, f"{label}, payout odds", "35 to 1") for part in parts)


def _read_one(raw: WagerText, label: str) -> tuple[StatedWager | None, list[str]]:
    """The wager read, or every field refused."""
    refusals: list[str] = []

    def attempt(read: Any) -> Any:
        try:
            return read()
        except ValueError as error:
            refusals.append(str(error))
            return None

    name = attempt(lambda: _text(raw.name, MAX_WAGER_NAME, f"{label}: the name",
                                 f"{label}: name the wager as the layout or the rules name it."))
    payouts = attempt(lambda: _payouts(str(raw.payout_odds or ""), label, raw.simple))
    probability = attempt(lambda: read_fraction(raw.probability, f"{label}, probability of winning",
                                                example="1/38"))
    true_odds = attempt(lambda: _odds(str(raw.true_odds or ""), f"{label}, true odds", "37 to 1"))
    house_edge = attempt(lambda: read_fraction(raw.house_edge, f"{label}, house advantage", example="1/19",
                                               zero=True))
    method = attempt(lambda: _text(raw.method, MAX_METHOD, f"{label}: the method of computation",
                                   f"{label}: say how the figures were computed, in words (e.g. “enumeration of "
                                   f"the 38 pockets”)."))
    if probability is not None and probability >= 1:
        refusals.append(f"{label}, probability of winning: {probability} is not below 1; a wager that always wins "
                        f"is no wager.")
    if house_edge is not None and house_edge >= 1:
        refusals.append(f"{label}, house advantage: {house_edge} is not below 1; the player cannot lose more than "
                        f"every unit wagered.")
    if refusals:
        return None, refusals
    wager = StatedWager(name=name, payouts=payouts, probability=probability,
                        probability_text=" ".join(str(raw.probability).split()).replace(" ", ""),
                        true_odds=true_odds, house_edge=house_edge,
                        house_edge_text=" ".join(str(raw.house_edge).split()).replace(" ", ""),
                        simple=raw.simple, method=method)
    return wager, inconsistencies(wager, label)


def inconsistencies(wager: StatedWager, label: str) -> list[str]:
    """For a simple wager, each stated figure that does not follow exactly from its probability of winning and
    its payout, with the exact value (none for a wager that is not simple)."""
    if not wager.simple:
        return []
    p = wager.probability
    a, b = wager.payouts[0]
    found = []
    true_odds = (1 - p) / p
    if Fraction(*wager.true_odds) != true_odds:
        found.append(f"{label}: true odds stated {wager.true_odds_text}; from a probability of winning of "
                     f"{wager.probability_text} they are {odds_text(true_odds)}.")
    house_edge = 1 - p * Fraction(a + b, b)
    if wager.house_edge != house_edge:
        shown = f"−{-house_edge}" if house_edge < 0 else str(house_edge)
        player = " (the player, not the house, would have the advantage: check the payout odds and the " \
                 "probability)" if house_edge < 0 else ""
        found.append(f"{label}: house advantage stated {wager.house_edge_text}; from a probability of "
                     f"{wager.probability_text} and payout {a} to {b} it is {shown}{player}.")
    return found


def read_wagers(rows: Sequence[WagerText]) -> list[StatedWager]:
    """Every wager stated (blank rows left out), or :class:`StatedError` with every refusal at once."""
    refusals: list[str] = []
    wagers: list[StatedWager] = []
    given = [(n, raw) for n, raw in enumerate(rows, start=1) if not raw.blank]
    if not given:
        raise StatedError(["State the figures of at least one wager: its name, payout odds, probability of "
                           "winning, true odds, house advantage and the method of computation (§ 521.4(1)(ii))."])
    if len(given) > MAX_WAGERS:
        raise StatedError([f"State at most {MAX_WAGERS} wagers in one request."])
    for n, raw in given:
        name = " ".join(str(raw.name or "").split())[:40]
        wager, refused = _read_one(raw, f"Wager {n}" + (f" ({name})" if name else ""))
        refusals += refused
        if wager is not None:
            wagers.append(wager)
    names = [w.name.casefold() for w in wagers]
    twice = sorted({w.name for w in wagers if names.count(w.name.casefold()) > 1})
    refusals += [f"Two wagers are named “{name}”: name each wager once." for name in twice]
    if refusals:
        raise StatedError(refusals)
    return wagers


def wager_text(row: Any) -> WagerText:
    """A wager as typed or as kept (a mapping with the keys of :class:`WagerText`; anything else reads blank)."""
    row = row if isinstance(row, Mapping) else {}
    return WagerText(name=str(row.get("name") or ""), payout_odds=str(row.get("payout_odds") or ""),
                     probability=str(row.get("probability") or ""), true_odds=str(row.get("true_odds") or ""),
                     house_edge=str(row.get("house_edge") or ""), simple=bool(row.get("simple", True)),
                     method=str(row.get("method") or ""))


def wagers_from_json(rows: Any) -> list[StatedWager]:
    """The wagers kept with a request, read and checked again by the same rules (:class:`StatedError` if the
    kept figures no longer read)."""
    if not isinstance(rows, list):
        raise StatedError(["The facility's figures kept with the request are not a list of wagers."])
    return read_wagers([wager_text(row) for row in rows])
