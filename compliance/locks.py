"""The facility's row lock: the one way any service takes turns with others of the same facility.

Two modes, both on the ``compliance_facility`` row and both held until the transaction ends:

* :func:`lock_facility` — ``FOR NO KEY UPDATE``: writers of one facility that must run one at a time (closing a
  marketing day, numbering the next version of a report or a Rules Submission, recording a sign approval).
* :func:`lock_facility_shared` — ``FOR SHARE``: the many small movements that may run side by side (redemptions at
  the tables) but must wait for a :func:`lock_facility` holder and hold it off while they run.

Never ``SELECT … FOR UPDATE`` on the facility (``Facility.objects.select_for_update()``): ``FOR UPDATE`` conflicts
with the ``FOR KEY SHARE`` lock PostgreSQL takes on the facility for every insert of a row that references it, so
it would queue every such insert in the system — redemptions included — behind the holder, and deadlock with a
transaction that inserted such a row before asking for the lock. ``tests/test_architecture.py`` keeps that call out
of every app.
"""

from __future__ import annotations

from django.db import connection

from compliance.models import Facility

__all__ = ["lock_facility", "lock_facility_shared"]


def _pk(facility: Facility | int) -> int:
    return facility if isinstance(facility, int) else facility.pk


def lock_facility(facility: Facility | int) -> None:
    """Take the facility's row lock: closing a marketing day, processing it and every movement that checks
    the day is open take turns, so nothing commits into a day while its form is being signed; versions of one
    facility's reports and Rules Submissions are numbered in turn.

    ``FOR NO KEY UPDATE``: it conflicts with itself but not with the key-share locks every insert of
    a row referencing the facility takes, so the rest of the system is not held up (nor deadlocked by
    a transaction that inserted such a row before asking for this lock)."""
    Facility.objects.select_for_update(no_key=True).filter(pk=_pk(facility)).values_list("pk", flat=True).first()


def lock_facility_shared(facility: Facility | int) -> None:
    """The facility's row lock in share mode, for the many small movements that may run side by side
    (redemptions at the tables): ``FOR SHARE`` conflicts with :func:`lock_facility`'s ``FOR NO KEY
    UPDATE`` but not with itself, so closing a day waits for them and they never wait for each other.
    SQLite runs one writer at a time and needs no lock."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f'SELECT 1 FROM "{Facility._meta.db_table}" WHERE id = %s FOR SHARE',  # noqa: S608
                           [_pk(facility)])
