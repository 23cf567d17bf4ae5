"""Gaming days as the coupon ledger speaks of them: the facility's gaming day now, a day in words, and
the refusal of a movement dated on a day that has not started. Every service, form default and screen
of the ledger asks here, and here asks :mod:`compliance.gaming_day` (the facility's time zone and the
hour its gaming day starts), so "today" means the same everywhere.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.exceptions import ValidationError

from compliance.gaming_day import gaming_day

__all__ = ["day_words", "not_in_future", "today"]


def today(facility: Any) -> date:
    """The facility's gaming day now (a coupon handled at 02:25 belongs to the day that began at 6:00)."""
    return gaming_day(facility)


def day_words(value: date) -> str:
    """"3 Nov 2026": how a clerk writes a gaming day."""
    return f"{value:%-d %b %Y}"


def not_in_future(facility: Any, gaming_date: date, what: str) -> None:
    """Refuse a movement dated on a gaming day that has not started."""
    current = today(facility)
    if gaming_date > current:
        raise ValidationError(
            f"{what} on {day_words(gaming_date)}, a gaming day that has not started: record it on the gaming day "
            f"it happens ({day_words(current)})."
        )
