"""pytest plugin loaded first (``-p compliance.testing``): picks the database before Django starts.

The suite runs on the real PostgreSQL when one answers on 127.0.0.1:5432 (the development and CI
machines have one) and falls back to SQLite only when none is reachable; the header of every run
says which. ``DATABASE_URL`` set by hand wins. Celery runs eagerly unless a test starts a worker.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


os.environ.setdefault("DJANGO_ENV", "test")
os.environ.setdefault("FAST_PASSWORD_HASHER", "1")
os.environ.pop("REDIS_URL", None)
if not os.environ.get("DATABASE_URL") and _reachable("127.0.0.1", 5432):
    os.environ["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/compliance"
os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.locmem.EmailBackend")


@contextmanager
def behind_the_applications_back() -> Iterator[None]:
    """Tamper as the database owner would, for tests of what notices tampering: inside this block the
    triggers (append-only, signed-frozen) are off for the test's connection, which is a superuser.

    The application's own role cannot do this (``SET session_replication_role`` needs a superuser);
    ``tests/compliance/test_database_guarantees.py`` proves it.
    """
    from django.db import connection, transaction

    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL session_replication_role = replica")
        yield
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL session_replication_role = DEFAULT")


def pytest_report_header(config: object) -> list[str]:
    url = os.environ.get("DATABASE_URL", "")
    where = "PostgreSQL at 127.0.0.1:5432" if url.startswith("postgres") else "SQLite (no PostgreSQL reachable)"
    return [f"database: {where}", "celery: eager in tests; worker tests start a real worker on Redis"]


def pytest_terminal_summary(terminalreporter: object, exitstatus: int, config: object) -> None:
    from django.db import connection

    terminalreporter.write_line(  # type: ignore[attr-defined]
        f"Ran on database: {connection.vendor} (test database derived from {connection.settings_dict['NAME']})"
    )
