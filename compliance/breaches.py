"""Breach periods: an open table's requirement that stopped holding (``compliance.readiness``), from when it was
found until it was cured or the table closed, and who was told.

:func:`breaches_sync` compares the readiness of the facility's open tables with the periods on record: a new
breach opens a period at that instant (and is e-mailed once the transaction commits to the shift managers, the
floorpersons, compliance and the facility's notification address), one cured — or whose table closed — is closed.
It runs when a table opens or closes (a table listener), after every write to a record a readiness source reads
(a receiver, once per facility per transaction, after commit) and every minute from beat for what time alone
changes (dice overdue, a certification's last day, a limit change applied). Every surface reads readiness live,
so a table is flagged everywhere at once; the periods are the record of it.

A period is closed only at the instant of the sync that found it cured — never in the past — so a late entry
elsewhere does not shorten a breach already on record.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models.signals import post_save
from django.utils import timezone

from compliance.actors import acts_as_system
from compliance.gaming_day import local_time
from compliance.models import Facility, TableBreach
from compliance.notifications import Notification
from compliance.readiness import facility_readiness, generation_bump, watched_models
from compliance.roles import Role
from compliance.selectors import people_emails

__all__ = ["BREACH_RECIPIENT_ROLES", "breach_notification", "breach_told", "breaches_sync", "breaches_sync_all",
           "breaches_table_changed", "connect_breach_receiver"]

BREACH_RECIPIENT_ROLES = (Role.SHIFT_MANAGER, Role.FLOORPERSON, Role.COMPLIANCE_OFFICER)


@transaction.atomic
def breaches_sync(facility: Facility, at: datetime | None = None) -> list[TableBreach]:
    """Open a period for each requirement newly unmet at an open table, close each one cured or whose table
    closed; returns the periods that began (their mail is queued after commit)."""
    at = at or timezone.now()
    states = facility_readiness(facility, at)
    now = {(table_id, u.code): u for table_id, state in states.items() if state.is_open for u in state.unmet}
    current = {(b.table_id, b.code): b for b in
               TableBreach.objects.select_for_update().filter(facility=facility, ended_at__isnull=True)}
    for key, breach in current.items():
        if key not in now:
            state = states.get(breach.table_id)
            breach.ended_at = max(at, breach.started_at)
            breach.ended_because = "cured" if state is not None and state.is_open else "table closed"
            breach.save()
    began = [TableBreach.objects.create(facility=facility, table_id=table_id, code=u.code[:80], clause=u.clause[:40],
                                        words=u.words[:600], who=u.who[:120], started_at=at)
             for (table_id, code), u in now.items() if (table_id, code) not in current]
    if began:
        from compliance.tasks import notify_table_breaches

        ids = [b.pk for b in began]
        transaction.on_commit(lambda: notify_table_breaches.delay(ids))
    return began


@acts_as_system
def breaches_sync_all(at: datetime | None = None) -> int:
    """Beat: every facility's breach periods, for what time alone changes. Returns the periods that began."""
    return sum(len(breaches_sync(facility, at)) for facility in Facility.objects.all())


@acts_as_system
def breach_told(breach_ids: list[int]) -> bool:
    """Send the mail for breaches not yet told (grouped per facility); record who was told once it went."""
    from compliance.notifications import notification_send

    sent = False
    rows = list(TableBreach.objects.filter(pk__in=breach_ids, told_at__isnull=True)
                .select_related("table", "facility").order_by("facility_id", "started_at"))
    by_facility: dict[int, list[TableBreach]] = {}
    for row in rows:
        by_facility.setdefault(row.facility_id, []).append(row)
    for group in by_facility.values():
        notification = breach_notification(group[0].facility, group)
        if notification_send(notification):
            told, at = ", ".join(notification.recipients), timezone.now()
            for row in group:
                row.told, row.told_at = told, at
                row.save(update_fields=["told", "told_at"])
            sent = True
    return sent


