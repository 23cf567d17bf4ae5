"""Which models the database guards, read from the app registry (the guards themselves, as SQL, are
:mod:`compliance.db_guards`; migrations install them).

* Every concrete subclass of :class:`~compliance.models.RegulatedRecord` (:func:`regulated_models`) gets
  a trigger (``<table>_signed_frozen``, function ``compliance_refuse_signed_change()``) that refuses
  UPDATE and DELETE of a row once a signature exists for it, except a change confined to the model's
  ``unsigned_fields`` (derived markers a signature does not vouch for).
* The tables the application may only add to (signatures, audit events, ledger lines, every history
  table) are listed by :func:`append_only_tables`; ``manage.py db_roles`` grants the application role
  SELECT and INSERT on them and nothing more.

The unsigned marker columns allowed today (:func:`unsigned_marker_columns`):
``coupons_formcorrection.applied_on`` (a correction is applied when finance approves it),
``equipment_diceset.removed_at`` and ``equipment_deckset.removed_at`` (a set leaves play through its
own signed removal record).
"""

from __future__ import annotations

from django.apps import apps
from django.db import models

__all__ = [
    "SIGNED_FROZEN_FUNCTION",
    "append_only_tables",
    "regulated_models",
    "signed_frozen_trigger_args",
    "unsigned_marker_columns",
]

SIGNED_FROZEN_FUNCTION = "compliance_refuse_signed_change"


def regulated_models() -> list[type[models.Model]]:
    """Every concrete, managed regulated record model installed, in a stable order."""
    from compliance.models import RegulatedRecord

    found = [
        model
        for model in apps.get_models()
        if issubclass(model, RegulatedRecord) and model._meta.managed and not model._meta.proxy
    ]
    return sorted(found, key=lambda model: model._meta.db_table)


def _unsigned_columns(model: type[models.Model]) -> list[str]:
    fields = [model._meta.get_field(name) for name in getattr(model, "unsigned_fields", ())]
    return sorted(str(field.column) for field in fields if isinstance(field, models.Field))


def unsigned_marker_columns() -> dict[str, list[str]]:
    """``{table: [column, ...]}`` for every regulated table whose signed rows may still change a marker."""
    return {m._meta.db_table: cols for m in regulated_models() if (cols := _unsigned_columns(m))}


def signed_frozen_trigger_args(model: type[models.Model]) -> tuple[str, ...]:
    """The trigger's arguments: the content type's app label and model, the key column, the unsigned columns."""
    meta = model._meta
    assert meta.pk is not None
    return (meta.app_label, meta.model_name or "", str(meta.pk.column), *_unsigned_columns(model))


def append_only_tables() -> list[str]:
    """Tables whose rows are never changed or deleted once written: the application may only add to them."""
    from compliance.models import AppendOnly

    tables = {
        model._meta.db_table
        for model in apps.get_models()
        if issubclass(model, AppendOnly) or (hasattr(model, "instance_type") and model.__name__.startswith("Historical"))
    }
    return sorted(tables)
