"""The dice and deck logs and the record pages: what is in force, corrections left out."""

from __future__ import annotations

from typing import Any

from django.db.models import Model, Prefetch, QuerySet

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


def set_log(model: type[DiceSet] | type[DeckSet], facility: Facility) -> QuerySet[Any]:
    """The facility's dice (or deck) log in force, latest placement first, with its people."""
    return (
        in_force(model)
        .filter(facility=facility)
        .select_related("table", "corrects", "floorperson__profile", "dealer__profile")
        .order_by("-placed_at", "-pk")
    )


def facility_records(model: type[Model], facility: Facility) -> QuerySet[Any]:
    """The records of one kind made at the facility, with their table (a record page looks one up)."""
    return model._default_manager.filter(facility=facility).select_related("table")
