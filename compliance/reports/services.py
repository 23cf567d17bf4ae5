"""Producing reports: asking for a version, the job that makes it, retries, the schedule, sign-off, filing.

The job (:func:`run_execute`, what the Celery task runs) is harmless delivered twice and survives a worker
killed in the middle: it marks the run *running* and counts the attempt in one short transaction, computes
and renders outside any transaction, then writes every file and *succeeded* in one final transaction under
the run's row lock — so a report completes exactly once however many deliveries raced or died. A run found
*running* when a delivery starts is one whose worker was lost (the task is acknowledged late and rejected
when its worker dies, so the broker delivers it again); after ``MAX_ATTEMPTS`` it is marked failed instead of
looping. A run past its time limit is marked failed with the reason (the job's soft limit, or the sweep
:func:`runs_fail_stuck` when the worker was killed), and a person can retry it.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from compliance.actors import acting_as, acts_as_system, acts_as_user, system_user
from compliance.bounds import require_filter_day
from compliance.chain import anchor_record
from compliance.documents import printed_for
from compliance.gaming_day import gaming_day, local_time
from compliance.locks import lock_facility
from compliance.models import ChainAnchor, Facility
from compliance.models.signatures import SignatureRequirement
from compliance.reports import heartbeat, selectors
from compliance.reports.content import ReportContent
from compliance.reports.models import (
    ReportFile,
    ReportFileContent,
    ReportFiling,
    ReportRun,
    ReportSignoff,
    RunProgress,
)
from compliance.reports.periods import Period, previous_quarter, quarter_of
from compliance.reports.registry import ReportKind, all_kinds, kind_of
from compliance.reports.render import Production, content_csv, content_pdf, content_xlsx
from compliance.roles import Capability, require_capability
from compliance.storage import logo_bytes

__all__ = [
    "MAX_ATTEMPTS",
    "RunBusy",
    "filing_record",
    "quarterly_reports_schedule",
    "run_execute",
    "run_request",
    "run_retry",
    "runs_fail_stuck",
    "runs_recover_lost",
]

log = logging.getLogger(__name__)
S = ReportRun.Status
MAX_ATTEMPTS = 3
QUEUED_TOO_LONG = timedelta(hours=6)


def _kind(code: str) -> ReportKind:
    kind = kind_of(code)
    if kind is None:
        raise ValidationError(f"There is no report called {code!r}; choose one from the list of reports.")
    return kind


def require_may_produce(user: Any, kind: ReportKind) -> None:
    require_capability(user, Capability.RUN_REPORTS)
    require_capability(user, kind.capability)


def period_refusal(facility: Facility, kind: ReportKind, period: Period, today: date) -> str:
    """Why ``period`` cannot be produced for ``kind`` ("" when it can), in words."""
    if kind.quarters_only and period.quarter is None:
        whole = quarter_of(period.start)
        return (f"The {kind.title.lower()} covers one calendar quarter of gaming days: choose a quarter such as "
                f"{whole.start:%d %b %Y} – {whole.end:%d %b %Y}.")
    if kind.quarters_only and period.end >= today:
        return (f"The quarter {period.label()} has not ended: its last gaming day is {period.end:%d %b %Y} and "
                f"today's gaming day is {today:%d %b %Y}. Produce it once the quarter is over.")
    if period.start > today:
        return f"The period starts on {period.start:%d %b %Y}, after today's gaming day ({today:%d %b %Y})."
    if period.days > kind.max_days:
        return f"The {kind.title.lower()} covers at most {kind.max_days} gaming days; this period has {period.days}."
    return ""


def _new_run(*, facility: Facility, kind: ReportKind, period: Period, user: Any, trigger: str) -> ReportRun:
    """The next version of the period, queued and enqueued when the transaction commits; the run already
    waiting or running for the period instead, if there is one."""
    lock_facility(facility)  # versions of one facility are numbered in turn
    runs = ReportRun.objects.filter(facility=facility, kind=kind.code, period_start=period.start, period_end=period.end)
    active = runs.filter(status__in=ReportRun.ACTIVE).first()
    if active is not None:
        return active
    last = runs.order_by("-version").values_list("version", flat=True).first() or 0
    run = ReportRun.objects.create(facility=facility, kind=kind.code, period_start=period.start,
                                   period_end=period.end, version=last + 1, trigger=trigger, requested_by=user)
    RunProgress.objects.create(run=run, stage="Waiting for a worker")
    _enqueue(run)
    return run


def _enqueue(run: ReportRun) -> None:
    from compliance.reports.tasks import produce_report  # the one call upward: enqueue once committed

    run_id = run.pk
    transaction.on_commit(lambda: produce_report.delay(run_id))


@transaction.atomic
@acts_as_user
def run_request(*, facility: Facility, kind: str, start: date, end: date, user: Any) -> ReportRun:
    """Ask for ``kind`` over the gaming days ``start`` to ``end``: a new version, produced by a worker."""
    report = _kind(kind)
    require_may_produce(user, report)
    require_filter_day(start, "the first gaming day")
    require_filter_day(end, "the last gaming day")
    if end < start:
        raise ValidationError("The period ends before it starts: the last gaming day must be on or after the first.")
    period = Period(start, end)
    refusal = period_refusal(facility, report, period, gaming_day(facility))
    if refusal:
        raise ValidationError(refusal)
    return _new_run(facility=facility, kind=report, period=period, user=user, trigger=ReportRun.Trigger.ON_DEMAND)


@transaction.atomic
@acts_as_user
def run_retry(*, run: ReportRun, user: Any) -> ReportRun:
    """Queue a failed run again, asked for now by ``user`` (same version: a failed run produced no file)."""
    require_may_produce(user, _kind(run.kind))
    lock_facility(run.facility_id)  # as _new_run: one request per facility at a time
    run = ReportRun.objects.select_for_update().get(pk=run.pk)
    if run.status != S.FAILED:
        raise ValidationError(f"Only a failed report is retried; this one is {run.get_status_display().lower()}.")
    same_period = ReportRun.objects.filter(facility_id=run.facility_id, kind=run.kind, period_start=run.period_start,
                                           period_end=run.period_end)
    if same_period.filter(status__in=ReportRun.ACTIVE).exists():
        raise ValidationError("This period is already being produced; wait for that version.")
    if same_period.filter(version__gt=run.version).exists():
        raise ValidationError(f"A newer version of this period exists; produce the period again instead of "
                              f"retrying version {run.version}.")
    run.status, run.error, run.attempts, run.started_at, run.finished_at = S.QUEUED, "", 0, None, None
    run.requested_by, run.requested_at = user, timezone.now()  # the history keeps the first request
    run.save()
    RunProgress.objects.update_or_create(run=run, defaults={"percent": 0, "stage": "Waiting for a worker",
                                                           "updated_at": timezone.now()})
    _enqueue(run)
    return run


def _progress(run: ReportRun, percent: int, stage: str) -> None:
    RunProgress.objects.update_or_create(run=run, defaults={"percent": percent, "stage": stage,
                                                           "updated_at": timezone.now()})


def _fail(run_id: int, reason: str, *, only_if: tuple[str, ...] = (S.QUEUED, S.RUNNING),
          seen: ReportRun | None = None) -> ReportRun | None:
    """Mark the run failed with ``reason`` if its status is one of ``only_if`` — and, for the sweep (``seen``),
    only if it is still the attempt the sweep looked at (a run restarted or retried meanwhile is left alone)."""
    with transaction.atomic():
        run = ReportRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status not in only_if:
            return run
        if seen is not None and (run.started_at, run.requested_at, run.attempts) != (
                seen.started_at, seen.requested_at, seen.attempts):
            return None
        run.status, run.error, run.finished_at = S.FAILED, reason, timezone.now()
        run.save()
        _progress(run, 100, "Failed")
    return run


class RunBusy(Exception):
    """The run is being produced by a process that beat for it a moment ago; ask again later."""


def _start(run_id: int) -> ReportRun | None:
    """Mark the run running and count the attempt; None when there is nothing to do."""
    with transaction.atomic():
        run = ReportRun.objects.select_for_update(of=("self",)).select_related("facility", "requested_by").filter(pk=run_id).first()
        if run is None or run.status in ReportRun.FINISHED:
            return None
        if run.status == S.RUNNING and heartbeat.alive(run.pk):
            # Another process beat for it within the heartbeat's life: it is producing the run, or died a moment
            # ago (a pool child killed, its message requeued at once). The task asks again once the beat has had
            # time to expire (``RunBusy``), and then finds the run done or takes it over.
            raise RunBusy(run.pk)
        if run.attempts >= MAX_ATTEMPTS:
            run.status, run.finished_at = S.FAILED, timezone.now()
            run.error = (f"Stopped after {run.attempts} attempts: the worker producing this report was lost each "
                         "time. Retry it; if it fails again, ask the administrator to look at the workers.")
            run.save()
            _progress(run, 100, "Failed")
            return None
        run.status, run.attempts, run.started_at = S.RUNNING, run.attempts + 1, timezone.now()
        run.save()
        _progress(run, 5, f"Started (attempt {run.attempts})")
    return run


@dataclass(frozen=True)
class _Rendered:
    content: ReportContent
    files: list[tuple[str, str, bytes]]  # (format, name, bytes)
    chain_digest: str
    chain_links: dict[str, list[Any]]


class _Unsigned:
    """The signature lines of a version not yet signed, as its PDF prints them."""

    altered_since_signed = False

    def signature_slots(self) -> list[tuple[SignatureRequirement, None]]:
        return [(req, None) for req in ReportSignoff.signature_requirements]


def _production(run: ReportRun, digest: str, links: dict[str, list[Any]]) -> Production:
    facility = run.facility
    produced = local_time(facility, run.started_at or timezone.now())
    who = "the quarterly schedule" if run.trigger == ReportRun.Trigger.SCHEDULE else printed_for(run.requested_by)
    return Production(facility_name=facility.name, version=run.version,
                      produced_at=f"{produced:%d %B %Y %H:%M} {produced.tzname()}", requested_by=who,
                      chain_digest=digest, logo=logo_bytes(facility),
                      chain_links=tuple((label, int(seq), str(h)) for label, (seq, h) in sorted(links.items())))


def _render(run: ReportRun, kind: ReportKind) -> _Rendered:
    period = Period(run.period_start, run.period_end)
    _progress(run, 10, "Gathering the figures")
    content = kind.build(run.facility, period)
    if period.end >= gaming_day(run.facility):
        as_of = local_time(run.facility)
        content.period += f" — incomplete: the period has not ended; records as of {as_of:%d %b %Y %H:%M} {as_of.tzname()}"
    _progress(run, 50, "Anchoring the audit chain")
    anchor = anchor_record(run.facility, reason=ChainAnchor.Reason.REPORT, subject=str(run))
    links = {str(chain): [seq, h] for chain, seq, h in anchor.heads}
    production = _production(run, anchor.digest, links)
    stem = kind.file_stem(run.facility.code, period, run.version)
    _progress(run, 60, "Writing the PDF")
    pdf = content_pdf(content, production, signoff=_Unsigned() if kind.signed else None)
    _progress(run, 85, "Writing the CSV")
    csv = content_csv(content, production)
    return _Rendered(content, [(ReportFile.Format.PDF, f"{stem}.pdf", pdf), (ReportFile.Format.CSV, f"{stem}.csv", csv),
                               (ReportFile.Format.DATA, f"{stem}.json", content.to_json())], anchor.digest, links)


def _store(run: ReportRun, fmt: str, name: str, data: bytes) -> ReportFile:
    file = ReportFile.objects.create(run=run, format=fmt, name=name, size=len(data),
                                     sha256=hashlib.sha256(data).hexdigest())
    ReportFileContent.objects.create(file=file, data=data)
    return file


def _finish(run_id: int, kind: ReportKind, rendered: _Rendered, attempt: int) -> ReportRun | None:
    """Write the version's files and mark it succeeded — once, by the attempt producing it now: a run another
    delivery completed or took over (a later attempt), or one marked failed meanwhile, is left as it is."""
    with transaction.atomic():
        run = ReportRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status != S.RUNNING or run.attempts != attempt:
            return run
        _progress(run, 95, "Saving the files")
        for fmt, name, data in rendered.files:
            _store(run, fmt, name, data)
        run.status, run.finished_at, run.error = S.SUCCEEDED, timezone.now(), ""
        run.chain_digest, run.chain_head = rendered.chain_digest, rendered.chain_links
        run.save()
        if kind.signed:
            ReportSignoff.objects.create(facility_id=run.facility_id, run=run)
        _progress(run, 100, "Done")
    return run


def run_execute(run_id: int) -> ReportRun | None:
    """Produce run ``run_id`` as the person who asked (see the module docstring). Returns the run as left."""
    run = _start(run_id)
    if run is None:
        return selectors.run_for_job(run_id)
    kind = kind_of(run.kind)
    if kind is None:
        return _fail(run_id, f"This system no longer knows the report {run.kind!r}.")
    with acting_as(run.requested_by), heartbeat.beating(run_id, run.attempts):
        try:
            rendered = _render(run, kind)
            return _finish(run_id, kind, rendered, run.attempts)
        except SoftTimeLimitExceeded:
            minutes = settings.REPORTS_TIME_LIMIT_SECONDS // 60
            return _fail(run_id, f"Stopped: the report took longer than its time limit (about {minutes} minutes). "
                                 "Retry it at a quieter time, or produce a shorter period.")
        except (ValidationError, PermissionDenied) as error:
            words = " ".join(error.messages) if isinstance(error, ValidationError) else str(error)
            return _fail(run_id, words or "The report was refused.")
        except Exception:  # a failed report says so, and the worker lives on; the details go to the log only
            log.exception("report run %s failed", run_id)
            return _fail(run_id, f"The report could not be produced (an error in the system; the administrator "
                                 f"finds it in the log under report run {run_id}). Retry it; if it fails again, tell "
                                 "the administrator.")


def stuck_after() -> timedelta:
    """How long a run may stay *running* before the sweep gives up on it: past the job's hard time limit and
    past the broker's redelivery of a task whose whole worker died (its visibility timeout), plus 5 minutes —
    so a report whose worker was killed is finished by the redelivery, not failed before it comes."""
    limit = settings.REPORTS_TIME_LIMIT_SECONDS
    visibility = (getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", None) or {}).get("visibility_timeout", 0)
    return timedelta(seconds=max(limit, int(visibility)) + 5 * 60)


def runs_recover_lost(*, now: datetime | None = None) -> int:
    """Beat, every minute: hand to another worker each run still *running* whose producing process stopped
    beating (``compliance.reports.heartbeat``: its worker was killed whole, with its host or container), at once
    rather than after the broker's visibility timeout. Each lost attempt is handed on once. Returns how many."""
    from compliance.reports import tasks

    now = now or timezone.now()
    grace = timedelta(seconds=heartbeat.ttl_seconds())
    handed = 0
    for run in selectors.runs_running(started_before=now - grace):
        if heartbeat.alive(run.pk) or not heartbeat.claim_recovery(run.pk, run.attempts):
            continue
        log.warning("report run %s: its worker stopped beating (attempt %s); handed to another worker",
                    run.pk, run.attempts)
        _progress(run, 5, f"Its worker was lost (attempt {run.attempts}): handed to another worker")
        tasks.produce_report.delay(run.pk)
        handed += 1
    return handed


