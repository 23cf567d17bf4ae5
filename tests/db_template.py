"""The migrated test database, built once per version of the code and cloned for each xdist worker.

Migrating a fresh database costs some 140 s of one core, nearly all of it Django rendering the historical model
states of ~120 migrations (the database's own work is seconds). Every worker of every run paid it. Now the first
worker to need it migrates a template database, as the owner, exactly as the test database was migrated before;
every test database is then ``CREATE DATABASE … TEMPLATE`` of it (Django's ``TEST["TEMPLATE"]`` setting), a copy
of its files in a couple of seconds, after which Django's test set-up runs ``migrate`` (nothing left to apply),
its ``post_migrate`` receivers and the serialization as before.

The template is named after a digest of everything its content can depend on: every Python file of the
application's packages (the migrations, the operations and data functions they import, the ``post_migrate``
receivers), the locked package versions, and the settings a migration writes with (the chain key its sealed
reference rows are sealed under, the time zone). Change any of them and the next run builds a new template
and drops the old ones; an unchanged tree (a second run, CI on a clone of what was just tested) clones at once.
A template is built under a temporary name and renamed when whole, so an interrupted build is never cloned;
it takes no connections (``ALLOW_CONNECTIONS false``), so nothing changes it after it was built.
``tests/test_db_template.py`` checks that a clone holds what a migration holds.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("compliance", "coupons", "equipment", "tests/testapp")
PREFIX = "tmpl_"


def code_digest() -> str:
    """What a migrated database's content depends on, as a short hex digest (the template's name)."""
    from django.conf import settings

    digest = hashlib.sha256()
    files = sorted(path for source in SOURCES for path in (ROOT / source).rglob("*.py"))
    for path in [*files, ROOT / "requirements" / "dev.txt", ROOT / "pyproject.toml"]:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    for setting in ("AUDIT_CHAIN_KEY", "AUDIT_CHAIN_KEY_ID", "TIME_ZONE", "INSTALLED_APPS"):
        digest.update(repr(getattr(settings, setting, None)).encode() + b"\0")
    return digest.hexdigest()[:16]


def _base(test_name: str) -> str:
    return re.sub(r"_gw\d+$", "", test_name)[:30]  # one template for every xdist worker's database


def template_name(test_name: str) -> str:
    """The template of the test database ``test_name`` (any xdist worker's) for this version of the code."""
    return f"{PREFIX}{_base(test_name)}_{code_digest()}"


def _admin(settings_dict: dict[str, Any]) -> Any:
    """An autocommit connection of the owner to the server's maintenance database."""
    import psycopg

    return psycopg.connect(host=settings_dict.get("HOST") or "127.0.0.1", port=settings_dict.get("PORT") or 5432,
                           user=settings_dict.get("USER") or None, password=settings_dict.get("PASSWORD") or None,
                           dbname="postgres", autocommit=True)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _build(admin: Any, name: str) -> None:
    """Migrate a new database as the owner (the connection is logged in as the owner), then make it the template."""
    from django.core.management import call_command
    from django.db import connection

    building = f"{name}_building"
    admin.execute(f"DROP DATABASE IF EXISTS {_quoted(building)}")
    admin.execute(f"CREATE DATABASE {_quoted(building)}")
    saved = connection.settings_dict["NAME"]
    connection.close()
    connection.settings_dict["NAME"] = building
    try:
        call_command("migrate", verbosity=0, interactive=False, run_syncdb=True)  # as Django's test set-up calls it
    finally:
        connection.close()
        connection.settings_dict["NAME"] = saved
    admin.execute(f"ALTER DATABASE {_quoted(building)} RENAME TO {_quoted(name)}")
    admin.execute(f"ALTER DATABASE {_quoted(name)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false")


def _drop_others(admin: Any, name: str, test_name: str) -> None:
    """Templates of earlier versions of the code (not in use by a run cloning them now: those stay)."""
    pattern = f"{PREFIX}{test_name}_%"
    for (other,) in admin.execute("SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s",
                                  [pattern, name]).fetchall():
        try:
            admin.execute(f"ALTER DATABASE {_quoted(other)} WITH IS_TEMPLATE false")
            admin.execute(f"DROP DATABASE {_quoted(other)}")
        except Exception:  # noqa: S110 - another run is cloning it; the next run drops it
            pass


def use_migrated_template(blocker: Any) -> str | None:
    """Make the test database a clone of the migrated template of this code (built first if there is none).
    PostgreSQL only; returns the template's name."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    settings_dict = connection.settings_dict
    test_name = settings_dict["TEST"].get("NAME") or f"test_{settings_dict['NAME']}"
    base, name = _base(test_name), template_name(test_name)
    import psycopg

    try:
        admin_connection = _admin(settings_dict)
    except psycopg.OperationalError:  # no maintenance database to work from: each worker migrates its own, as before
        return None
    with admin_connection as admin:
        admin.execute("SELECT pg_advisory_lock(hashtext(%s))", [f"{PREFIX}{base}"])  # one builder; the others wait
        try:
            if admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
                with blocker.unblock():
                    _build(admin, name)
                _drop_others(admin, name, base)
        finally:
            admin.execute("SELECT pg_advisory_unlock(hashtext(%s))", [f"{PREFIX}{base}"])
    settings_dict["TEST"]["TEMPLATE"] = name
    return name


class _Unblocked:
    """What pytest-django's blocker offers, outside pytest: the database is open to this process already."""

    def unblock(self) -> Any:
        from contextlib import nullcontext

        return nullcontext()


def main() -> int:
    """``python -m tests.db_template``: build this code's template before the suite needs it (``make test`` runs it
    beside the lint and the type check, so the migration's 130-odd seconds of one core overlap them instead of
    holding up the suite's first tests). Settings and logins as the suite's (``compliance.testing``), the same name
    and the same lock: a worker that needs the template meanwhile waits for this build, then clones it. Without
    PostgreSQL there is nothing to build (the suite runs on SQLite)."""
    import os
    import time

    import compliance.testing  # noqa: F401 - the suite's environment: the test settings, the owner's login

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")
    import django

    django.setup()
    from django.db import connection

    from compliance.testing import log_in, owner_login

    owner = owner_login()
    if owner is None or connection.vendor != "postgresql":
        return 0
    log_in(owner)
    started = time.monotonic()
    name = use_migrated_template(_Unblocked())
    print(f"test template {name} ready in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