def breach_notification(facility: Facility, breaches: list[TableBreach]) -> Notification:
    lines = [f"{local_time(facility, b.started_at):%H:%M} table {b.table.number}: {b.words}" for b in breaches]
    return Notification.to(
        [*people_emails(facility, BREACH_RECIPIENT_ROLES), facility.notification_email],
        subject=f"[{facility.name}] {len(breaches)} open table(s) in breach",
        body="\n".join(lines) + "\n\nClose the table or cure the breach; every screen shows it until then.\n",
    )


# --- after a write to a record readiness reads: one sync per facility, once the transaction commits ------------


def _facility_of(instance: Any) -> int | None:
    """The facility a saved record belongs to: its own, or that of the record it hangs on (a table's, a camera's for
    an outage); None: every facility (a rule, a provider's certification)."""
    if getattr(instance, "facility_id", None):
        return int(instance.facility_id)
    for field in instance._meta.concrete_fields:
        owner: Any = field.related_model if field.many_to_one else None
        value = getattr(instance, field.attname) if owner is not None else None
        if value is not None and any(f.name == "facility" for f in owner._meta.concrete_fields):
            return owner._default_manager.filter(pk=value).values_list("facility_id", flat=True).first()
    return None


def _sync_after_commit(facility_id: int | None) -> None:
    def run() -> None:
        run.done = True  # type: ignore[attr-defined]
        facilities = Facility.objects.filter(pk=facility_id) if facility_id else Facility.objects.all()
        for facility in facilities:
            _sync_as_system(facility)

    run.breach_facility = facility_id  # type: ignore[attr-defined]
    # One sync per facility per transaction: skip when one is already queued in it. Any callback still pending runs
    # whenever this one would: Django discards a callback only when a savepoint it was queued in rolls back; those
    # of its savepoints no longer on the stack were released (a rolled-back one took the callback with it), and the
    # ones still on the stack are enclosing ours, whose rollback would discard ours too. (Requiring the callback's
    # savepoints to be enclosing ours ran one sync per service call of a transaction that makes several: a day of a
    # floor's dice changes in one transaction evaluated the whole floor after each, issue 27.)
    pending = getattr(connection, "run_on_commit", [])
    if any(getattr(func, "breach_facility", object()) == facility_id and not getattr(func, "done", False)
           for _sids, func, *_ in pending):
        return
    transaction.on_commit(run)


@acts_as_system
def _sync_as_system(facility: Facility) -> None:
    breaches_sync(facility)


def _saved(sender: type, instance: Any, raw: bool = False, **kwargs: Any) -> None:
    if raw or sender not in watched_models():
        return
    facility_id = _facility_of(instance)
    generation_bump(facility_id)  # cached verdicts (readiness.table_readiness_now) out of date now and at commit
    transaction.on_commit(lambda: generation_bump(facility_id))
    _sync_after_commit(facility_id)


def bulk_written(model: type, instances: Any) -> None:
    """What :func:`_saved` does for each row, for rows written in bulk (no ``post_save``): once per facility they
    belong to (``compliance.models.regulated_bulk_create`` and ``regulated_bulk_update`` call it)."""
    if model not in watched_models():
        return
    facilities = {getattr(i, "facility_id", None) for i in instances} - {None}
    tables = {getattr(i, "table_id", None) for i in instances if not getattr(i, "facility_id", None)} - {None}
    if tables:
        from compliance.models import GamingTable

        facilities |= set(GamingTable.objects.filter(pk__in=tables).values_list("facility_id", flat=True))
    for facility_id in facilities or {None}:
        generation_bump(facility_id)
        transaction.on_commit(functools.partial(generation_bump, facility_id))
        _sync_after_commit(facility_id)


def connect_breach_receiver() -> None:
    post_save.connect(_saved, dispatch_uid="compliance.breaches.saved")


def breaches_table_changed(table: Any, at: datetime) -> None:
    """A table listener (``compliance.opening_checks``): a table opened or closed."""
    breaches_sync(table.facility, at)
