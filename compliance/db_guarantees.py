"""What PostgreSQL itself holds, beside what the models refuse: signed records frozen, evidence append-only.

* Every concrete subclass of :class:`~compliance.models.RegulatedRecord` gets a trigger
  (``<table>_signed_frozen``, function ``compliance_refuse_signed_change()`` from migration 0008) that
  refuses UPDATE and DELETE of a row once a signature exists for it, except a change confined to the
  model's ``unsigned_fields`` (derived markers a signature does not vouch for). The triggers are
  installed after every ``migrate`` (:func:`install_signed_record_triggers`, a ``post_migrate``
  receiver), from the app registry, so a new app's records are covered without a migration of its own.
* The tables the application may only add to (signatures, audit events, ledger lines, every history
  table) are listed by :func:`append_only_tables`; ``manage.py db_roles`` grants the application role
  SELECT and INSERT on them and nothing more.

The unsigned marker columns allowed today (:func:`unsigned_marker_columns`):
``coupons_formcorrection.applied_on`` (a correction is applied when finance approves it),
``equipment_diceset.removed_at`` and ``equipment_deckset.removed_at`` (a set leaves play through its
own signed removal record).
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db import connections, models

__all__ = [
    "SIGNED_FROZEN_FUNCTION",
    "append_only_tables",
    "install_signed_record_triggers",
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


def _existing_triggers(cursor: Any) -> dict[str, tuple[str, ...]]:
    cursor.execute(
        "SELECT c.relname, t.tgargs FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE t.tgname = c.relname || '_signed_frozen' AND c.relnamespace = to_regnamespace(current_schema())"
    )
    return {
        table: tuple(part.decode() for part in bytes(args).split(b"\x00") if part)
        for table, args in cursor.fetchall()
    }


def install_signed_record_triggers(using: str = "default", **kwargs: Any) -> None:
    """After ``migrate`` (or a test flush): a signed-frozen trigger on every regulated table that lacks one.

    Only missing or outdated triggers are (re)created, so a run with nothing to do issues no DDL and
    works for a role that owns nothing.
    """
    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regprocedure(%s) IS NOT NULL", [f"{SIGNED_FROZEN_FUNCTION}()"])
        if not cursor.fetchone()[0]:
            return  # migrated to before compliance 0008
        present_tables = set(connection.introspection.table_names(cursor))
        existing = _existing_triggers(cursor)
        for model in regulated_models():
            table = model._meta.db_table
            args = signed_frozen_trigger_args(model)
            if table not in present_tables or existing.get(table) == args:
                continue
            quoted_args = ", ".join("'" + arg.replace("'", "''") + "'" for arg in args)
            cursor.execute(
                f'CREATE OR REPLACE TRIGGER "{table}_signed_frozen" BEFORE UPDATE OR DELETE ON "{table}" '
                f"FOR EACH ROW EXECUTE FUNCTION {SIGNED_FROZEN_FUNCTION}({quoted_args})"
            )
