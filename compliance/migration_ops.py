"""Migration operations for what the database itself guarantees: SQL that runs on one vendor only.

Triggers and functions are schema, reviewed like any other change: they live in migrations as literal
SQL with its reverse (``PostgresSQL``), never in a ``post_migrate`` receiver. The embedded SQLite default
has its own, smaller set of triggers (``SqliteSQL``).

``manage.py db_guards --makemigrations`` writes the migration for the guards the models declare
(:mod:`compliance.db_guards`); ``tests/compliance/test_database_guarantees.py`` fails while a declared
guard is missing from the migrated database.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

__all__ = ["PostgresSQL", "SqliteSQL"]


class _VendorSQL(migrations.RunSQL):
    vendor = ""

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor == self.vendor:
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor == self.vendor:
            super().database_backwards(app_label, schema_editor, from_state, to_state)

    def describe(self) -> str:
        return f"Raw SQL on {self.vendor} only"


class PostgresSQL(_VendorSQL):
    """``RunSQL`` that runs on PostgreSQL only (the embedded SQLite default skips it)."""

    vendor = "postgresql"


class SqliteSQL(_VendorSQL):
    """``RunSQL`` that runs on SQLite only."""

    vendor = "sqlite"
