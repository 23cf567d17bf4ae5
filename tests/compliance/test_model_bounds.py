"""Every integer is bounded in the model and the table (issue 9, item 7): each integer or decimal field of
the regulated apps has a minimum and a maximum validator (``full_clean`` refuses in words) and a
PostgreSQL check of the same range (raw SQL is refused too). A new field without both fails here."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import IntegrityError, connection, models, transaction

from compliance.bounds import MAX_COUNT, MAX_DENOMINATION_CENTS, require_within_bounds
from compliance.models import ChainLink
from coupons.models import CouponRequisition
from equipment.models import EquipmentRequirement
from tests.vendors import postgresql_only

APPS = ("compliance", "coupons", "equipment")
# A field whose range an older check already holds, under its own name (no second check of the same).
HELD_BY = {("equipment.DeckSet", "deck_count"): "deck_one_or_two"}
POSTGRES_NAME_LIMIT = 63

on_postgresql = postgresql_only("the database's own checks")


def _regulated_models() -> list[type[models.Model]]:
    return [
        model
        for label in APPS
        for model in apps.get_app_config(label).get_models()
        if not model.__name__.startswith("Historical") and not model._meta.proxy
    ]


def _numbers(model: type[models.Model]) -> list[models.Field]:
    return [
        field
        for field in model._meta.concrete_fields
        if isinstance(field, models.IntegerField | models.DecimalField) and not isinstance(field, models.AutoField)
    ]


def _declared(field: models.Field) -> tuple[Any, Any]:
    """The minimum and maximum the field declares itself (not the backend's column range Django adds)."""
    declared = field.deconstruct()[3].get("validators", [])
    lows = [v.limit_value for v in declared if isinstance(v, MinValueValidator)]
    highs = [v.limit_value for v in declared if isinstance(v, MaxValueValidator)]
    return (lows[0] if lows else None), (highs[0] if highs else None)


def _bounded_fields() -> list[tuple[type[models.Model], models.Field]]:
    return [(model, field) for model in _regulated_models() for field in _numbers(model)]


def test_the_walk_finds_the_numbers_of_every_app():
    found = {model._meta.app_label for model, _ in _bounded_fields()}
    assert found == set(APPS)
    assert len(_bounded_fields()) > 60


def test_every_integer_field_declares_a_minimum_and_a_maximum():
    unbounded = [
        f"{model._meta.label}.{field.name}"
        for model, field in _bounded_fields()
        if None in _declared(field)
    ]
    assert not unbounded, f"give these fields validators from compliance.bounds: {unbounded}"


def test_every_bounded_field_has_a_database_check_of_the_same_range():
    missing = []
    for model, field in _bounded_fields():
        checks = {c.name: c for c in model._meta.constraints if isinstance(c, models.CheckConstraint)}
        held_by = HELD_BY.get((model._meta.label, field.name))
        if held_by:
            assert held_by in checks, held_by
            continue
        name = f"{model._meta.db_table}_{field.name}_bounds"
        check = checks.get(name)
        if check is None or check.condition != models.Q(**{f"{field.name}__range": _declared(field)}):
            missing.append(name)
        assert len(name) <= POSTGRES_NAME_LIMIT, f"{name} is longer than PostgreSQL keeps"
    assert not missing, f"add Bounds.checks(...) to Meta.constraints for: {missing}"


def test_history_tables_carry_no_bounds_checks():
    """History rows copy the validators but are evidence of what was written: no check refuses them."""
    for model in apps.get_models():
        if model.__name__.startswith("Historical") and model._meta.app_label in APPS:
            assert not [c.name for c in model._meta.constraints if c.name.endswith("_bounds")], model


# --- full_clean refuses in words ------------------------------------------------------------------------


@pytest.mark.django_db
def test_full_clean_refuses_a_count_past_the_bound_in_words():
    requirement = EquipmentRequirement.objects.first()
    assert requirement is not None
    requirement.dice_max_hours = 25
    with pytest.raises(ValidationError) as refused:
        requirement.full_clean()
    assert refused.value.message_dict["dice_max_hours"] == ["Ensure this value is less than or equal to 24."]


@pytest.mark.django_db
def test_full_clean_refuses_a_quantity_below_one(facility):
    requisition = CouponRequisition(facility=facility, quantity=0, denomination_cents=MAX_DENOMINATION_CENTS + 1)
    with pytest.raises(ValidationError) as refused:
        requisition.full_clean()
    assert refused.value.message_dict["quantity"] == ["Ensure this value is greater than or equal to 1."]
    assert refused.value.message_dict["denomination_cents"] == [
        "Ensure this value is less than or equal to 100000000."
    ]


def test_a_service_is_refused_in_words_naming_the_field():
    line = ChainLink(chain="x", sequence=1, first_id=1, last_id=1, row_count=MAX_COUNT + 1)
    with pytest.raises(ValidationError, match=r"The row count \(10,000,001\) is more than the 10,000,000"):
        require_within_bounds(line)


# --- the database refuses raw SQL ------------------------------------------------------------------------


def _refused_by(check: str, sql: str, params: list[Any]) -> None:
    with pytest.raises(IntegrityError, match=check), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


@on_postgresql
@pytest.mark.django_db
def test_the_database_refuses_an_update_past_the_bound():
    requirement = EquipmentRequirement.objects.first()
    assert requirement is not None
    _refused_by(
        "equipment_equipmentrequirement_dice_count_bounds",
        "UPDATE equipment_equipmentrequirement SET dice_count = 100 WHERE id = %s",
        [requirement.pk],
    )
    _refused_by(
        "equipment_equipmentrequirement_dice_max_hours_bounds",
        "UPDATE equipment_equipmentrequirement SET dice_max_hours = 0 WHERE id = %s",
        [requirement.pk],
    )
    requirement.refresh_from_db()
    assert 0 < requirement.dice_max_hours <= 24


@on_postgresql
@pytest.mark.django_db
def test_the_database_refuses_an_insert_past_the_bound():
    _refused_by(
        "compliance_chainlink_row_count_bounds",
        "INSERT INTO compliance_chainlink (chain, model, scheme, sequence, previous, link_hash, link_mac, ids, digests, "
        "first_id, last_id, row_count, floor, late_seals, linked_at) VALUES ('bounds.Test@-', 'bounds.Test', 2, 1, '', "
        "'x', '', '1', '', 1, 1, 0, 0, '{}', now())",
        [],
    )
    _refused_by(
        "compliance_chainlink_sequence_bounds",
        "INSERT INTO compliance_chainlink (chain, model, scheme, sequence, previous, link_hash, link_mac, ids, digests, "
        "first_id, last_id, row_count, floor, late_seals, linked_at) VALUES ('bounds.Test@-', 'bounds.Test', 2, 0, '', "
        "'x', '', '1', '', 1, 1, 1, 0, '{}', now())",
        [],
    )
    assert not ChainLink.objects.filter(model="bounds.Test").exists()
