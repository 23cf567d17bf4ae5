"""The redemption benchmark's database and processes: production settings logged in as the application
role, a fresh database migrated by its owner (``db_roles``), and Django children run as separate processes."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "IDLE_RATE",
    "LANES",
    "PER_LANE",
    "PG_HOSTPORT",
    "PROFILE_LANE",
    "PYTHON",
    "ROOT",
    "SHARED_LANE",
    "TARGET_P99_MS",
    "TARGET_RATE",
    "URL_PATH",
    "child",
    "child_answer",
    "create_database",
    "database_exists",
    "drop_database_and_role",
    "owner_dsn",
    "production_env",
]

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "bench" / "redemption_bench.py"
PYTHON = sys.executable
URL_PATH = "/api/v1/coupons/redemptions/"
TARGET_RATE, TARGET_P99_MS = 300.0, 50.0
IDLE_RATE = 10.0  # a rate far below capacity: the latency of a redemption with no queue in front of it
LANES, PER_LANE = 64, 4000  # coupons distributed today in open ranges of 4,000: 64 for the load,
PROFILE_LANE, SHARED_LANE = LANES, LANES + 1  # one for the in-process query count, one scanned from many tables
PG_OWNER = "postgres"
PG_HOSTPORT = "127.0.0.1:5432"
_MARK = "@@bench@@ "


def production_env(database: str, **extra: str) -> dict[str, str]:
    """Production settings, logged in as the application role."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_OWNER_URL", "REDIS_URL", "DEBUG"}}
    env.update({
        "DJANGO_SETTINGS_MODULE": "compliance.settings",
        "DJANGO_ENV": "production",
        "SECRET_KEY": _SECRETS["secret_key"],
        "AUDIT_CHAIN_KEY": _SECRETS["audit_chain_key"],
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"postgres://{database}_app@{PG_HOSTPORT}/{database}",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "LOG_LEVEL": "WARNING",
        "STATIC_ROOT": str(ROOT / "var" / "bench" / "static"),  # collectstatic's place; the API serves none
        "PYTHONPATH": str(ROOT),
        # Production refuses to start without a broker (compliance/settings.py). A Redis database of the bench's
        # own: the cache and the broker as production has them; no worker reads it, a redemption enqueues nothing.
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13"),
        # One scanner token at hundreds of scans a second is what the API's limit exists to refuse (600 a
        # minute, coupons/api/throttling.py): the bench measures the redemption's capacity, not that policy.
        "API_THROTTLE_TOKEN": "off",
        "API_THROTTLE_USER": "off",
    })
    env.update(extra)
    return env


_SECRETS = {"secret_key": secrets.token_urlsafe(48), "audit_chain_key": secrets.token_urlsafe(32)}


def owner_dsn(database: str) -> str:
    return f"postgresql://{PG_OWNER}@{PG_HOSTPORT}/{database}"


def _drop_database(database: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(owner_dsn("postgres"), autocommit=True) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database)))


def drop_database_and_role(database: str) -> None:
    import psycopg
    from psycopg import sql

    _drop_database(database)
    with psycopg.connect(owner_dsn("postgres"), autocommit=True) as connection:
        connection.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(f"{database}_app")))


def create_database(database: str) -> None:
    import psycopg
    from psycopg import sql

    _drop_database(database)
    with psycopg.connect(owner_dsn("postgres"), autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    owner_url = f"postgres://{PG_OWNER}@{PG_HOSTPORT}/{database}"
    subprocess.run([PYTHON, "manage.py", "db_roles", "--migrate", "-v", "0"], cwd=ROOT, check=True,
                   env=production_env(database, DATABASE_OWNER_URL=owner_url), stdout=subprocess.DEVNULL)


def collect_static(database: str) -> None:
    """``collectstatic`` into the bench's STATIC_ROOT, as a deployment does before it starts gunicorn: production's
    web worker refuses to start without the manifest (compliance/wsgi.py). The API serves no static file."""
    subprocess.run([PYTHON, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, check=True,
                   env=production_env(database), stdout=subprocess.DEVNULL)


def analyze(database: str) -> None:
    """Statistics for the planner, as autovacuum keeps them on a database in service (a freshly seeded one has
    none, and the planner then guesses one row per table)."""
    import psycopg

    with psycopg.connect(owner_dsn(database), autocommit=True) as connection:
        connection.execute("ANALYZE")


def child(database: str, mode: str, *args: str) -> dict[str, Any]:
    """Run this script in a Django process of its own (production settings, the application role)."""
    environment = production_env(database, FAST_PASSWORD_HASHER="1")  # noqa: S106 - a switch: signing checks passwords
    command = [PYTHON, str(SCRIPT), *(args or [f"--child-{mode}"]), "--database", database]
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False)
    for line in result.stdout.splitlines():
        if line.startswith(_MARK):
            return dict(json.loads(line[len(_MARK):]))
    raise SystemExit(f"{mode} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}")


def database_exists(database: str) -> bool:
    import psycopg

    with psycopg.connect(owner_dsn("postgres"), autocommit=True) as connection:
        return bool(connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone())




def child_answer(answer: dict[str, Any]) -> None:
    """What a child prints for :func:`child` to read."""
    print(_MARK + json.dumps(answer), flush=True)
