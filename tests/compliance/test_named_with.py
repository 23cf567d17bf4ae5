"""A signed record's name asks the database nothing once its ``named_with`` rows are joined (issue 27: no query per
row). The dashboard's "awaiting your signature" lists up to twenty records by name; a name that reads its table, its
report run or its match read each one with a query of its own. Every signable type of the project is checked here,
so a type added later, or a name changed to read another record, fails until ``named_with`` says what it reads.

No database: each record is built in memory with its ``named_with`` rows attached, and pytest-django refuses any
query a test without its mark makes."""

from __future__ import annotations

from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

import pytest
from django.db import models
from django.utils import timezone

from compliance.selectors import regulated_models

SIGNED = sorted((m for m in regulated_models() if m.signature_requirements), key=lambda m: m._meta.label)


def _value(field: models.Field[Any, Any]) -> Any:
    """A value of the field's type, as a saved row would hold one."""
    if field.flatchoices:
        return field.flatchoices[0][0]
    kinds: list[tuple[type[models.Field[Any, Any]], Any]] = [
        (models.BooleanField, True), (models.DateTimeField, timezone.now()), (models.DateField, date(2026, 11, 30)),
        (models.TimeField, time(9)), (models.DecimalField, Decimal("1.00")), (models.IntegerField, 1),
        (models.FloatField, 1.0), (models.JSONField, {}), (models.UUIDField, None), (models.CharField, "x"),
        (models.TextField, "x"),
    ]
    return next((value for kind, value in kinds if isinstance(field, kind)), None)


def _built(model: type[models.Model], pk: int = 1) -> models.Model:
    """A row of ``model`` in memory: every column set, each foreign key's id but not its record."""
    instance = model()
    for field in model._meta.concrete_fields:
        value = pk if field.primary_key or field.is_relation else _value(field)
        if value is not None:
            setattr(instance, field.attname, value)
    return instance


def _joined(instance: models.Model, path: str) -> None:
    """The rows of one ``select_related`` path attached, as the join would attach them."""
    for name in path.split("__"):
        field: Any = instance._meta.get_field(name)
        related = field.get_cached_value(instance, None) if field.is_cached(instance) else None
        if related is None:
            related = _built(field.related_model)
            field.set_cached_value(instance, related)
        instance = related


@pytest.mark.parametrize("model", SIGNED, ids=lambda m: m._meta.label)
def test_a_signed_records_name_reads_only_what_it_declares(model: type[Any]) -> None:
    instance = _built(model)
    for path in model.named_with:
        _joined(instance, path)
    try:
        name = str(instance)
    except RuntimeError as refused:  # pytest-django: "Database access not allowed"
        pytest.fail(f"{model._meta.label}'s name reads a related record its named_with {model.named_with} does not "
                    f"join: add it, or a list of these records asks a query a name ({refused})")
    assert name.strip() and "None" not in name


def test_every_declared_join_is_a_relation() -> None:
    """A path ``select_related`` would refuse fails here, not on a dashboard."""
    for model in SIGNED:
        for path in model.named_with:
            current = model
            for name in path.split("__"):
                field = current._meta.get_field(name)
                assert field.is_relation and (field.many_to_one or field.one_to_one), f"{model.__name__}: {path}"
                current = field.related_model


def test_the_names_say_which_table_in_the_floors_words() -> None:
    """A staffing override and a removal name the table by its number (the override named its row id)."""
    from compliance.models import GamingTable
    from compliance.staffing.models import StaffingOverride
    from equipment.models import DeckRemoval, DiceRemoval

    table = GamingTable(pk=17, number="CR-3")
    override = StaffingOverride(pk=1, table=table, gaming_date=date(2026, 11, 30))
    assert str(override) == "Override for table CR-3 on 30 Nov 2026"
    removed_at = datetime(2026, 11, 30, 19, 5, tzinfo=timezone.get_current_timezone())
    dice = DiceRemoval(pk=1, reason="scheduled", removed_at=removed_at)
    _joined(dice, "dice_set")
    dice.dice_set.table = table
    assert str(dice).startswith("Removal of dice at CR-3 (") and str(dice).endswith("30 Nov 19:05")
    cards = DeckRemoval(pk=1, reason="table_closed", removed_at=removed_at)
    _joined(cards, "deck_set")
    cards.deck_set.table = table
    assert str(cards) == "Removal of cards at CR-3 (Table closed), 30 Nov 19:05"
