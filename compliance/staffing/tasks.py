"""Staffing's Celery tasks: thin, ids in, a service or a notification out."""

from __future__ import annotations

from compliance.notifications import notification_send, notification_task
from compliance.staffing.notifications import camera_violations_notification

__all__ = ["notify_camera_violations"]


@notification_task
def notify_camera_violations(period_ids: list[int]) -> bool:
    """E-mail the open tables a camera outage left short (§ 577.9(a)) to surveillance and the shift managers."""
    from compliance.staffing.models import ViolationPeriod

    periods = list(ViolationPeriod.objects.filter(pk__in=period_ids).select_related("facility", "table"))
    if not periods:
        return False
    return notification_send(camera_violations_notification(periods[0].facility, periods))
