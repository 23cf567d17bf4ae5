"""The facility's row lock (compliance/locks.py), on two real PostgreSQL connections: while one transaction holds
``lock_facility``, another may still insert rows that reference the facility (their foreign key's key-share lock
does not conflict with ``FOR NO KEY UPDATE``), but a second ``lock_facility`` or a ``lock_facility_shared`` waits."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import OperationalError, connection, connections, transaction

from compliance.locks import lock_facility, lock_facility_shared
from compliance.models import Game, GamingTable

pytestmark = [
    pytest.mark.django_db(transaction=True),  # the other connection sees committed rows
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row lock modes are PostgreSQL's"),
]


class _RolledBack(Exception):
    pass


def _on_another_connection(work: Callable[[], Any]) -> str:
    """Run ``work`` in a transaction of its own connection (another thread), waiting at most 300 ms for any lock
    (the foreign keys' included), then roll it back: "done", or "blocked" when a lock was not granted in time."""
    outcome: list[str] = []

    def run() -> None:
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '300ms'")
                    # Django's foreign keys are checked at commit; check them at the insert, as a commit would.
                    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                work()
                raise _RolledBack
        except _RolledBack:
            outcome.append("done")
        except OperationalError as error:
            outcome.append("blocked" if "lock timeout" in str(error) else f"unexpected {error!r}")
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    return outcome[0] if outcome else "no answer"


@contextmanager
def _held(lock: Callable[[Any], None], facility: Any) -> Iterator[None]:
    with transaction.atomic():
        lock(facility)
        yield


def _insert_table(facility: Any) -> Callable[[], Any]:
    game = Game.objects.order_by("pk").first()
    assert game is not None
    return lambda: GamingTable.objects.create(facility=facility, number="LOCK-1", game=game)


def test_lock_facility_lets_rows_referencing_the_facility_be_inserted(facility):
    with _held(lock_facility, facility):
        assert _on_another_connection(_insert_table(facility)) == "done"


def test_lock_facility_is_taken_in_turn(facility):
    with _held(lock_facility, facility):
        assert _on_another_connection(lambda: lock_facility(facility)) == "blocked"
        assert _on_another_connection(lambda: lock_facility_shared(facility)) == "blocked"
    assert _on_another_connection(lambda: lock_facility(facility)) == "done"


def test_shared_locks_run_side_by_side_but_hold_off_lock_facility(facility):
    with _held(lock_facility_shared, facility):
        assert _on_another_connection(lambda: lock_facility_shared(facility)) == "done"
        assert _on_another_connection(_insert_table(facility)) == "done"
        assert _on_another_connection(lambda: lock_facility(facility)) == "blocked"


def test_a_plain_for_update_would_queue_those_inserts(facility):
    """The mode matters: ``FOR UPDATE``, which ``compliance.locks`` never takes, holds the same insert back."""

    def for_update(facility: Any) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM compliance_facility WHERE id = %s FOR UPDATE", [facility.pk])

    with _held(for_update, facility):
        assert _on_another_connection(_insert_table(facility)) == "blocked"
