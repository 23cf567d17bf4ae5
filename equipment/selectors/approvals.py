"""Reads of the register of approved equipment."""

from __future__ import annotations

from datetime import date

from django.db.models import Q, QuerySet

from compliance.models import Facility
from equipment.models import EquipmentApproval

__all__ = ["approvals_in_force", "approvals_of"]


def approvals_of(facility: Facility) -> QuerySet[EquipmentApproval]:
    """Every approval of the facility, newest first per kind, with its withdrawal if any."""
    return (EquipmentApproval.objects.filter(facility=facility).select_related("withdrawal", "recorded_by__profile")
            .order_by("kind", "-approved_on", "-pk"))


def approvals_in_force(facility: Facility, on: date) -> dict[str, EquipmentApproval]:
    """``{kind: the latest approval in force on that day}``: approved on or before it and not withdrawn by it."""
    rows = (EquipmentApproval.objects.filter(facility=facility, approved_on__lte=on)
            .filter(Q(withdrawal__isnull=True) | Q(withdrawal__withdrawn_on__gt=on))
            .order_by("kind", "-approved_on", "-pk"))
    found: dict[str, EquipmentApproval] = {}
    for row in rows:
        found.setdefault(row.kind, row)
    return found
