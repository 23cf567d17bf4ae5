"""What an attacker holding a database login can send, for the tests that prove the database refuses it.

The suite is logged in as the application's role (``tests/conftest.py``): :func:`as_app` runs a statement as
that role in a savepoint (a refusal leaves the test's transaction usable), :func:`refused` expects the
refusal. :func:`as_owner` runs one as the tables' owner would (``compliance.testing``), by default with the
triggers off; :func:`shadow` gives the session a temporary table named like a real one, as only the owner
(or any role holding TEMPORARY) could.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction

from compliance.testing import behind_the_applications_back

__all__ = ["as_app", "as_owner", "refused", "shadow"]


def as_app(sql: str, params: list[Any] | tuple[Any, ...] | None = None) -> list[Any]:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False,), "the suite must be logged in as the application role"
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def refused(sql: str, params: list[Any] | tuple[Any, ...] | None = None, *,
            error: type[Exception] = psycopg.errors.InsufficientPrivilege) -> str:
    """Run ``sql`` as the application role and expect PostgreSQL to refuse it with ``error``; its message."""
    with pytest.raises(DatabaseError) as refusal:
        as_app(sql, params)
    assert isinstance(refusal.value.__cause__, error), refusal.value
    return str(refusal.value)


def as_owner(sql: str, params: list[Any] | tuple[Any, ...] = (), *, triggers_off: bool = True) -> None:
    behind_the_applications_back(sql, params, triggers_off=triggers_off)


def shadow(table: str) -> None:
    """A temporary table named like ``table`` in this session, empty: a statement naming ``table`` without its
    schema would read this one first."""
    as_owner(f'CREATE TEMPORARY TABLE "{table}" (LIKE public."{table}")', triggers_off=False)
    as_owner(f'GRANT ALL ON pg_temp."{table}" TO PUBLIC', triggers_off=False)
    assert as_app(f'SELECT count(*) FROM "{table}"') == [(0,)]  # noqa: S608 - unqualified: the session reads the shadow
