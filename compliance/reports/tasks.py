"""Thin Celery tasks of the reports: ids in, call one service (see compliance.reports.services).

``produce_report`` is acknowledged late and rejected when its worker is lost, so a worker killed in the
middle of a report leaves the message to be delivered again; the service makes the second delivery finish
the report exactly once. A worker killed whole stops the run's heartbeat, and ``recover_lost_report_runs`` hands
the run to another worker within a minute or so (the broker's own redelivery, after its visibility timeout, then
finds it done). Its soft time limit lets the job mark itself failed with the reason; the hard limit kills it, and
``fail_stuck_report_runs`` then marks the run failed.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from compliance.reports import heartbeat, services

LIMIT = settings.REPORTS_TIME_LIMIT_SECONDS


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, soft_time_limit=LIMIT - 30, time_limit=LIMIT,
             max_retries=None)
def produce_report(self: Any, run_id: int) -> str:
    try:
        run = services.run_execute(run_id)
    except services.RunBusy:
        # Another process beat for the run a moment ago: ask again once its beat has had time to expire.
        if self.request.retries * heartbeat.ttl_seconds() > 2 * LIMIT:
            return "busy"
        raise self.retry(countdown=heartbeat.ttl_seconds()) from None
    return run.status if run is not None else "gone"


@shared_task
def schedule_quarterly_reports() -> int:
    """Beat, hourly: the quarter that ended on each facility's clock, produced once."""
    return len(services.quarterly_reports_schedule())


@shared_task
def recover_lost_report_runs() -> int:
    """Beat, every minute: runs whose worker stopped beating are handed to another worker."""
    return services.runs_recover_lost()


@shared_task
def fail_stuck_report_runs() -> int:
    """Beat, every five minutes: runs past their time limit are marked failed with the reason."""
    return services.runs_fail_stuck()
