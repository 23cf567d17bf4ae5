"""Thin Celery tasks of the reports: ids in, call one service (see compliance.reports.services).

``produce_report`` is acknowledged late and rejected when its worker is lost, so a worker killed in the
middle of a report leaves the message to be delivered again; the service makes the second delivery finish
the report exactly once. Its soft time limit lets the job mark itself failed with the reason; the hard limit
kills it, and ``fail_stuck_report_runs`` then marks the run failed.
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from compliance.reports import services

LIMIT = settings.REPORTS_TIME_LIMIT_SECONDS


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=LIMIT - 30, time_limit=LIMIT)
def produce_report(run_id: int) -> str:
    run = services.run_execute(run_id)
    return run.status if run is not None else "gone"


@shared_task
def schedule_quarterly_reports() -> int:
    """Beat, hourly: the quarter that ended on each facility's clock, produced once."""
    return len(services.quarterly_reports_schedule())


@shared_task
def fail_stuck_report_runs() -> int:
    """Beat, every five minutes: runs past their time limit are marked failed with the reason."""
    return services.runs_fail_stuck()
