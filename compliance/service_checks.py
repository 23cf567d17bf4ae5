"""The checks every domain service makes first, said once: the person may do this at this facility, and typed
text is within its bounds. Each refusal is a ``ValidationError`` / ``PermissionDenied`` in a clerk's words."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.exceptions import ValidationError

from compliance.gaming_day import gaming_day
from compliance.models import Facility
from compliance.roles import Capability, require_capability
from compliance.selectors import facilities_for

__all__ = ["clean_text", "require_at_facility"]


def require_at_facility(user: Any, facility: Facility, capability: Capability | None = None) -> date:
    """``user`` holds ``capability`` (when given) and works at ``facility``; returns the facility's gaming day."""
    if capability is not None:
        require_capability(user, capability)
    if not facilities_for(user).filter(pk=facility.pk).exists():
        raise ValidationError(f"You do not work at {facility.name}.")
    return gaming_day(facility)


def clean_text(value: str, limit: int, what: str, *, required: bool = True) -> str:
    """Typed text, stripped: refused when required and empty, or longer than ``limit`` characters."""
    value = (value or "").strip()
    if required and not value:
        raise ValidationError(f"Give the {what}.")
    if len(value) > limit:
        raise ValidationError(f"The {what} is longer than {limit:,} characters.")
    return value
