"""Where the app that opens tables (``equipment``) tells the others that a table opened or closed, so they never
import each other (docs/architecture.md, "Dependencies").

A *table listener* hears that a table opened or closed, inside the same transaction (the staffing rules start or
end the table's violation periods; ``compliance.breaches`` starts or ends the table's breach periods). Whether a
table may open is ``compliance.readiness`` — one answer for every screen.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from compliance.models import GamingTable

__all__ = ["register_table_listener", "table_changed"]

TableListener = Callable[[GamingTable, datetime], None]

_LISTENERS: list[TableListener] = []


def register_table_listener(listener: TableListener) -> None:
    if listener not in _LISTENERS:
        _LISTENERS.append(listener)


def table_changed(table: GamingTable, at: datetime) -> None:
    """Tell every listener that ``table`` opened or closed at ``at`` (its ``is_open`` says which)."""
    for listener in _LISTENERS:
        listener(table, at)
