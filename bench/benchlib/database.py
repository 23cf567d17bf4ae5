"""A database of the benchmark's own: a temporary SQLite file, or ``BENCH_DATABASE_URL`` (PostgreSQL,
created if missing). Sets the environment Django reads before it starts."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["configure", "create_postgres_database", "drop_postgres_database", "fresh_postgres_database", "server_sql"]


def configure(name: str) -> str:
    """The database URL the bench runs on, with the settings a bench needs (no Redis, mail kept in memory,
    fast password hashing); ``name`` labels the temporary SQLite directory."""
    url = os.environ.get("BENCH_DATABASE_URL", "")
    if not url:
        url = f"sqlite:///{Path(tempfile.mkdtemp(prefix=f'{name}-bench-')) / 'bench.sqlite3'}"
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")
    os.environ["FAST_PASSWORD_HASHER"] = "1"  # noqa: S105 - a switch, not a password
    os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"
    os.environ.pop("REDIS_URL", None)
    if url.startswith("postgres"):
        create_postgres_database(url)
    return url


def create_postgres_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    base, _, name = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def server_sql(sql_text: str) -> None:
    """One statement on the server of ``DATABASE_URL``, through its ``postgres`` database (creating or dropping)."""
    import psycopg

    base = os.environ["DATABASE_URL"].rpartition("/")[0]
    with psycopg.connect(f"{base}/postgres", autocommit=True) as connection:
        connection.execute(sql_text)


def drop_postgres_database(name: str) -> None:
    server_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def fresh_postgres_database(name: str) -> None:
    """``name`` made anew and migrated (Django set up on it already)."""
    from django.core.management import call_command

    drop_postgres_database(name)
    server_sql(f'CREATE DATABASE "{name}"')
    call_command("migrate", verbosity=0)
