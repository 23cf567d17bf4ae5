"""``{% load times %}`` — instants on the facility's clock in templates (compliance/times.py).

``{{ clock.due_at|when:facility }}`` reads "06:15", "tomorrow 06:15", "Sat 29 Nov 06:15";
``{{ record.signed_at|full_time:facility }}`` reads "Sat 29 Nov 2025 06:15 EST".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import template

from compliance import times

register = template.Library()


@register.filter
def when(value: datetime | None, facility: Any = None) -> str:
    return times.when(value, facility)


@register.filter
def full_time(value: datetime | None, facility: Any = None) -> str:
    return times.full(value, facility)
