"""The generator's sessions side by side (compliance.scale_sessions): each batch in its own thread, connection and
transaction; the results in the batches' order; a failing batch rolls back alone and its error reaches the caller."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from compliance.models import Department
from compliance.scale_sessions import Sessions, split_in_turns


def test_groups_are_dealt_whole_to_the_part_with_fewest_rows():
    groups = [[1, 2, 3], [4], [5, 6], [7], [8, 9, 10, 11]]
    parts = split_in_turns(groups, 2)
    assert parts == [[1, 2, 3, 7], [4, 5, 6, 8, 9, 10, 11]]
    assert sorted(x for part in parts for x in part) == list(range(1, 12))
    assert split_in_turns([[1]], 2) == [[1]]  # no empty part
    assert split_in_turns([], 2) == []


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the generator fills PostgreSQL; its backends' ids")
@pytest.mark.django_db(transaction=True)
def test_each_batch_runs_in_its_own_thread_connection_and_transaction():
    main_backend = connection.cursor().connection.info.backend_pid

    def seen(batch):
        assert connection.in_atomic_block
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid(), txid_current()")
            pid, txid = cursor.fetchone()
        return threading.get_ident(), pid, txid, list(batch)

    with Sessions(2) as sessions:
        first = sessions.each(seen, [[1, 2], [3]])
        again = sessions.each(seen, [[4], [5, 6]])
    assert [batch for *_rest, batch in first + again] == [[1, 2], [3], [4], [5, 6]]  # in the batches' order
    assert {pid for _t, pid, _x, _b in first + again} - {main_backend} == {pid for _t, pid, _x, _b in first + again}
    assert len({txid for _t, _p, txid, _b in first + again}) == 4  # a transaction a batch
    # Each thread keeps its one connection from batch to batch and from one call to the next. Which thread takes
    # which batch is the pool's (a thread that finished its batch may take the next before a second thread starts),
    # so the test asks only that a thread is always on the same backend, and no two threads share one.
    pairs = {(thread, pid) for thread, pid, _x, _b in first + again}
    assert len({thread for thread, _p in pairs}) == len(pairs) == len({pid for _t, pid in pairs}) <= 2


@pytest.mark.django_db(transaction=True)
def test_a_failing_batch_rolls_back_alone_and_its_error_reaches_the_caller():
    def write(batch):
        Department.objects.create(code=batch[0], name=batch[0])
        if batch[0] == "bad":
            raise ValueError("this batch fails")
        return batch[0]

    with Sessions(2) as sessions, pytest.raises(ValueError, match="this batch fails"):
        sessions.each(write, [["good"], ["bad"]])
    assert set(Department.objects.filter(code__in=["good", "bad"]).values_list("code", flat=True)) == {"good"}
