"""The one shape of work done by a Celery job rather than inside a web request: who asked and when, its status in
one set of words (queued, running, succeeded, failed), when it started and ended, and why it failed.

Reports' runs (``compliance.reports.models.ReportRun``) and the mailing's jobs (reading a patron list, screening
it: ``coupons.models.MailingListImport``, ``MailingScreening``) are such jobs; a new one subclasses :class:`Job`.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from compliance.models.base import AuditedModel

__all__ = ["Job"]


class Job(AuditedModel):
    """Work a worker does for a person: queued, running, then succeeded or failed (with the reason in ``error``)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    # Waiting for a worker or being worked on: a person asking again is answered with this job.
    ACTIVE: ClassVar[tuple[str, str]] = (Status.QUEUED, Status.RUNNING)
    # Over: a delivery of the task finding it so leaves it as it is.
    FINISHED: ClassVar[tuple[str, str]] = (Status.SUCCEEDED, Status.FAILED)

    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        abstract = True
        ordering = ["-requested_at", "-pk"]

    @property
    def active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def succeeded(self) -> bool:
        return self.status == self.Status.SUCCEEDED