@acts_as_system
def runs_fail_stuck(*, now: datetime | None = None) -> int:
    """Mark failed, with the reason, every run still running past the job's hard time limit and the broker's
    redelivery of a lost worker's task (``stuck_after``: its worker was stopped or lost for good) or waiting
    for a worker for hours (its message was lost). Returns how many."""
    now = now or timezone.now()
    limit = timedelta(seconds=settings.REPORTS_TIME_LIMIT_SECONDS)
    failed = 0
    for run in selectors.runs_stuck(started_before=now - stuck_after(), queued_before=now - QUEUED_TOO_LONG):
        if run.status == S.RUNNING and run.started_at is not None:
            reason = (f"Stopped: still running {int((now - run.started_at).total_seconds() // 60)} minutes after it "
                      f"started, past the job's limit of {int(limit.total_seconds()) // 60} minutes (its worker "
                      "was stopped or lost). Retry it.")
        else:
            reason = "Stopped: no worker picked this report up within 6 hours. Retry it once the workers are running."
        failed += _fail(run.pk, reason, only_if=(run.status,), seen=run) is not None
    return failed


@acts_as_system
def quarterly_reports_schedule(*, now: datetime | None = None) -> list[ReportRun]:
    """Beat: for each facility, produce every scheduled quarterly report of the quarter that ended last on its
    own clock (the last gaming day of the quarter is over), once — when the kind says its records are complete
    (``ReportKind.ready``: the coupon report waits for finance to process the quarter's last gaming day, whose
    drop boxes are counted the next morning, or a week at most)."""
    created: list[ReportRun] = []
    for facility in Facility.objects.order_by("pk"):
        today = gaming_day(facility, now)
        period = previous_quarter(today)
        for kind in all_kinds():
            if not kind.scheduled_quarterly or selectors.scheduled_run_exists(facility, kind.code, period):
                continue
            if kind.ready is not None and not kind.ready(facility, period, today):
                continue
            try:
                with transaction.atomic():
                    run = _new_run(facility=facility, kind=kind, period=period, user=system_user(),
                                   trigger=ReportRun.Trigger.SCHEDULE)
            except IntegrityError:  # another beat made it first
                continue
            if run.trigger == ReportRun.Trigger.SCHEDULE:
                created.append(run)
    return created


