"""A request's first raw read is its connection's health check (compliance.raw_reads, issue 27): no ``SELECT 1``
before it, a connection the server dropped since the last request replaced and the read sent again, and a read that
fails on a live connection raised as before. On a connection of its own, kept between "requests" as
``CONN_MAX_AGE`` keeps one, outside any transaction (the suite's own connection is always inside the test's)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import DatabaseError, connection, connections

from compliance import raw_reads

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite keeps no server connection")]


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A connection as a web worker keeps it (health checks on), the one raw_reads sends through; and the
    number of ``SELECT 1`` health checks Django sends on it."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    own: Any = DatabaseWrapper({**connections["default"].settings_dict, "CONN_MAX_AGE": 60,
                                "CONN_HEALTH_CHECKS": True}, alias="default")
    checks: list[int] = []
    usable = own.is_usable

    def counted() -> bool:
        checks.append(1)
        return bool(usable())

    monkeypatch.setattr(own, "is_usable", counted)
    monkeypatch.setattr(raw_reads, "connection", own)
    own.checks = checks
    own.ensure_connection()
    try:
        yield own
    finally:
        own.close()


def _next_request(own: Any) -> None:
    """What Django does to a kept connection when a request starts (``close_old_connections``)."""
    own.close_if_unusable_or_obsolete()
    assert own.connection is not None and not own.health_check_done


def _backend(own: Any) -> int:
    return int(raw_reads.fetch("SELECT pg_backend_pid()", [])[0][0])


def test_the_first_read_is_the_health_check(kept: Any) -> None:
    first = _backend(kept)
    _next_request(kept)
    assert _backend(kept) == first
    assert kept.health_check_done
    with kept.wrap_database_errors:  # what a transaction of the same request does next: no check of its own
        kept.set_autocommit(False)
        kept.rollback()
        kept.set_autocommit(True)
    assert kept.checks == []


def test_a_connection_the_server_dropped_is_replaced_and_the_read_sent_again(kept: Any) -> None:
    first = _backend(kept)
    _next_request(kept)
    with psycopg.connect(**kept.get_connection_params(), autocommit=True) as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", [first]).fetchone() == (True,)
        for _ in range(100):
            if not other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [first]).fetchone():
                break
            time.sleep(0.05)
    again = _backend(kept)
    assert again != first
    assert kept.health_check_done and kept.checks == []


def test_a_read_that_fails_on_a_live_connection_raises_and_keeps_the_connection(kept: Any) -> None:
    first = _backend(kept)
    _next_request(kept)
    with pytest.raises(DatabaseError):
        raw_reads.fetch("SELECT 1 / %s", [0])
    assert _backend(kept) == first


def test_a_dropped_connection_inside_a_transaction_is_not_read_again(kept: Any) -> None:
    """Inside a transaction the read is not the request's first and its work may not move to a new connection:
    the error reaches the caller, as Django's own cursor raises it."""
    first = _backend(kept)
    kept.set_autocommit(False)
    with psycopg.connect(**kept.get_connection_params(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [first])
    kept.in_atomic_block = True
    try:
        with pytest.raises(DatabaseError):
            raw_reads.fetch("SELECT 1", [])
    finally:
        kept.in_atomic_block = False
        kept.close()
