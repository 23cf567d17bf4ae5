"""Celery tasks of the equipment logs: thin, they call services."""

from __future__ import annotations

from celery import shared_task

from compliance.actors import acting_as, system_user
from equipment import services


@shared_task
def sweep_equipment_clocks() -> dict[str, int]:
    """Every minute (beat): raise overdue alerts and notify; harmless when run twice."""
    with acting_as(system_user()):
        result = services.equipment_sweep()
    return {"due": len(result.due), "overdue": len(result.overdue), "raised": len(result.raised)}


@shared_task
def notify_equipment_alerts(alert_ids: list[int]) -> int:
    with acting_as(system_user()):
        return services.alert_notify(alert_ids=alert_ids)
