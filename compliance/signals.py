"""Receivers that index every history row in the audit trail."""

from __future__ import annotations

from typing import Any

from simple_history.signals import post_create_historical_record

from compliance.models.audit import AuditEvent

_ACTIONS = {"+": AuditEvent.Action.CREATED, "~": AuditEvent.Action.CHANGED, "-": AuditEvent.Action.DELETED}


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


@post_create_historical_record.connect
def index_history_row(sender: Any, instance: Any, history_instance: Any, **kwargs: Any) -> None:
    changes: dict[str, list[Any]] = {}
    if history_instance.history_type == "~":
        previous = history_instance.prev_record
        if previous is not None:
            delta = history_instance.diff_against(previous)
            changes = {c.field: [_jsonable(c.old), _jsonable(c.new)] for c in delta.changes}
    AuditEvent.objects.create(
        occurred_at=history_instance.history_date,
        facility_id=AuditEvent.facility_id_of(instance),
        actor=history_instance.history_user,
        action=_ACTIONS[history_instance.history_type],
        model_label=instance._meta.label,
        model_name=str(instance._meta.verbose_name),
        object_id=str(instance.pk),
        object_repr=str(instance)[:200],
        history_id=history_instance.pk,
        changes=changes,
        reason=history_instance.history_change_reason or "",
    )


def grant_administrator_permissions(**kwargs: Any) -> None:
    """The administrator role manages the registers in the admin: view, add and change — never delete."""
    from django.contrib.auth.models import Group, Permission

    from compliance.roles import Role

    group = Group.objects.filter(name=Role.ADMINISTRATOR).first()
    if group is None:
        return
    wanted = Permission.objects.filter(
        content_type__app_label__in=["compliance", "coupons", "equipment", "auth"]
    ).exclude(codename__startswith="delete_")
    group.permissions.add(*wanted)


def protect_history_tables(using: str = "default", **kwargs: Any) -> None:
    """On PostgreSQL, make every simple_history table append-only in the database itself.

    History rows are the evidence of every change; no code path edits them, so the database refuses
    UPDATE and DELETE on them as it does on signatures and audit events (migration 0003 defines the
    function). Runs after every ``migrate``, so history tables of apps added later are covered too.
    """
    from django.apps import apps
    from django.db import connections

    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    tables = [
        model._meta.db_table
        for model in apps.get_models()
        if hasattr(model, "instance_type") and model.__name__.startswith("Historical")
    ]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(
                f'CREATE OR REPLACE TRIGGER "{table}_append_only" BEFORE UPDATE OR DELETE ON "{table}" '
                "FOR EACH ROW EXECUTE FUNCTION compliance_refuse_change()"
            )
