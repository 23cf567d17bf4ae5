"""Typed readers for environment variables that fail loudly on a bad value.

Modelled on healthchecks' ``envbool``: a misspelt ``DEBUG=ture`` must stop the
process at start-up, not silently mean ``False`` in a regulated system.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

__all__ = ["SQLITE_OPTIONS", "ImproperlyConfiguredEnv", "env_bool", "env_database", "env_int", "env_list", "env_rate",
           "env_str", "parse_rate"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ImproperlyConfiguredEnv(ValueError):
    """An environment variable holds a value the settings cannot use."""


def env_str(name: str, default: str | None = None, *, required: bool = False) -> str:
    """``name`` from the environment, or — a secret kept out of the environment (systemd credentials, Docker or
    Kubernetes secrets) — from the file ``name_FILE`` names, its one line without the line end."""
    value = os.environ.get(name)
    path = os.environ.get(f"{name}_FILE")
    if (value is None or value == "") and path:
        try:
            value = Path(path).read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as error:
            raise ImproperlyConfiguredEnv(f"{name}_FILE={path!r} cannot be read: {error.strerror}") from None
    elif value and path:
        raise ImproperlyConfiguredEnv(f"{name} and {name}_FILE are both set: keep one")
    if value is None or value == "":
        if required:
            raise ImproperlyConfiguredEnv(f"{name} must be set")
        return default if default is not None else ""
    return value


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfiguredEnv(f"{name}={raw!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off")


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfiguredEnv(f"{name}={raw!r} is not a whole number") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfiguredEnv(f"{name}={value} is below the minimum of {minimum}")
    if maximum is not None and value > maximum:
        raise ImproperlyConfiguredEnv(f"{name}={value} is above the maximum of {maximum}")
    return value


_PERIODS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hour": 3600,
            "d": 86400, "day": 86400}


def parse_rate(rate: str) -> tuple[int, int] | None:
    """``"600/min"`` → ``(600, 60)``: at most that many requests in each period (s, min, hour, day); ``"off"``
    → ``None``, no limit. ``ValueError`` in words on anything else."""
    text = rate.strip().lower()
    if text == "off":
        return None
    count, _, period = text.partition("/")
    if not count.isdigit() or not count.isascii() or int(count) < 1 or period not in _PERIODS:
        raise ValueError(f"{rate!r} is not a rate: write it as requests/period, e.g. 600/min (period s, min, hour or "
                         "day), or off")
    return int(count), _PERIODS[period]


def env_rate(name: str, default: str) -> str:
    """A request rate such as ``600/min``, or ``off`` (:func:`parse_rate`), checked at start-up."""
    value = os.environ.get(name, "").strip() or default
    try:
        parse_rate(value)
    except ValueError as error:
        raise ImproperlyConfiguredEnv(f"{name}: {error}") from None
    return value


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default or [])
    return [item.strip() for item in raw.split(",") if item.strip()]


# The embedded SQLite is written by the web server and `make run`'s Celery worker at once: write-ahead logging lets
# readers go on beside a writer, every transaction takes the write lock when it begins (IMMEDIATE: two writers
# wait their turn instead of one failing "database is locked" when it upgrades a read), and a writer waits up to
# 30 seconds for the lock.
SQLITE_OPTIONS: dict[str, object] = {
    "timeout": 30,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
}


def _sqlite(path: str) -> dict[str, object]:
    return {"ENGINE": "django.db.backends.sqlite3", "NAME": path, "OPTIONS": dict(SQLITE_OPTIONS)}


def env_database(name: str, default_sqlite_path: str) -> dict[str, object]:
    """Parse ``postgres://user:pass@host:port/db`` or ``sqlite:///path`` into a Django DATABASES entry."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return _sqlite(default_sqlite_path)
    parts = urlsplit(raw)
    if parts.scheme == "sqlite":
        path = unquote(parts.path)
        if path.startswith("//"):
            path = path[1:]
        elif path.startswith("/"):
            path = path[1:] or default_sqlite_path
        return _sqlite(path or default_sqlite_path)
    if parts.scheme in {"postgres", "postgresql", "pgsql"}:
        if not parts.path.strip("/"):
            raise ImproperlyConfiguredEnv(f"{name} names no database: add /<dbname> to the URL")
        options: dict[str, Any] = dict(parse_qsl(parts.query))
        # Server-side prepared statements for the hot paths that ask for them (compliance.raw_reads); Django's
        # own cursors bind on the client and never prepare. psycopg's default threshold; 0 prepares at once.
        threshold = str(options.pop("prepare_threshold", "5"))
        options["prepare_threshold"] = int(threshold) if threshold.isdigit() else None
        try:
            port = parts.port
        except ValueError:
            raise ImproperlyConfiguredEnv(f"{name} has an invalid port") from None
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parts.path.lstrip("/")),
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(port or ""),
            "OPTIONS": options,
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    raise ImproperlyConfiguredEnv(
        f"{name}={raw!r}: unsupported scheme {parts.scheme!r}; use postgres://… or sqlite:///…"
    )


def env_admins(name: str) -> list[tuple[str, str]]:
    """``"Ann Lee <ann@casino.example>, it-oncall@casino.example"`` as Django's ``ADMINS``: (name, address) pairs."""
    found = []
    for item in (part.strip() for part in env_str(name).split(",")):
        if not item:
            continue
        if "<" in item and item.endswith(">"):
            person, address = item[:-1].split("<", 1)
            found.append((person.strip() or address.strip(), address.strip()))
        else:
            found.append((item, item))
    for _, address in found:
        if "@" not in address or " " in address:
            raise ImproperlyConfiguredEnv(f"{name}: {address!r} is not an e-mail address")
    return found
