"""The two writers of a generated year take turns (compliance/scale_turns.py): the coupons' linker never runs while
a transaction of the floor's writer is in flight, and the floor's writer does not begin one while the linker runs.

Each side is a real connection of its own (a thread), on PostgreSQL; a wait is shown by PostgreSQL's lock_timeout
refusing the lock, not by a clock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from django.db import OperationalError, connection, transaction

from compliance.models import AuditEvent
from compliance.scale_turns import beside_writes, linking, linking_if_free, writers_take_turns

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif("connection.vendor != 'postgresql'", reason="advisory locks are PostgreSQL's"),
]


@pytest.fixture(autouse=True)
def _turns() -> Iterator[None]:
    writers_take_turns(True)
    yield
    writers_take_turns(False)


class _Holder(threading.Thread):
    """Runs ``body`` in a context on a connection of its own, holding it until :meth:`release`."""

    def __init__(self, context: object) -> None:
        super().__init__(daemon=True)
        self.context, self.inside, self.let_go = context, threading.Event(), threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        from django.db import connections

        try:
            with self.context():  # type: ignore[operator]
                AuditEvent.objects.count()
                self.inside.set()
                self.let_go.wait(10)
        except BaseException as error:  # the test reads it
            self.error = error
        finally:
            connections.close_all()

    def started(self) -> _Holder:
        """Started, and inside its context."""
        self.start()
        assert self.inside.wait(10)
        return self

    def release(self) -> None:
        self.let_go.set()
        self.join(10)
        assert self.error is None, self.error


def _refused_at_once(context: object) -> bool:
    """Whether entering ``context`` here would wait (PostgreSQL refuses the lock within 100 ms)."""
    with connection.cursor() as cursor:
        cursor.execute("SET lock_timeout = '100ms'")
    try:
        with context():  # type: ignore[operator]
            return False
    except OperationalError as refused:
        assert "lock timeout" in str(refused)
        return True
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")


@pytest.mark.parametrize(("holding", "waiting"), [(beside_writes, linking), (linking, beside_writes)],
                         ids=["the linker waits for the floor writer's transaction in flight",
                              "the floor writer waits while the linker links"])
def test_each_writer_waits_for_the_others_turn_and_takes_its_own_once_it_has_ended(holding, waiting):
    holder = _Holder(holding).started()
    assert _refused_at_once(waiting)
    holder.release()
    assert not _refused_at_once(waiting)


def test_two_of_the_floor_writers_transactions_do_not_wait_for_each_other():
    floor = _Holder(beside_writes).started()
    assert not _refused_at_once(beside_writes)
    floor.release()


def test_the_linker_refuses_to_link_inside_a_transaction():
    """Waiting for the lock inside a transaction could hold a row lock the floor's writer waits for."""
    with transaction.atomic(), pytest.raises(RuntimeError, match="outside a transaction"), linking():
        pass


def test_with_one_writer_neither_takes_a_lock():
    writers_take_turns(False)
    coupons = _Holder(linking).started()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
                       "WHERE l.locktype = 'advisory' AND d.datname = current_database()")  # not another test's
        assert cursor.fetchone()[0] == 0
    coupons.release()


def test_the_days_link_is_skipped_at_once_while_the_floor_writer_is_in_a_transaction_and_taken_when_it_is_not():
    """The coupons' mornings link only if the floor's writer has nothing in flight, without waiting; when they do,
    they hold the turn as :func:`linking` does."""
    floor = _Holder(beside_writes).started()
    with linking_if_free() as turn:
        assert turn is False
    floor.release()
    with linking_if_free() as turn:
        assert turn is True
        floor = _Holder(beside_writes)
        floor.start()
        assert not floor.inside.wait(0.3)  # the floor's writer waits for the link
    assert floor.inside.wait(10)
    floor.release()
    with transaction.atomic(), pytest.raises(RuntimeError, match="outside a transaction"), linking_if_free():
        pass


def test_a_morning_that_must_link_waits_for_its_turn():
    """With too much awaiting its link, the morning waits for the floor writer's transaction, as :func:`linking`."""
    floor = _Holder(beside_writes).started()
    assert _refused_at_once(lambda: linking_if_free(wait=True))
    floor.release()
    with linking_if_free(wait=True) as turn:
        assert turn is True
