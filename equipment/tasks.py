"""Celery tasks of the equipment logs: thin, they call services (which say who is acting)."""

from __future__ import annotations

from celery import shared_task

from compliance.notifications import notification_task
from equipment import services


@shared_task
def sweep_equipment_clocks() -> dict[str, int]:
    """Every minute (beat): raise overdue alerts and notify; harmless when run twice."""
    result = services.equipment_sweep()
    return {"due": len(result.due), "overdue": len(result.overdue), "raised": len(result.raised)}


@notification_task
def notify_equipment_alerts(alert_ids: list[int]) -> int:
    """Mail the overdue alerts (retried with back-off when the mail server fails); alerts gone or
    already notified are skipped by the service."""
    return services.alert_notify(alert_ids=alert_ids)
