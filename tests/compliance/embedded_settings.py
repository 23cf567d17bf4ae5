"""Settings of the processes tests/compliance/test_embedded_worker.py starts: the project's own, with the tables
made straight from the models (``migrate --run-syncdb``, a few seconds) instead of replaying every migration on
SQLite (two minutes). What those processes test is the broker, the worker, beat and the web server, not the
migrations (the rest of the suite runs them)."""

from __future__ import annotations

from compliance.settings import *  # noqa: F403


class _NoMigrations(dict[str, None]):
    """Every app unmigrated: ``migrate --run-syncdb`` creates its tables from its models."""

    def __contains__(self, app_label: object) -> bool:
        return True

    def __getitem__(self, app_label: str) -> None:
        return None


MIGRATION_MODULES = _NoMigrations()
