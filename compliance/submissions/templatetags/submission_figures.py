"""The house advantage of a wager as a page prints it (exact until rounded here, to 4 places)."""

from __future__ import annotations

from typing import Any

from django import template

from compliance.games.math.core import percent

register = template.Library()


@register.filter
def edge(wager: Any) -> str:
    return f"{percent(wager.house_edge)}%"
