"""One index of every change to every regulated model, for the audit page and its CSV export.

simple_history keeps each model's full history in its own table; :class:`AuditEvent` is written
alongside each history row (``post_create_historical_record``) and for each signature, so that
compliance officers and inspectors can filter all changes by date, user, model and record in one
query. Events are append-only: the model refuses changes, and on PostgreSQL a trigger refuses too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from compliance.models.base import AppendOnly, RegulatedQuerySet, _bulk_with_history

__all__ = ["AuditEvent"]


class AuditEventQuerySet(RegulatedQuerySet["AuditEvent"]):
    pass


class AuditEvent(AppendOnly):
    append_only_what = "Audit events"

    class Action(models.TextChoices):
        CREATED = "created", "Created"
        CHANGED = "changed", "Changed"
        DELETED = "deleted", "Deleted"
        SIGNED = "signed", "Signed"
        CORRECTED = "corrected", "Corrected by a new record"

    occurred_at = models.DateTimeField(default=timezone.now, db_index=True)
    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, null=True, related_name="+")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+")
    action = models.CharField(max_length=12, choices=Action.choices)
    model_label = models.CharField(max_length=100, help_text="app_label.ModelName")
    model_name = models.CharField(max_length=100, help_text="Human name of the model")
    object_id = models.CharField(max_length=40)
    object_repr = models.CharField(max_length=200)
    history_id = models.BigIntegerField(null=True)
    changes = models.JSONField(default=dict, blank=True)
    reason = models.TextField(blank=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["-occurred_at", "-pk"]
        indexes = [
            models.Index(fields=["facility", "-occurred_at"]),
            models.Index(fields=["model_label", "object_id"]),
            models.Index(fields=["actor", "-occurred_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.occurred_at:%Y-%m-%d %H:%M} {self.action} {self.model_label} #{self.object_id}"

    @staticmethod
    def facility_id_of(instance: Any) -> int | None:
        from compliance.models.facility import Facility

        if isinstance(instance, Facility):
            return instance.pk
        through = getattr(instance, "facility_through", "")
        if through and not hasattr(instance, "facility_id"):
            return getattr(getattr(instance, through), "facility_id", None)
        return getattr(instance, "facility_id", None)

    @classmethod
    def log(
        cls,
        instance: models.Model,
        *,
        action: str,
        actor: Any,
        changes: dict[str, Any] | None = None,
        reason: str = "",
        occurred_at: Any = None,
    ) -> AuditEvent:
        """An event that is not a history row (a signature, a correction, an export)."""
        return cls.objects.create(
            occurred_at=occurred_at or timezone.now(),
            facility_id=cls.facility_id_of(instance),
            actor=actor,
            action=action,
            model_label=instance._meta.label,
            model_name=str(instance._meta.verbose_name),
            object_id=str(instance.pk),
            object_repr=str(instance)[:200],
            changes=changes or {},
            reason=reason,
        )

    @classmethod
    def record_bulk_created(cls, instances: Sequence[models.Model], *, actor: Any) -> None:
        if not instances:
            return
        now = timezone.now()
        meta = instances[0]._meta
        events = [
            cls(
                occurred_at=now,
                facility_id=cls.facility_id_of(obj),
                actor=actor,
                action=cls.Action.CREATED,
                model_label=meta.label,
                model_name=str(meta.verbose_name),
                object_id=str(obj.pk),
                # Not str(obj): a __str__ touching a related object would cost a query per row.
                object_repr=f"{meta.verbose_name} #{obj.pk}",
            )
            for obj in instances
        ]
        token = _bulk_with_history.set(True)
        try:
            cls.objects.bulk_create(events, batch_size=1000)
        finally:
            _bulk_with_history.reset(token)