def signoff_signed(sender: Any, record: ReportSignoff, signature: Any, **kwargs: Any) -> None:
    """Connected to ``record_signed`` for sign-offs (approval waits for preparation: the requirement's
    ``after``): the signature that completes the sign-off adds the signed copy of the PDF (the version's
    figures, as produced, with both signatures printed) to the version's files."""
    if record.is_complete:
        signed_copy_add(signoff=record)


def version_xlsx(run: ReportRun) -> tuple[str, bytes] | None:
    """A version as an Excel workbook, made at download time from the figures stored when it was produced (the
    same rows as its CSV, no recomputation): its file name and bytes; None when those figures no longer match
    their SHA-256. Not stored: it adds nothing the version's files do not hold."""
    content = selectors.run_content(run)
    if content is None:
        return None
    production = _production(run, run.chain_digest, {k: list(v) for k, v in (run.chain_head or {}).items()})
    csv_file = selectors.file_of(run, ReportFile.Format.CSV)  # named as its CSV (a retired kind's too)
    name = csv_file.name.removesuffix(".csv") if csv_file is not None else f"report-version-{run.pk}"
    return f"{name}.xlsx", content_xlsx(content, production)


def signed_copy_add(*, signoff: ReportSignoff) -> ReportFile | None:
    run = ReportRun.objects.select_related("facility", "requested_by__profile").get(pk=signoff.run_id)
    if selectors.file_of(run, ReportFile.Format.SIGNED_PDF) is not None:
        return None
    content = selectors.run_content(run)
    if content is None:
        raise ValidationError("The version's stored figures no longer match their SHA-256: it cannot be signed. "
                              "Produce the period again.")
    production = _production(run, run.chain_digest, {k: list(v) for k, v in (run.chain_head or {}).items()})
    kind = _kind(run.kind)
    pdf = content_pdf(content, production, signoff=signoff)
    stem = kind.file_stem(run.facility.code, Period(run.period_start, run.period_end), run.version)
    return _store(run, ReportFile.Format.SIGNED_PDF, f"{stem}-signed.pdf", pdf)



