"""The dice and deck logs and the record pages: what is in force, corrections left out."""

from __future__ import annotations

from typing import Any

from django.db.models import Model, Prefetch, QuerySet

from compliance.keyset import Keyset
from compliance.models import Facility
from equipment.models import DeckRemoval, DeckSet, DiceRemoval, DiceSet

__all__ = ["facility_records", "in_force", "set_log"]


def in_force(model: type[DiceSet] | type[DeckSet]) -> QuerySet[Any]:
    """Sets not superseded by a correction, each with its removal in force (``current_removals``)."""
    removal_model = DiceRemoval if model is DiceSet else DeckRemoval
    removals = removal_model.objects.filter(corrected_by__isnull=True).order_by("-pk")
    return model.objects.filter(corrected_by__isnull=True).prefetch_related(
        Prefetch("removals", queryset=removals, to_attr="current_removals")
    )


def set_log(model: type[DiceSet] | type[DeckSet], facility: Facility, keyset: Keyset, limit: int) -> list[Any]:
    """Up to ``limit`` sets of the facility's dice (or deck) log in force from where ``keyset`` starts, latest
    placement first, with its people (issue 27: keyset pagination on the index (facility, placed_at), no count)."""
    rows = in_force(model).filter(facility=facility).select_related(
        "table", "corrects", "floorperson__profile", "dealer__profile")
    return list(keyset.applied(rows, "placed_at")[:limit])


def facility_records(model: type[Model], facility: Facility) -> QuerySet[Any]:
    """The records of one kind made at the facility, with their table (a record page looks one up)."""
    return model._default_manager.filter(facility=facility).select_related("table")
