"""Regulated mail of staffing and surveillance: open tables left short of cameras (§ 577.9(a))."""

from __future__ import annotations

from collections.abc import Sequence

from compliance.gaming_day import local_time
from compliance.models import Facility
from compliance.notifications import Notification
from compliance.roles import Role
from compliance.selectors import people_emails
from compliance.staffing.models import ViolationPeriod

__all__ = ["CAMERA_RECIPIENT_ROLES", "camera_violations_notification"]

CAMERA_RECIPIENT_ROLES = (Role.SURVEILLANCE, Role.SHIFT_MANAGER)


def camera_violations_notification(facility: Facility, periods: Sequence[ViolationPeriod]) -> Notification:
    lines = [f"{local_time(facility, p.started_at):%H:%M} {p.words}" for p in periods]
    return Notification.to(
        [*people_emails(facility, CAMERA_RECIPIENT_ROLES), facility.notification_email],
        subject=f"[{facility.name}] {len(periods)} open table(s) short of cameras",
        body="\n".join(lines) + "\n\nPut a camera back in service or close the table (58 Pa. Code § 577.9(a)).\n",
    )
