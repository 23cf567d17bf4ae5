"""The restore drill (``manage.py restore_drill``, ``make restore-drill``): the documented restore, rehearsed.

docs/operations.md, "Backups and point-in-time recovery", restores a database in four steps; the drill runs
exactly those on a copy and checks what each must leave behind:

1. ``pg_dump -Fc`` of the source, inside a snapshot exported by a repeatable-read transaction that also counts
   every table's rows and lists its triggers — so the counts are those of the dump, even while people work;
2. ``pg_restore --no-owner --no-acl --single-transaction`` into a new, empty database, as its owner: the tables,
   functions and triggers (the dump's post-data section, so none fires while the rows are loaded), the rows and
   the sequences come back; ownership and grants do not — they belong to the server the copy lands on;
3. ``manage.py db_roles --migrate``, as after every deploy: the application's role, its grants, no temporary
   tables (docs/foundation.md, "What the database refuses");
4. ``manage.py verify_audit_chain`` under the same ``AUDIT_CHAIN_KEY`` (kept apart from the backups).

Then: each table holds as many rows as in the source, the same triggers are there and enabled, and the guards
hold (the application's role may not change evidence nor make a temporary table; the owner's change of
evidence is refused by its trigger).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
from psycopg import sql

__all__ = ["Copy", "DrillFailed", "Login", "Rehearsal", "Snapshot", "compare_counts", "count_rows", "create_database",
           "drop_database", "drop_role", "dump", "guards_refusals", "manage", "rehearse", "restore", "triggers"]

MANAGE = Path(__file__).resolve().parent.parent / "manage.py"


class DrillFailed(Exception):
    """A step of the procedure failed: the message says which, in words."""


@dataclass(frozen=True)
class Login:
    """One PostgreSQL login to one database (what a ``postgres://`` URL says)."""

    user: str
    database: str
    host: str = "127.0.0.1"
    port: str = "5432"
    password: str = field(default="", repr=False)

    @classmethod
    def from_settings(cls, entry: dict[str, Any]) -> Login:
        return cls(user=str(entry.get("USER") or ""), database=str(entry["NAME"]), host=str(entry.get("HOST") or
                   "127.0.0.1"), port=str(entry.get("PORT") or "5432"), password=str(entry.get("PASSWORD") or ""))

    def on(self, database: str) -> Login:
        return replace(self, database=database)

    def url(self) -> str:
        secret = f":{quote(self.password, safe='')}" if self.password else ""
        return f"postgres://{quote(self.user, safe='')}{secret}@{self.host}:{self.port}/{quote(self.database, safe='')}"

    def libpq(self) -> dict[str, str]:
        """For pg_dump and pg_restore: the password in the environment, never on a command line."""
        found = {"PGHOST": self.host, "PGPORT": self.port, "PGUSER": self.user, "PGDATABASE": self.database}
        return {**found, "PGPASSWORD": self.password} if self.password else found

    def connect(self, *, autocommit: bool = True) -> psycopg.Connection[Any]:
        return psycopg.connect(host=self.host, port=self.port, user=self.user, password=self.password or None,
                               dbname=self.database, autocommit=autocommit, connect_timeout=10)


@dataclass
class Snapshot:
    """What one database holds: each table's rows, and its triggers (table, name, enabled: ``O`` is on)."""

    counts: dict[str, int]
    triggers: set[tuple[str, str, str]]


@dataclass
class Copy:
    """A restored copy: its owner's login and its application role's."""

    owner: Login
    application: Login


def _tables(cursor: Any) -> list[str]:
    cursor.execute("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                   "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname")
    return [row[0] for row in cursor.fetchall()]


def _one(cursor: Any, query: Any) -> Any:
    cursor.execute(query)
    return cursor.fetchone()[0]


def count_rows(cursor: Any) -> dict[str, int]:
    """Every table of the application's schema (from the catalog, not the models) and its exact row count."""
    return {table: int(_one(cursor, sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))))
            for table in _tables(cursor)}


