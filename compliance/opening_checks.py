"""What other apps add to opening a table, met here so the app that opens tables (``equipment``) and the apps
that judge them (``compliance.staffing``) never import each other (docs/architecture.md, "Dependencies").

* An *opening check* answers, for a table about to open at an instant and the person opening it, the
  sentence that refuses the opening (citing its clause), or ``None``. It runs inside the opening's
  transaction and may record what it allowed (a shift manager's override used).
* A *table listener* hears that a table opened or closed, inside the same transaction (the staffing rules
  start or end the table's violation periods).
* A *table flagger* says, for a facility, what is wrong at which table now (a staffing or camera breach),
  for the live table board to show beside its own clocks.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from compliance.models import GamingTable

__all__ = [
    "opening_refusal",
    "register_opening_check",
    "register_table_flagger",
    "register_table_listener",
    "table_changed",
    "table_flags",
]

OpeningCheck = Callable[[GamingTable, datetime, Any], "str | None"]
TableListener = Callable[[GamingTable, datetime], None]
TableFlagger = Callable[[Any], "dict[int, list[str]]"]

_CHECKS: list[OpeningCheck] = []
_LISTENERS: list[TableListener] = []
_FLAGGERS: list[TableFlagger] = []


def register_opening_check(check: OpeningCheck) -> None:
    if check not in _CHECKS:
        _CHECKS.append(check)


def register_table_listener(listener: TableListener) -> None:
    if listener not in _LISTENERS:
        _LISTENERS.append(listener)


def register_table_flagger(flagger: TableFlagger) -> None:
    if flagger not in _FLAGGERS:
        _FLAGGERS.append(flagger)


def table_flags(facility: Any) -> dict[int, list[str]]:
    """``{table id: [what is wrong, in words]}`` from every flagger, for the facility's tables now."""
    found: dict[int, list[str]] = {}
    for flagger in _FLAGGERS:
        for table_id, words in flagger(facility).items():
            found.setdefault(table_id, []).extend(words)
    return found


def opening_refusal(table: GamingTable, at: datetime, user: Any) -> str | None:
    """The first registered check's refusal of opening ``table`` at ``at``, or None."""
    for check in _CHECKS:
        refusal = check(table, at, user)
        if refusal:
            return refusal
    return None


def table_changed(table: GamingTable, at: datetime) -> None:
    """Tell every listener that ``table`` opened or closed at ``at`` (its ``is_open`` says which)."""
    for listener in _LISTENERS:
        listener(table, at)
