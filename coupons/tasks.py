"""Thin Celery tasks of the coupon ledger: ids in, re-fetch, return quietly if gone or done, call a service.

The actor comes from ``compliance.actors`` (the publisher's, from the message header; beat's is the
``system`` account). The reports' mail is a regulated notification: retried with back-off.
"""

from __future__ import annotations

from celery import shared_task

from compliance.notifications import notification_task
from coupons import selectors, services


@notification_task
def send_deviation_report(report_id: int) -> bool:
    report = selectors.unsent_deviation_report(report_id)
    if report is None:
        return False
    return services.deviation_report_send(report=report)


@notification_task
def send_exception_report(report_id: int) -> bool:
    report = selectors.unsent_exception_report(report_id)
    if report is None:
        return False
    return services.exception_report_send(report=report)


@shared_task
def post_redemptions() -> int:
    """Beat, every minute: post the redemptions recorded at the tables into the ledger's ranges, one line per
    run of serials (§ 525.21(q)(6)); harmless twice. The coupons posted."""
    return services.redemptions_post()


@shared_task
def monthly_inventory_reminder() -> int:
    """Beat: create or refresh this month's inventory reminder for every facility (§ 525.21(n))."""
    return services.inventory_reminders_refresh()


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=20 * 60, time_limit=25 * 60)
def screen_mailing(job_id: int) -> str:
    """Screen a mailing's patrons against the Board's lists (§ 525.21(q)(7)); harmless delivered twice."""
    from coupons.services.mailing_screening import screening_job_run

    job = screening_job_run(job_id)
    return job.status if job is not None else "gone"


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=10 * 60, time_limit=15 * 60)
def import_mailing_list(job_id: int) -> str:
    """Read a mailing's uploaded patron list into its recipients, then ask for its screening; harmless twice."""
    from coupons.services.mailing import list_import_and_screen

    job = list_import_and_screen(job_id)
    return job.status if job is not None else "gone"

