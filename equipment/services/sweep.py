"""The sweep (every minute, Celery beat): one alert per overdue set, alerts of sets gone resolved,
and the overdue alerts mailed to the floor."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from compliance.actors import acts_as_system
from compliance.models import GamingTable, regulated_bulk_create
from compliance.notifications import notification_send
from equipment.models import DeckSet, DiceSet, EquipmentAlert
from equipment.notifications import overdue_alerts_notification
from equipment.selectors import DueItem, due_in_play

__all__ = ["SweepResult", "alert_notify", "equipment_sweep"]


@dataclass
class SweepResult:
    due: list[DueItem] = field(default_factory=list)
    overdue: list[DueItem] = field(default_factory=list)
    raised: list[int] = field(default_factory=list)  # ids of alerts raised by this run
    healed: int = 0  # open alerts of sets already out of play, resolved by this run


def _lock_free_tables(ids: set[int]) -> set[int]:
    """Lock the tables of the overdue sets, skipping those a service is writing to right now."""
    if not ids:
        return set()
    return set(
        GamingTable.objects.select_for_update(skip_locked=True, no_key=True)
        .filter(pk__in=ids)
        .values_list("pk", flat=True)
    )


def _still_in_play(model: type[DiceSet] | type[DeckSet], ids: list[int]) -> set[int]:
    """Lock the sets and keep those still in play.

    The due list was read before the lock: a removal committed since then shows here (the locked
    read sees the latest committed row), and a set whose removal is under way is skipped; the next
    sweep sees it either way.
    """
    if not ids:
        return set()
    return set(
        model.objects.select_for_update(skip_locked=True)
        .filter(pk__in=ids, removed_at__isnull=True)
        .values_list("pk", flat=True)
    )


def _raise_alerts(overdue: list[DueItem], in_play: dict[str, set[int]], now: datetime) -> list[int]:
    """Insert an alert for each overdue set that has none yet; the ids of those raised."""
    existing = set(
        EquipmentAlert.objects.filter(
            Q(dice_set_id__in=in_play["dice"]) | Q(deck_set_id__in=in_play["deck"]), kind=EquipmentAlert.Kind.OVERDUE
        ).values_list("dice_set_id", "deck_set_id")
    )
    new_alerts = [
        EquipmentAlert(
            kind=EquipmentAlert.Kind.OVERDUE,
            dice_set_id=item.pk if item.kind == "dice" else None,
            deck_set_id=item.pk if item.kind == "deck" else None,
            facility_id=item.facility_id,
            table_id=item.table_id,
            due_at=item.due_at,
            raised_at=now,
        )
        for item in overdue
        if ((item.pk, None) if item.kind == "dice" else (None, item.pk)) not in existing
    ]
    if not new_alerts:
        return []
    # One INSERT (with its history rows) for the lot; the locks taken before keep two sweeps apart.
    return [alert.pk for alert in regulated_bulk_create(EquipmentAlert, new_alerts)]


def _heal_alerts(now: datetime) -> int:
    """Resolve open alerts whose set has left play (self-healing; nothing to do the second time)."""
    healed = 0
    stale = (
        EquipmentAlert.objects.filter(resolved_at__isnull=True)
        .filter(Q(dice_set__removed_at__isnull=False) | Q(deck_set__removed_at__isnull=False))
        .select_related("dice_set", "deck_set", "table")
    )
    for alert in stale:
        equipment = alert.equipment
        alert.resolved_at = equipment.removed_at if equipment is not None and equipment.removed_at else now
        alert.save()
        healed += 1
    return healed


def _queue_notifications() -> None:
    """Queue every open alert not yet notified (not only the new ones): a lost task or a failed send
    is retried by the next run."""
    unnotified = list(
        EquipmentAlert.objects.filter(resolved_at__isnull=True, notified_at__isnull=True).values_list("pk", flat=True)
    )
    if unnotified:
        # Imported here: the tasks module imports the services to call them.
        from equipment.tasks import notify_equipment_alerts

        transaction.on_commit(lambda: notify_equipment_alerts.delay(unnotified))


@transaction.atomic
@acts_as_system
def equipment_sweep(*, now: datetime | None = None) -> SweepResult:
    """Raise one alert per overdue set, resolve alerts of sets gone, notify: idempotent.

    Running twice raises nothing new: the overdue sets are locked and re-checked, then an existing
    alert for the set and kind is found, not duplicated. Alerts are resolved by the removal services
    in the transaction that logs the change, and any left open (a removal that raced a sweep) are
    resolved here. Every open alert not yet notified is queued for e-mail, so a failed send is retried.
    """
    now = now or timezone.now()
    items = due_in_play(now)
    result = SweepResult(due=items, overdue=[i for i in items if i.overdue(now)])
    # Lock in the order the services do (table, then set), else a change under way deadlocks with us.
    tables = _lock_free_tables({i.table_id for i in result.overdue})
    result.overdue = [i for i in result.overdue if i.table_id in tables]
    in_play = {
        "dice": _still_in_play(DiceSet, [i.pk for i in result.overdue if i.kind == "dice"]),
        "deck": _still_in_play(DeckSet, [i.pk for i in result.overdue if i.kind == "deck"]),
    }
    result.overdue = [i for i in result.overdue if i.pk in in_play[i.kind]]
    result.raised = _raise_alerts(result.overdue, in_play, now)
    result.healed = _heal_alerts(now)
    _queue_notifications()
    return result


@acts_as_system
def alert_notify(*, alert_ids: Sequence[int]) -> int:
    """E-mail the floorpersons and shift managers of each alert's facility; returns e-mails sent.

    One e-mail per facility, each in its own transaction: the facility's alerts are locked (two
    queued runs do not both send) and marked notified only once its mail went out. A failed send, or
    a facility with no one to receive it, leaves its alerts for the retry or the next sweep, while the
    facilities already mailed stay marked and are not mailed twice.
    """
    facility_ids = sorted(
        set(
            EquipmentAlert.objects.filter(
                pk__in=alert_ids, resolved_at__isnull=True, notified_at__isnull=True
            ).values_list("facility_id", flat=True)
        )
    )
    return sum(_notify_facility(facility_id, alert_ids) for facility_id in facility_ids)


@transaction.atomic
def _notify_facility(facility_id: int, alert_ids: Sequence[int]) -> int:
    alerts = list(
        EquipmentAlert.objects.filter(
            pk__in=alert_ids, facility_id=facility_id, resolved_at__isnull=True, notified_at__isnull=True
        )
        .select_for_update(skip_locked=True, of=("self",))
        .select_related("facility", "table")
        .order_by("due_at")
    )
    if not alerts or not notification_send(overdue_alerts_notification(alerts[0].facility, alerts)):
        return 0  # no one to send it to: not notified, so it is queued again and stays on the dashboard
    now = timezone.now()
    for alert in alerts:
        alert.notified_at = now
        alert.save()
    return 1
