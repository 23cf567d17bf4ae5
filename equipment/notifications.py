"""Regulated mail of the equipment logs: the overdue-change alert to the floor of a facility.

Built here, sent by :func:`compliance.notifications.notification_send` from the service
:func:`equipment.services.alert_notify`, which the task ``notify_equipment_alerts`` calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from compliance.models import Facility
from compliance.notifications import Notification
from compliance.roles import Role
from compliance.selectors import people_emails
from equipment.clocks import overdue_words
from equipment.models import EquipmentAlert

__all__ = ["OVERDUE_RECIPIENT_ROLES", "overdue_alerts_notification"]

# Who must act on an overdue change: the floorpersons and shift managers of the facility.
OVERDUE_RECIPIENT_ROLES = (Role.FLOORPERSON, Role.SHIFT_MANAGER)

_CLAUSES = "58 Pa. Code § 577.4(d), § 675a.3(b)(1), § 668a.3(b)(1), § 539.2(b), § 575.2(c)(1)(i), § 575.3(c).\n"


def overdue_alerts_notification(facility: Facility, alerts: Sequence[EquipmentAlert]) -> Notification:
    """One e-mail for the facility's overdue alerts, to its floorpersons and shift managers and its
    notification address."""
    lines = [
        f"{alert} — overdue by {overdue_words(timezone.now() - alert.due_at)}. Change the equipment and log it."
        for alert in alerts
    ]
    return Notification.to(
        [*people_emails(facility, OVERDUE_RECIPIENT_ROLES), facility.notification_email],
        subject=f"[{facility.name}] Equipment change overdue at {len(alerts)} table(s)",
        body="\n".join(lines) + "\n\n" + _CLAUSES,
    )
