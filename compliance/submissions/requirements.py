"""Additional wagering requirements (§ 521.7(d)): what a Rules Submission may add to a game's wagering, such as
wagers in specified increments, "provided that the wagering requirements are specified … in the certificate
holder's Rule Submission".

Each requirement is kept in the version's rules, per game, under :data:`KEY`, as filed:
``[{"words": "Wagers are made in increments of $5.", "increment": "5.00"}, ...]`` — the words a patron reads, and,
where the requirement is an increment the system can check, that increment in dollars ("" where it is not). A game
with no requirement has no key at all, so the versions filed before this existed read (and hash) as they did.

Readings (also in docs/submissions.md):

* Whether a requirement is "consistent with the rules of the game" is not a question a machine answers from free
  words: the words are required, stated once (no two requirements of a game say the same), and may not state odds
  with "for" (§ 539.6(a)); the Board judges the rest when it approves the version.
* An increment is machine-checkable: the table's minimum and maximum wagers must each be a multiple of it
  (a $5 increment with a $12 minimum is inconsistent), checked when the version is saved and filed, when new
  limits are asked for, when a scheduled change is applied, and on the tables' page and readiness.

Pure: no database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from compliance.games.math.core import OptionError
from compliance.numbers import typed_dollars

__all__ = [
    "CLAUSE",
    "KEY",
    "MAX_REQUIREMENTS",
    "clean_requirements",
    "increment_refusals",
    "increments",
    "requirement_lines",
    "requirements_of",
    "requirements_words",
    "without_empty",
]

KEY = "wagering_requirements"
CLAUSE = "521.7(d)"
MAX_REQUIREMENTS = 6
MAX_WORDS = 300
MAX_INCREMENT = Decimal("100000")
_ODDS_FOR = re.compile(r"\d+\s+for\s+\d+", re.IGNORECASE)


def _money(value: Decimal) -> str:
    return f"${value:,.2f}"


def _increment(raw: Any, title: str, number: int) -> str:
    if not str(raw if raw is not None else "").strip().replace(",", "").lstrip("$").strip():
        return ""
    what = f"{title}: requirement {number}'s increment"
    value = typed_dollars(raw)
    if value is None:
        raise OptionError(f"{what} is an amount in dollars such as 5.00, not {str(raw)[:40]!r}.")
    if not Decimal("0.01") <= value <= MAX_INCREMENT:
        raise OptionError(f"{what} is between $0.01 and {_money(MAX_INCREMENT)} (§ {CLAUSE}).")
    if value != value.quantize(Decimal("0.01")):
        raise OptionError(f"{what} is in dollars and cents, not {str(raw)[:40]!r}.")
    return f"{value:.2f}"


def clean_requirements(title: str, raw: Any) -> list[dict[str, str]]:
    """A game's requirements as filed, or ``OptionError`` naming the first thing wrong. ``raw``: a list of
    ``{"words", "increment"}`` (rows left wholly empty are dropped)."""
    if raw in (None, "", []):
        return []
    if not isinstance(raw, list | tuple) or not all(isinstance(r, Mapping) for r in raw):
        raise OptionError(f"{title}: the additional wagering requirements (§ {CLAUSE}) are a list of words.")
    found: list[dict[str, str]] = []
    seen: set[str] = set()
    for number, row in enumerate(raw, start=1):
        words = " ".join(str(row.get("words") or "").split())
        typed_increment = str(row.get("increment") or "").strip()
        if not words and not typed_increment:
            continue
        if not words:
            raise OptionError(f"{title}: requirement {number} has an increment but no words: state the requirement "
                              f"as patrons will read it (§ {CLAUSE}).")
        if len(words) > MAX_WORDS:
            raise OptionError(f"{title}: requirement {number} is longer than {MAX_WORDS} characters.")
        if _ODDS_FOR.search(words):
            raise OptionError(f"{title}: requirement {number} is printed on the signs and the guide; odds there are "
                              f"stated with 'to', never 'for' (§ 539.6(a)).")
        key = words.casefold().rstrip(".")
        if key in seen:
            raise OptionError(f"{title}: requirement {number} repeats an earlier one; state each requirement once "
                              f"(§ {CLAUSE}).")
        seen.add(key)
        found.append({"words": words, "increment": _increment(typed_increment, title, number)})
    if len(found) > MAX_REQUIREMENTS:
        raise OptionError(f"{title}: at most {MAX_REQUIREMENTS} additional wagering requirements (§ {CLAUSE}).")
    return found


def requirements_of(values: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """The requirements a game's rules hold ([] for none, or for a value that is not a list of them)."""
    raw = (values or {}).get(KEY) or []
    if not isinstance(raw, list):
        return []
    return [{"words": str(r.get("words", "")), "increment": str(r.get("increment", "") or "")}
            for r in raw if isinstance(r, Mapping)]


def increments(values: Mapping[str, Any] | None) -> list[Decimal]:
    """The machine-checkable increments of a game's requirements."""
    found = []
    for row in requirements_of(values):
        try:
            amount = Decimal(row["increment"]) if row["increment"] else None
        except InvalidOperation:
            amount = None
        if amount is not None and amount.is_finite() and amount > 0:
            found.append(amount)
    return found


def increment_refusals(steps: Iterable[Decimal], minimum: Decimal, maximum: Decimal, *, where: str) -> list[str]:
    """Why a minimum and maximum are inconsistent with the increments (each must be a multiple of each)."""
    found = []
    for step in steps:
        off = [f"{what} {_money(amount)}" for what, amount in (("minimum", minimum), ("maximum", maximum))
               if amount % step != 0]
        if off:
            found.append(f"Wagers at {where} are made in increments of {_money(step)} (§ {CLAUSE}): the "
                         f"{' and the '.join(off)} {'is' if len(off) == 1 else 'are'} not a multiple of it.")
    return found


def _stated(words: str, step: Decimal) -> bool:
    """Whether the words already give the increment ("$5", "$5.00", "$1,000")."""
    forms = {_money(step), f"${step:,.0f}" if step == step.to_integral_value() else _money(step)}
    return any(re.search(re.escape(form) + r"(?!\d|[.,]\d)", words) for form in forms)


def requirement_lines(values: Mapping[str, Any] | None) -> list[str]:
    """One line per requirement as the signs, guides and complete rules print it: its words, and the increment
    where the words do not already give it."""
    lines = []
    for row in requirements_of(values):
        step = Decimal(row["increment"]) if row["increment"] else None
        if step is None or _stated(row["words"], step):
            lines.append(row["words"])
        else:
            lines.append(f"{row['words'].rstrip('.')} (in increments of {_money(step)}).")
    return lines


def requirements_words(values: Mapping[str, Any] | None) -> str:
    """All of a game's requirements in one cell (a comparison of two versions), "" for none."""
    return "; ".join(requirement_lines(values))


def without_empty(values: Mapping[str, Any]) -> dict[str, Any]:
    """A game's rules with an empty requirement list left out (a version filed before requirements existed and
    one with none compare and hash alike)."""
    return {k: v for k, v in values.items() if not (k == KEY and not v)}

