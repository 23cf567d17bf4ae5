"""``{% load times %}`` — instants on the facility's clock in templates (compliance/times.py).

``{{ clock.due_at|when:facility }}`` reads "06:15", "tomorrow 06:15", "Sat 29 Nov 06:15";
``{{ record.signed_at|full_time:facility }}`` reads "Sat 29 Nov 2025 06:15 EST".
"""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any

from django import template
from django.utils import timezone

from compliance import times

register = template.Library()


@register.filter
def when(value: Any, facility: Any = None) -> str:
    """An instant in short words; a wall-clock time ("06:00", a shift's start) or a date as it is, never an error."""
    if isinstance(value, datetime) and not timezone.is_naive(value):
        return times.when(value, facility)
    if isinstance(value, datetime | time):
        return f"{value:%H:%M}"
    if isinstance(value, date):
        return f"{value.day} {value:%b %Y}"
    return "" if value is None else str(value)


@register.filter
def full_time(value: datetime | None, facility: Any = None) -> str:
    return times.full(value, facility)
