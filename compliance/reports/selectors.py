"""Reads of the report record: runs, versions, files (checked against their SHA-256), the sign-off, filings."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from django.db.models import Prefetch, QuerySet

from compliance.models import Facility, Signature
from compliance.reports.content import ReportContent
from compliance.reports.models import ReportFile, ReportFileContent, ReportRun, ReportSignoff
from compliance.reports.periods import Period

__all__ = [
    "failed_runs_unresolved",
    "file_bytes",
    "file_of",
    "run_content",
    "run_for_job",
    "run_in",
    "run_state",
    "runs_of",
    "runs_stuck",
    "scheduled_run_exists",
    "versions_of",
]


def _with_files(runs: QuerySet[ReportRun]) -> QuerySet[ReportRun]:
    return runs.select_related("requested_by__profile", "progress", "filing__filed_by__profile").prefetch_related(
        Prefetch("files", queryset=ReportFile.objects.order_by("pk")),
        Prefetch("signoff", queryset=ReportSignoff.objects.prefetch_related(
            Prefetch("signatures", queryset=Signature.objects.order_by("pk")))),
    )


def failed_runs_unresolved(facility: Facility, *, since: datetime) -> QuerySet[ReportRun]:
    """Failed runs asked for since ``since`` that no later version of the same report and period replaced."""
    from django.db.models import Exists, OuterRef

    replaced = ReportRun.objects.filter(facility=OuterRef("facility"), kind=OuterRef("kind"),
                                        period_start=OuterRef("period_start"), period_end=OuterRef("period_end"),
                                        version__gt=OuterRef("version"))
    return (ReportRun.objects.filter(facility=facility, status=ReportRun.Status.FAILED, requested_at__gte=since)
            .exclude(Exists(replaced)).order_by("-requested_at"))


def runs_of(facility: Facility, *, kind: str = "", status: str = "") -> QuerySet[ReportRun]:
    """The facility's runs, newest first, with what a list shows (a constant number of queries)."""
    runs = ReportRun.objects.filter(facility=facility)
    if kind:
        runs = runs.filter(kind=kind)
    if status:
        runs = runs.filter(status=status)
    return _with_files(runs).order_by("-requested_at", "-pk")


def run_in(facility: Facility, pk: Any) -> ReportRun | None:
    try:
        return _with_files(ReportRun.objects.filter(facility=facility)).filter(pk=int(pk)).first()
    except (TypeError, ValueError, OverflowError):
        return None


def run_state(facility: Facility, pk: Any) -> ReportRun | None:
    """A run and its progress, one query (the progress bar polls it)."""
    try:
        return ReportRun.objects.select_related("progress").filter(facility=facility, pk=int(pk)).first()
    except (TypeError, ValueError, OverflowError):
        return None


def run_for_job(run_id: int) -> ReportRun | None:
    return ReportRun.objects.select_related("facility", "requested_by__profile").filter(pk=run_id).first()


def versions_of(facility: Facility, kind: str, period: Period) -> QuerySet[ReportRun]:
    return runs_of(facility, kind=kind).filter(period_start=period.start, period_end=period.end).order_by("-version")


def scheduled_run_exists(facility: Facility, kind: str, period: Period) -> bool:
    return ReportRun.objects.filter(facility=facility, kind=kind, period_start=period.start, period_end=period.end,
                                    trigger=ReportRun.Trigger.SCHEDULE).exists()


def runs_running(*, started_before: datetime) -> list[ReportRun]:
    """Runs being produced since before ``started_before``."""
    return list(ReportRun.objects.filter(status=ReportRun.Status.RUNNING, started_at__lt=started_before).order_by("pk"))


def runs_stuck(*, started_before: datetime, queued_before: datetime) -> list[ReportRun]:
    """Runs running since before ``started_before`` or waiting since before ``queued_before``."""
    from django.db.models import Q

    return list(ReportRun.objects.filter(
        Q(status=ReportRun.Status.RUNNING, started_at__lt=started_before)
        | Q(status=ReportRun.Status.QUEUED, requested_at__lt=queued_before)
    ).order_by("pk"))


def file_of(run: ReportRun, fmt: str) -> ReportFile | None:
    return next((f for f in run.files.all() if f.format == fmt), None)


def file_bytes(file: ReportFile) -> bytes | None:
    """The file's bytes, or None when they no longer hash to the SHA-256 recorded (and sealed) at production."""
    content = ReportFileContent.objects.filter(file=file).first()
    if content is None:
        return None
    data = bytes(content.data)
    return data if hashlib.sha256(data).hexdigest() == file.sha256 else None


def run_content(run: ReportRun) -> ReportContent | None:
    """What the version showed, from its stored page data (None before it succeeded, or when altered)."""
    file = file_of(run, ReportFile.Format.DATA)
    data = file_bytes(file) if file is not None else None
    return ReportContent.from_json(data) if data is not None else None
