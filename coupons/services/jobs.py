"""The start and end of a mailing's Celery job (a ``compliance.models.Job``), said once for every such job.

A job is claimed under its row lock and marked running as the person who asked; a job already over (succeeded or
failed) is left as it is (the task was delivered twice), and one found running lost its worker and runs again. It ends
under the same lock, with its outcome's fields, as the person who asked.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.db import transaction
from django.utils import timezone

from compliance.actors import acting_as
from compliance.models import Job

__all__ = ["job_claim", "job_finish"]

J = TypeVar("J", bound=Job)


def job_claim(model: type[J], job_id: int) -> tuple[J | None, bool]:
    """``(job, claimed)``: the job, and whether this delivery runs it (False: gone, or over already)."""
    with transaction.atomic():
        job = (model.objects.select_for_update(of=("self",)).select_related("campaign__facility", "requested_by")
               .filter(pk=job_id).first())
        if job is None or job.status in Job.FINISHED:
            return job, False
        with acting_as(job.requested_by):
            job.status, job.started_at = Job.Status.RUNNING, timezone.now()
            job.save()
    return job, True


def job_finish(job: J, status: str, **fields: Any) -> J:
    """End the job with ``status`` and its outcome's ``fields``, as the person who asked for it."""
    with transaction.atomic(), acting_as(job.requested_by):
        job = type(job).objects.select_for_update().get(pk=job.pk)
        job.status, job.finished_at = status, timezone.now()
        for name, value in fields.items():
            setattr(job, name, value)
        job.save()
    return job
