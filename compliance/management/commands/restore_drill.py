"""``manage.py restore_drill`` (``make restore-drill``): dump a database, restore it into a new one by the documented
procedure (docs/operations.md, "Backups and point-in-time recovery"), and prove the copy whole.

The source is the database of ``DATABASE_URL`` (read as ``DATABASE_OWNER_URL``'s owner when set); the copy is
``<database>_restored_<pid>`` next to it, with the same owner and application role, as a restore in production
has. Without a PostgreSQL ``DATABASE_URL`` the drill makes a scratch database on ``--scratch-server``, fills it
with the demo (``db_roles --migrate``, ``seed_demo --all``, ``link_audit_chain --anchor``: ``make run``'s steps)
and drills that. Prints each table's rows in the source and in the copy, the verification, and each step's time;
exits non-zero on any difference. The copy (and a scratch source) is dropped at the end unless ``--keep``.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from compliance.db_guarantees import append_only_tables
from compliance.restore_drill import (
    Copy,
    DrillFailed,
    Login,
    Rehearsal,
    create_database,
    drop_database,
    drop_role,
    manage,
    rehearse,
)

_POSTGRES = "django.db.backends.postgresql"


def _server(url: str) -> Login:
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise CommandError(f"--scratch-server must be a postgres:// URL, not {url!r}")
    return Login(user=unquote(parts.username or ""), password=unquote(parts.password or ""),
                 host=parts.hostname or "127.0.0.1", port=str(parts.port or 5432),
                 database=unquote(parts.path.lstrip("/")) or "postgres")


class Command(BaseCommand):
    help = "Dump the database, restore it into a new one as docs/operations.md says, and check the copy is whole."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--scratch-server", default="postgres://postgres@127.0.0.1:5432/postgres",
                            help="where the scratch database is made when DATABASE_URL is not PostgreSQL")
        parser.add_argument("--keep", action="store_true", help="keep the copy (and a scratch source) for a look")

    def handle(self, *args: Any, scratch_server: str, keep: bool = False, **options: Any) -> None:
        started = time.monotonic()
        made: list[tuple[Login, str]] = []  # (a login that may drop it, database), in the order made
        roles: list[tuple[Login, str]] = []
        try:
            source = self._source(scratch_server, made, roles)
            name = f"{source.owner.database[:40]}_restored_{os.getpid()}"
            copy = Copy(source.owner.on(name), source.application.on(name))
            made.append((source.owner, name))
            with tempfile.TemporaryDirectory(prefix="restore-drill-") as workdir:
                found = rehearse(source, copy, append_only=append_only_tables(), workdir=Path(workdir))
        except DrillFailed as error:
            raise CommandError(f"restore drill: {error}") from None
        finally:
            if not keep:
                for login, database in reversed(made):
                    drop_database(login, database)
                for login, role in roles:
                    drop_role(login, role)
        self._print(source, copy, found, time.monotonic() - started, keep)
        if found.problems:
            raise CommandError(f"restore drill FAILED: {'; '.join(found.problems)}")

    def _source(self, scratch_server: str, made: list[tuple[Login, str]], roles: list[tuple[Login, str]]) -> Copy:
        app = settings.DATABASES["default"]
        if app["ENGINE"] == _POSTGRES:
            owner = getattr(settings, "DATABASE_OWNER", None) or app
            return Copy(Login.from_settings(owner), Login.from_settings(app))
        if settings.PRODUCTION:
            raise CommandError("DATABASE_URL is not PostgreSQL: name the database to drill (the demo is never "
                               "seeded in production)")
        server = _server(scratch_server)
        name = f"restore_drill_{os.getpid()}"
        create_database(server, name)
        made.append((server, name))
        scratch = Copy(server.on(name), Login(user=f"{name}_app", database=name, host=server.host, port=server.port))
        roles.append((server, scratch.application.user))
        self.stdout.write(f"Scratch database {name}: migrating and seeding the demo (make run's steps)…")
        self._fill(scratch)
        return scratch

    def _fill(self, scratch: Copy) -> None:
        # The demo's tasks run inline (no broker named): a worker elsewhere must not get ids of this database.
        without = {key: os.environ.pop(key) for key in ("REDIS_URL", "EMBEDDED_WORKER") if key in os.environ}
        try:
            for step in (("db_roles", "--migrate", "--verbosity", "0"), ("seed_demo", "--all"),
                         ("link_audit_chain", "--anchor")):
                done: subprocess.CompletedProcess[str] = manage(scratch, *step)
                if done.returncode != 0:
                    raise DrillFailed(f"{step[0]} on the scratch database failed: "
                                      f"{(done.stderr or done.stdout).strip()[-2000:]}")
        finally:
            os.environ.update(without)

    def _print(self, source: Copy, copy: Copy, found: Rehearsal, seconds: float, keep: bool) -> None:
        width = max(len(row[0]) for row in found.rows) if found.rows else 10
        self.stdout.write(f"\n{'table':<{width}}  {source.owner.database:>14}  {'restored':>14}")
        for table, before, after, equal in found.rows:
            self.stdout.write(f"{table:<{width}}  {before:>14}  {after:>14}{'' if equal else '  ≠ DIFFERENT'}")
        self.stdout.write(f"\n{len(found.rows)} tables; verify_audit_chain on the copy:\n{found.verification}\n")
        self.stdout.write("steps: " + ", ".join(f"{step} {took:.1f} s" for step, took in found.seconds.items())
                          + f"; whole drill {seconds:.1f} s" + (f" (kept: {copy.owner.database})" if keep else ""))
        if not found.problems:
            self.stdout.write(self.style.SUCCESS(
                f"restore drill passed: {copy.owner.database} restored from {source.owner.database} with every row, "
                "trigger and guard; the audit chain is intact under the same key"))
