"""pytest plugin loaded first (``-p compliance.testing``): picks the database before Django starts.

The suite runs on the real PostgreSQL when one answers on 127.0.0.1:5432 (the development and CI
machines have one) and falls back to SQLite only when none is reachable; the header of every run
says which. ``DATABASE_URL`` set by hand wins. Celery runs eagerly unless a test starts a worker.

On PostgreSQL the suite runs as production does (docs/foundation.md, "What the database refuses"):
``DATABASE_OWNER_URL`` (by default the ``postgres`` superuser, or the ``DATABASE_URL`` given by hand)
creates, migrates, flushes and drops the test database, and every test — the web client, services,
the real Celery worker — connects as :data:`TEST_APPLICATION_ROLE`, a role ``db_roles`` makes that owns
nothing and may only read and add to the append-only tables. ``tests/conftest.py`` switches the logins.
"""

from __future__ import annotations

import os
import socket
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


os.environ.setdefault("DJANGO_ENV", "test")
os.environ.setdefault("FAST_PASSWORD_HASHER", "1")
os.environ.pop("REDIS_URL", None)
os.environ.pop("EMBEDDED_WORKER", None)  # `make run`'s broker: the suite runs eagerly whatever the shell has
TEST_APPLICATION_ROLE = "compliance_test_app"

if not os.environ.get("DATABASE_URL") and _reachable("127.0.0.1", 5432):
    os.environ["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/compliance"
if os.environ.get("DATABASE_URL", "").startswith("postgres") and not os.environ.get("DATABASE_OWNER_URL"):
    _given = urlsplit(os.environ["DATABASE_URL"])
    os.environ["DATABASE_OWNER_URL"] = os.environ["DATABASE_URL"]
    os.environ["DATABASE_URL"] = urlunsplit(
        _given._replace(netloc=f"{TEST_APPLICATION_ROLE}@{_given.hostname}:{_given.port or 5432}")
    )
os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.locmem.EmailBackend")


def application_login() -> dict[str, Any]:
    """The application role's credentials, as ``DATABASE_URL`` gives them (read before any switch)."""
    from django.conf import settings

    return {key: settings.DATABASES["default"].get(key, "") for key in ("USER", "PASSWORD", "HOST", "PORT")}


def log_in(credentials: dict[str, Any]) -> None:
    """Reconnect the default connection with ``credentials`` (user, password, host, port), same database."""
    from django.db import connection

    connection.close()
    connection.settings_dict.update(credentials)


def owner_login() -> dict[str, Any] | None:
    from django.conf import settings

    owner = getattr(settings, "DATABASE_OWNER", None)
    return {key: owner.get(key, "") for key in ("USER", "PASSWORD", "HOST", "PORT")} if owner else None


TAMPER_FUNCTION = "compliance_test_behind_the_apps_back"


def install_tamper_function(cursor: Any, role: str) -> None:
    """In the test database only, as its owner: a SECURITY DEFINER function that runs one statement with
    the owner's powers and the triggers off — what someone with the owner's password could do. It runs
    inside the calling test's transaction, so it sees and changes that test's uncommitted rows."""
    cursor.execute(
        f"CREATE OR REPLACE FUNCTION {TAMPER_FUNCTION}(statement text, triggers_off boolean) RETURNS void "
        "LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$ BEGIN "
        "IF triggers_off THEN PERFORM set_config('session_replication_role', 'replica', true); END IF; "
        "EXECUTE statement; PERFORM set_config('session_replication_role', 'origin', true); END $$"
    )
    cursor.execute(f'GRANT EXECUTE ON FUNCTION {TAMPER_FUNCTION}(text, boolean) TO "{role}"')


def behind_the_applications_back(sql: str, params: list[Any] | tuple[Any, ...] = (), *, triggers_off: bool = True) -> None:
    """Tamper as the database owner would, for tests of what notices tampering: ``sql`` runs with the
    owner's privileges and the triggers (append-only, signed-frozen) off, in the test's transaction.

    The application's own role cannot do this (``SET session_replication_role`` needs a superuser);
    ``tests/compliance/test_database_guarantees.py`` proves it. On SQLite there are no triggers to pass.
    ``triggers_off=False``: the owner's privileges with the triggers still on (what the triggers refuse
    even to the owner).
    """
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.execute(sql, params)
            return
        cursor.execute(f"SELECT {TAMPER_FUNCTION}(%s, %s)", [cast(Any, connection.ops).compose_sql(sql, params), triggers_off])


def pytest_report_header(config: object) -> list[str]:
    url = os.environ.get("DATABASE_URL", "")
    where = (
        f"PostgreSQL, connected as the application role {urlsplit(url).username} (owns nothing)"
        if url.startswith("postgres") else "SQLite (no PostgreSQL reachable)"
    )
    return [f"database: {where}", "celery: eager in tests; worker tests start a real worker on Redis"]


def pytest_terminal_summary(terminalreporter: object, exitstatus: int, config: object) -> None:
    from django.db import connection

    terminalreporter.write_line(  # type: ignore[attr-defined]
        f"Ran on database: {connection.vendor} (test database derived from {connection.settings_dict['NAME']})"
    )


def redis_up(host: str = "127.0.0.1", port: int = 6379) -> bool:
    """Whether a Redis answers there (the real-worker tests skip without one)."""
    return _reachable(host, port)


def forget_celery_connections() -> None:
    """Drop the broker pool and result backend Celery cached under an earlier configuration (an eager,
    in-memory test before a real-worker one, or the reverse)."""
    from compliance.celery import app

    internals: Any = app  # private caches of Celery, not in its type stubs
    internals._pool = None
    internals.amqp._producer_pool = None
    if hasattr(internals._local, "backend"):
        del internals._local.backend
