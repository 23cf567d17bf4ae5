"""Settings: typed environment readers fail loudly; production passes `check --deploy` cleanly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compliance.env import ImproperlyConfiguredEnv, env_bool, env_database, env_int

ROOT = Path(__file__).resolve().parents[2]


def test_env_bool_refuses_a_misspelt_value(monkeypatch):
    monkeypatch.setenv("FLAG", "ture")
    with pytest.raises(ImproperlyConfiguredEnv, match="not a boolean"):
        env_bool("FLAG")
    monkeypatch.setenv("FLAG", "Yes")
    assert env_bool("FLAG") is True


def test_env_int_refuses_words_and_values_below_minimum(monkeypatch):
    monkeypatch.setenv("PORT", "twenty")
    with pytest.raises(ImproperlyConfiguredEnv, match="whole number"):
        env_int("PORT", 1)
    monkeypatch.setenv("PORT", "0")
    with pytest.raises(ImproperlyConfiguredEnv, match="minimum"):
        env_int("PORT", 1, minimum=1)


def test_database_url_parsing(monkeypatch):
    monkeypatch.delenv("DB", raising=False)
    assert env_database("DB", "/tmp/x.sqlite3")["ENGINE"] == "django.db.backends.sqlite3"
    monkeypatch.setenv("DB", "postgres://alice:s%40cret@db.local:6543/casino")
    parsed = env_database("DB", "unused")
    assert (parsed["NAME"], parsed["USER"], parsed["PASSWORD"], parsed["HOST"], parsed["PORT"]) == (
        "casino",
        "alice",
        "s@cret",
        "db.local",
        "6543",
    )
    monkeypatch.setenv("DB", "mysql://x/y")
    with pytest.raises(ImproperlyConfiguredEnv, match="unsupported scheme"):
        env_database("DB", "unused")


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DJANGO_ENV", "DEBUG", "SECRET_KEY", "FAST_PASSWORD_HASHER", "DJANGO_ALLOW_ASYNC_UNSAFE",
                     "DATABASE_OWNER_URL"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


PRODUCTION = {
    "DJANGO_ENV": "production",
    "SECRET_KEY": "k" * 20 + "-production-secret-for-the-check-only-" + "z" * 20,
    "ALLOWED_HOSTS": "compliance.example.com",
    "DATABASE_URL": "sqlite:////tmp/check-deploy.sqlite3",
    "AUDIT_CHAIN_KEY": "c" * 40,
    "REDIS_URL": "redis://127.0.0.1:6379/15",
}


def test_production_mode_passes_check_deploy_with_zero_warnings():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize("moment", ["2026-11-30T05:59:55+00:00", "2026-11-30T06:00:00+00:00",
                                    "2026-11-30T06:00:07+00:00"])
def test_check_deploy_has_no_time_of_day_in_it(moment):
    """Django warns (fields.W161) of a fixed time default within ten seconds of the clock: with the gaming day's
    start a fixed 06:00, `check --deploy --fail-level WARNING` failed when CI ran it at 06:00 UTC (30 Nov 2026)."""
    import time_machine

    from compliance.models import Facility

    history: Any = Facility.history.model  # simple_history's model
    with time_machine.travel(moment, tick=False):
        found = [m for model in (Facility, history)
                 for m in model._meta.get_field("gaming_day_starts_at").check()]
    assert not found, found
    assert Facility().gaming_day_starts_at.isoformat() == "06:00:00"


def test_production_mode_requires_the_audit_chain_key():
    result = _manage("check", **{**PRODUCTION, "AUDIT_CHAIN_KEY": ""})
    assert result.returncode != 0
    assert "AUDIT_CHAIN_KEY must be set" in result.stderr


def test_production_mode_refuses_to_start_without_a_broker():
    result = _manage("check", **{**PRODUCTION, "REDIS_URL": ""})
    assert result.returncode != 0
    assert "REDIS_URL must be set in production" in result.stderr


def test_production_mode_refuses_the_development_secret_key():
    result = _manage("check", **{**PRODUCTION, "SECRET_KEY": ""})
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_the_owner_and_the_application_must_share_one_database():
    result = _manage(
        "check", DATABASE_URL="postgres://app@127.0.0.1:5432/casino", DATABASE_OWNER_URL="postgres://owner@127.0.0.1:5432/other"
    )
    assert result.returncode != 0
    assert "must name the same database" in result.stderr


def test_history_rows_are_indexed_in_production_too():
    """The receiver that indexes each history row in the audit trail outlives start-up with DEBUG off.
    (It was once connected with ``@signal.connect``, which returns None: the weakly held receiver died at
    once in production, and every single-row save went unindexed.)"""
    code = (
        "import gc, weakref; from django.core.management import execute_from_command_line as _; import django; "
        "django.setup(); gc.collect(); "
        "from simple_history.signals import post_create_historical_record as s; "
        "from compliance.signals import index_history_row as f; "
        "live = [r() if isinstance(r, weakref.ReferenceType) else r for _, r, *__ in s.receivers]; "
        "print('live' if callable(f) and f in live else 'dead')"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DATABASE_OWNER_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env = {**clean, **PRODUCTION, "DJANGO_SETTINGS_MODULE": "compliance.settings"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "live", done.stderr[-2000:]


def test_the_embedded_sqlite_lets_the_web_server_and_the_worker_write_side_by_side(monkeypatch, tmp_path):
    """Write-ahead log, the write lock taken when a transaction begins, and a wait for it: not "database is
    locked" when `make run`'s worker writes while a page does."""
    monkeypatch.delenv("DB", raising=False)
    options = env_database("DB", str(tmp_path / "x.sqlite3"))["OPTIONS"]
    assert options == {"timeout": 30, "transaction_mode": "IMMEDIATE",
                       "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"}
    monkeypatch.setenv("DB", f"sqlite:///{tmp_path}/y.sqlite3")
    assert env_database("DB", "unused")["OPTIONS"] == options


