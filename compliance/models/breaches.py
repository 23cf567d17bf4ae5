"""A table open in breach: a requirement of its readiness (``compliance.readiness``) that stopped holding while it
was open, from when it was found until it was cured or the table closed, and who was told."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from compliance.models.base import AuditedModel

__all__ = ["TableBreach"]


class TableBreach(AuditedModel):
    """An open table's unmet requirement, from ``started_at`` until ``ended_at`` (open: still in breach)."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="breaches")
    code = models.CharField(max_length=80, help_text="The requirement's code, e.g. staffing:three-dealers")
    clause = models.CharField(max_length=40, blank=True)
    words = models.CharField(max_length=600)
    who = models.CharField(max_length=120, blank=True, help_text="Who can cure it")
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_because = models.CharField(max_length=20, blank=True, help_text="cured, or the table closed")
    told = models.TextField(blank=True, help_text="The addresses the breach was e-mailed to")
    told_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["facility", "started_at"])]
        constraints = [
            models.UniqueConstraint(fields=["table", "code"], condition=Q(ended_at__isnull=True),
                                    name="table_breach_open_once"),
            models.CheckConstraint(condition=Q(ended_at__isnull=True) | Q(ended_at__gte=models.F("started_at")),
                                   name="table_breach_ends_after_it_starts"),
        ]

    def __str__(self) -> str:
        return f"Table {self.table_id}: {self.words}"