def triggers(cursor: Any) -> set[tuple[str, str, str]]:
    cursor.execute("SELECT c.relname, t.tgname, t.tgenabled FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                   "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() "
                   "AND NOT t.tgisinternal")
    return {(table, name, str(enabled)) for table, name, enabled in cursor.fetchall()}


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise DrillFailed(f"{name} is not installed (Debian: apt-get install postgresql-client-15)")
    return found


def _run(command: list[str], env: dict[str, str], what: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)  # noqa: S603 - our own tools
    if done.returncode != 0:
        raise DrillFailed(f"{what} failed (exit {done.returncode}): {(done.stderr or done.stdout).strip()[-2000:]}")
    return done


def dump(source: Login, path: Path) -> Snapshot:
    """``pg_dump -Fc`` of ``source`` into ``path``, and the counts and triggers of the very snapshot it dumped."""
    with source.connect(autocommit=False) as connection, connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        exported = _one(cursor, "SELECT pg_export_snapshot()")
        counted = Snapshot(count_rows(cursor), triggers(cursor))
        # The snapshot lives as long as this transaction: pg_dump must finish before it ends.
        _run([_tool("pg_dump"), "--format=custom", f"--snapshot={exported}", f"--file={path}"],
             {**os.environ, **source.libpq()}, f"pg_dump of {source.database}")
        connection.rollback()
    return counted


def create_database(maintenance: Login, name: str) -> None:
    """A new, empty database owned by the login that creates it (it needs CREATEDB)."""
    with maintenance.connect() as connection:
        connection.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8'").format(sql.Identifier(name)))


def drop_database(maintenance: Login, name: str) -> None:
    with maintenance.connect() as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def drop_role(maintenance: Login, role: str) -> None:
    """A role made for a copy only, once the copy is dropped (roles belong to the whole server)."""
    with maintenance.connect() as connection:
        connection.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def restore(path: Path, owner: Login) -> None:
    """Step 2: everything but ownership and grants, in one transaction, owned by ``owner``."""
    _run([_tool("pg_restore"), "--no-owner", "--no-acl", "--single-transaction", "--exit-on-error",
          f"--dbname={owner.database}", str(path)], {**os.environ, **owner.libpq()}, f"pg_restore into {owner.database}")


def manage(copy: Copy, *arguments: str) -> subprocess.CompletedProcess[str]:
    """``manage.py <arguments>`` against the copy, as production runs it: ``DATABASE_OWNER_URL`` the owner's,
    ``DATABASE_URL`` the application role's; everything else (``AUDIT_CHAIN_KEY`` among it) as this process has it."""
    env = {**os.environ, "DATABASE_OWNER_URL": copy.owner.url(), "DATABASE_URL": copy.application.url()}
    return subprocess.run([sys.executable, str(MANAGE), *arguments], env=env, capture_output=True,  # noqa: S603
                          text=True, check=False, cwd=MANAGE.parent)


def compare_counts(source: dict[str, int], restored: dict[str, int]) -> tuple[list[tuple[str, str, str, bool]], int]:
    """One row a table (table, source rows, restored rows, equal) and how many differ; a table missing on one
    side prints as "missing"."""
    rows, differing = [], 0
    for table in sorted(source.keys() | restored.keys()):
        left, right = source.get(table), restored.get(table)
        equal = left == right
        differing += not equal
        rows.append((table, "missing" if left is None else f"{left:,}", "missing" if right is None else f"{right:,}",
                     equal))
    return rows, differing


@contextmanager
def _refused(found: list[str], what: str) -> Iterator[None]:
    """The statement inside must raise; if it does not, ``what`` is a finding (and nothing is kept)."""
    try:
        yield
    except psycopg.Error:
        return
    found.append(what)


class _Rollback(Exception):
    pass


