"""The provider register's Celery tasks: thin, ids in, a service out."""

from __future__ import annotations

from celery import shared_task

from compliance.notifications import notification_task
from compliance.providers import services

__all__ = ["notify_renewal_reminder", "send_renewal_reminders"]


@shared_task
def send_renewal_reminders() -> int:
    """Daily (beat): write the renewal reminders due today (§ 528.4(b)) and queue their mail; idempotent."""
    return services.renewal_reminders_send()


@notification_task
def notify_renewal_reminder(reminder_id: int) -> bool:
    """Mail one reminder to the facility's compliance officers (retried with back-off on failure); a reminder
    gone or already sent is skipped by the service."""
    return services.renewal_reminder_notify(reminder_id=reminder_id)