@transaction.atomic
@acts_as_user
def filing_record(*, run: ReportRun, filed_on: date, method: str, reference: str = "", notes: str = "",
                  user: Any) -> ReportFiling:
    """Record that this version was filed with the Bureau of Casino Compliance (§ 525.21(o))."""
    require_capability(user, Capability.FILE_REPORTS)
    run = ReportRun.objects.select_for_update().get(pk=run.pk)
    kind = _kind(run.kind)
    if not kind.filed:
        raise ValidationError(f"The {kind.title.lower()} is not filed with the Bureau.")
    if run.status != S.SUCCEEDED:
        raise ValidationError("Only a produced report is filed; this version has not succeeded.")
    if ReportFiling.objects.filter(run=run).exists():
        raise ValidationError("This version is already recorded as filed.")
    signoff = ReportSignoff.objects.filter(run=run).first()
    if kind.signed and (signoff is None or not signoff.is_complete):
        raise ValidationError("File the report once it is signed: it needs 'Prepared by' (finance supervisor) and "
                              "'Approved by' (compliance officer).")
    if signoff is not None and signoff.altered_since_signed:
        raise ValidationError("This version was altered since it was signed and cannot be filed. Produce it again.")
    changed = stale_words(run, kind)
    if changed:
        raise ValidationError(f"{changed} File a version that matches the records: produce the period again.")
    today = gaming_day(run.facility)
    require_filter_day(filed_on, "the filing date")
    produced_on = local_time(run.facility, run.finished_at).date() if run.finished_at else today
    if filed_on > local_time(run.facility).date():
        raise ValidationError(f"The filing date {filed_on:%d %b %Y} is in the future; record a filing once it is sent.")
    if filed_on < produced_on:
        raise ValidationError(f"The filing date {filed_on:%d %b %Y} is before this version was produced "
                              f"({produced_on:%d %b %Y}).")
    if signoff is not None and signoff.signature_list():
        approved_on = local_time(run.facility, max(s.signed_at for s in signoff.signature_list())).date()
        if filed_on < approved_on:
            raise ValidationError(f"The filing date {filed_on:%d %b %Y} is before the report was approved "
                                  f"({approved_on:%d %b %Y}): a report is filed once approved.")
    if method not in ReportFiling.Method.values:
        raise ValidationError("Choose how the report was sent.")
    filing = ReportFiling.objects.create(facility_id=run.facility_id, run=run, filed_on=filed_on, method=method,
                                         reference=reference.strip(), notes=notes.strip(), filed_by=user)
    _anchor_after_commit(run, user)
    return filing


def _anchor_after_commit(run: ReportRun, user: Any) -> None:
    """The facility's chain heads as they stand once the filing is recorded, anchored and sent to the Board."""
    from compliance.tasks import anchor_facility

    facility_id, subject, user_id = run.facility_id, f"Filed: {run}", user.pk
    transaction.on_commit(lambda: anchor_facility.delay(facility_id, ChainAnchor.Reason.FILING, subject, user_id))


def stale_words(run: ReportRun, kind: ReportKind) -> str:
    """Why this version no longer matches the records it was drawn from ("" when it does, or the kind cannot
    tell): coupons counted after it was produced, a correction. One aggregate."""
    if kind.stale is None or not run.succeeded:
        return ""
    content = selectors.run_content(run)
    if content is None:
        return "This version's stored figures no longer match their SHA-256."
    return kind.stale(run.facility, Period(run.period_start, run.period_end), content.figures, run.started_at)