def guards_refusals(copy: Copy, append_only: list[str]) -> list[str]:
    """Step 3 left the guards standing: the application may not change evidence nor make a temporary table, and
    the owner's change of evidence is refused by its trigger. Returns what was *not* refused, in words."""
    found: list[str] = []
    with copy.owner.connect() as owner, owner.cursor() as cursor:
        present = set(_tables(cursor))
        evidence = [t for t in append_only if t in present]
        if not evidence:
            return ["no append-only table is in the copy"]
        written = [t for t in evidence if _one(cursor, sql.SQL("SELECT EXISTS (SELECT FROM {})").format(
            sql.Identifier(t)))]
        table = (written or evidence)[0]
        try:
            with owner.transaction():
                if not written:  # nothing to change: a trigger on rows cannot be seen to fire
                    raise _Rollback
                with _refused(found, f"the owner changed a row of {table}: its append-only trigger is missing"):
                    cursor.execute(sql.SQL("UPDATE {t} SET id = id WHERE id = (SELECT min(id) FROM {t})").format(
                        t=sql.Identifier(table)))
                raise _Rollback
        except _Rollback:
            pass
    with copy.application.connect() as application:
        with _refused(found, f"the application's role may UPDATE {table}"):
            application.execute(sql.SQL("UPDATE {} SET id = id WHERE false").format(sql.Identifier(table)))
        with _refused(found, "the application's role may create a temporary table"):
            application.execute("CREATE TEMPORARY TABLE restore_drill_probe (x integer)")
    return found


@dataclass
class Rehearsal:
    """What one drill found: the row counts side by side, and every problem in words (none: the drill passed)."""

    rows: list[tuple[str, str, str, bool]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    verification: str = ""
    seconds: dict[str, float] = field(default_factory=dict)


def rehearse(source: Copy, copy: Copy, *, append_only: list[str], workdir: Path) -> Rehearsal:
    """Dump ``source``, restore it as ``copy`` (a database that must not exist yet; the caller drops it) by the
    documented procedure, and check it. Raises :class:`DrillFailed` when a step of the procedure itself fails."""
    found = Rehearsal()
    clock = _Clock(found.seconds)
    with clock("dump"):
        before = dump(source.owner, workdir / f"{source.owner.database}.dump")
    with clock("restore"):
        create_database(source.owner, copy.owner.database)
        restore(workdir / f"{source.owner.database}.dump", copy.owner)
    with clock("db_roles --migrate"):
        done = manage(copy, "db_roles", "--migrate", "--verbosity", "0")
        if done.returncode != 0:
            raise DrillFailed(f"db_roles --migrate on the copy failed: {(done.stderr or done.stdout).strip()[-2000:]}")
    with clock("compare"), copy.owner.connect() as connection, connection.cursor() as cursor:
        after = Snapshot(count_rows(cursor), triggers(cursor))
    found.rows, differing = compare_counts(before.counts, after.counts)
    if differing:
        found.problems.append(f"{differing} table(s) hold a different number of rows in the copy")
    for table, name, _ in sorted(before.triggers - after.triggers):
        found.problems.append(f"trigger {name} on {table} is missing or not enabled as in the source")
    found.problems += [f"the copy's own trigger {name} on {table}" for table, name, _ in after.triggers - before.triggers]
    found.problems += [f"{name} on {table} is disabled in the copy" for table, name, on in after.triggers if on != "O"]
    with clock("guards"):
        found.problems += guards_refusals(copy, append_only)
    with clock("verify_audit_chain"):
        verified = manage(copy, "verify_audit_chain")
    found.verification = "\n".join(part.strip() for part in (verified.stderr, verified.stdout) if part.strip())
    if verified.returncode != 0:
        found.problems.append(f"verify_audit_chain on the copy: exit {verified.returncode}, not intact")
    return found


class _Clock:
    def __init__(self, into: dict[str, float]) -> None:
        self.into = into

    @contextmanager
    def __call__(self, step: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.into[step] = self.into.get(step, 0.0) + time.monotonic() - started
