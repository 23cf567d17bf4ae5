"""Gaming days as the coupon ledger speaks of them: today's gaming day, a day in words, and the refusal
of a movement dated on a day that has not started. Every service and screen of the ledger asks here,
so the meaning of "today" is decided in one place."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.utils import timezone

__all__ = ["day_words", "not_in_future", "today"]


def today() -> date:
    """The gaming day now (the facility's local date)."""
    return timezone.localdate()


def day_words(value: date) -> str:
    """"3 Nov 2026": how a clerk writes a gaming day."""
    return f"{value:%-d %b %Y}"


def not_in_future(gaming_date: date, what: str) -> None:
    """Refuse a movement dated on a gaming day that has not started."""
    if gaming_date > today():
        raise ValidationError(
            f"{what} on {day_words(gaming_date)}, a gaming day that has not started: record it on the gaming day "
            f"it happens ({day_words(today())})."
        )