def _celery_settings(**env: str) -> subprocess.CompletedProcess[str]:
    code = ("from django.conf import settings as s; print(s.CELERY_BROKER_URL); print(s.CELERY_TASK_ALWAYS_EAGER); "
            "print(s.CACHES['default']['BACKEND']); print(s.CELERY_BROKER_TRANSPORT_OPTIONS)")
    clean = {k: v for k, v in os.environ.items()
             if k not in {"DATABASE_URL", "DATABASE_OWNER_URL", "REDIS_URL", "EMBEDDED_WORKER", "DJANGO_ENV"}}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**clean, "DJANGO_SETTINGS_MODULE": "compliance.settings", **env})


def test_make_runs_worker_uses_a_sqlite_broker_under_var_and_nothing_runs_eagerly(tmp_path):
    done = _celery_settings(EMBEDDED_WORKER="1", VAR_DIR=str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    broker, eager, cache, options = done.stdout.splitlines()
    assert broker == f"sqla+sqlite:///{tmp_path.resolve()}/celery-broker.sqlite3"
    assert eager == "False"
    assert cache.endswith("FileBasedCache")  # the worker's writes seen by the web server's process
    assert "visibility_timeout" not in options  # the SQLAlchemy transport hands its options to create_engine


def test_without_a_broker_tasks_run_eagerly_and_redis_still_means_redis(tmp_path):
    plain = _celery_settings(VAR_DIR=str(tmp_path)).stdout.splitlines()
    assert plain[:2] == ["memory://", "True"]
    redis = _celery_settings(VAR_DIR=str(tmp_path), REDIS_URL="redis://127.0.0.1:6379/3").stdout.splitlines()
    assert redis[:2] == ["redis://127.0.0.1:6379/3", "False"]
    both = _celery_settings(VAR_DIR=str(tmp_path), REDIS_URL="redis://127.0.0.1:6379/3", EMBEDDED_WORKER="1")
    assert both.returncode != 0
    assert "unset it to use REDIS_URL" in both.stderr
