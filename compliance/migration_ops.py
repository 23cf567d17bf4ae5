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

__all__ = ["AlterFieldIndex", "PostgresSQL", "SqliteSQL", "sealed_column"]


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


class AlterFieldIndex(migrations.AlterField):
    """``AlterField`` whose only change is the field's ``db_index``: the one-column index is dropped or made and
    nothing else is touched. Django's own ``AlterField`` would, on PostgreSQL, drop the field's foreign key and add
    it again (validating every row of a table that holds a year of redemptions, under lock), and on SQLite rebuild
    the table, which drops the triggers the migrations installed on it (issue 27)."""

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        self._index(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        self._index(app_label, schema_editor, from_state, to_state)

    def _index(self, app_label: str, schema_editor: Any, before: Any, after: Any) -> None:
        from django.db import models

        model = after.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        old = before.apps.get_model(app_label, self.model_name)._meta.get_field(self.name)
        new = model._meta.get_field(self.name)
        if schema_editor._field_should_be_altered(old, new, ignore={"db_index"}):
            raise ValueError(f"AlterFieldIndex changes only db_index: {self.model_name}.{self.name} changes more")
        if old.db_index and not new.db_index:
            declared = {index.name for index in model._meta.indexes}
            for name in schema_editor._constraint_names(model, [old.column], index=True, type_=models.Index.suffix,
                                                        exclude=declared):
                schema_editor.execute(schema_editor._delete_index_sql(model, name))
        elif new.db_index and not old.db_index:
            schema_editor.execute(schema_editor._create_index_sql(model, fields=[new]))

    def describe(self) -> str:
        return f"Index of {self.model_name}.{self.name} dropped or made (db_index)"


def sealed_column(app_label: str, models_sealed: list[str], history_models: list[str]) -> list[Any]:
    """The operations that make ``seal`` required on sealed tables (issue 21): rows that still have none are
    sealed first (with the seal their chain link kept, or anew); then, on PostgreSQL, the column is NOT NULL
    and never empty; on SQLite (where changing a column rebuilds the table and drops its triggers) a
    trigger refuses an insert without one. History tables only widen the column (their old rows keep theirs).
    """
    from django.db import models

    field: models.CharField[str, str] = models.CharField(
        editable=False, max_length=100,
        help_text="The key's id and the HMAC-SHA256 of the row's content under that audit chain key")
    tables = [f"{app_label}_{name}" for name in models_sealed]
    history_tables = [f"{app_label}_{name}" for name in history_models]
    pg: list[Any] = [f'ALTER TABLE public."{t}" ALTER COLUMN seal TYPE varchar(100), ALTER COLUMN seal SET NOT NULL, '
          f"ADD CONSTRAINT \"{t}_sealed\" CHECK (seal <> '')" for t in tables]
    pg += [f'ALTER TABLE public."{t}" ALTER COLUMN seal TYPE varchar(100)' for t in history_tables]
    pg_reverse: list[Any] = [f'ALTER TABLE public."{t}" DROP CONSTRAINT IF EXISTS "{t}_sealed", ALTER COLUMN seal DROP NOT NULL'
                  for t in tables]
    sqlite: list[Any] = [f'CREATE TRIGGER "{t}_sealed" BEFORE INSERT ON "{t}" WHEN NEW.seal IS NULL OR NEW.seal = \'\' '
              f"BEGIN SELECT RAISE(ABORT, '{t}: a row is sealed in its own INSERT'); END" for t in tables]
    return [
        migrations.RunPython(_seal_unsealed(app_label, models_sealed), migrations.RunPython.noop),
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.AlterField(model_name=name, name="seal", field=field)
                              for name in [*models_sealed, *history_models]],
            database_operations=[PostgresSQL(sql=pg, reverse_sql=pg_reverse),
                                 SqliteSQL(sql=sqlite, reverse_sql=[f'DROP TRIGGER IF EXISTS "{t}_sealed"'
                                                                    for t in tables])],
        ),
    ]


def _seal_unsealed(app_label: str, model_names: list[str]) -> Any:
    def forwards(apps: Any, schema_editor: Any) -> None:
        for name in model_names:
            _seal_rows_of(apps, schema_editor, apps.get_model(app_label, name))

    return forwards


def _seal_rows_of(apps: Any, schema_editor: Any, model: Any) -> None:
    """Seal a table's rows that have no seal: with the seal their (scheme 1) chain link kept, else anew.
    The table's own triggers are set aside for the UPDATE (the owner runs migrations)."""
    from django.db.models import Q

    from compliance.models.chain import Sealed, canonical
    from compliance.seal_keys import seal_of

    unsealed = list(model._base_manager.filter(Q(seal__isnull=True) | Q(seal="")).order_by("pk"))
    if not unsealed:
        return
    late: dict[str, str] = {}
    for kept in apps.get_model("compliance", "ChainLink").objects.filter(chain=model._meta.label).values_list(
            "late_seals", flat=True):
        late.update(kept or {})
    table, connection = model._meta.db_table, schema_editor.connection
    saved = _set_aside_triggers(connection, table)
    with connection.cursor() as cursor:
        for row in unsealed:
            seal = late.get(str(row.pk)) or seal_of(canonical(Sealed.sealed_content(row)))
            cursor.execute(f'UPDATE "{table}" SET seal = %s WHERE id = %s', [seal, row.pk])  # noqa: S608
    _restore_triggers(connection, table, saved)


def _set_aside_triggers(connection: Any, table: str) -> list[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f'ALTER TABLE "{table}" DISABLE TRIGGER USER')
            return []
        cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s", [table])
        triggers = cursor.fetchall()
        for name, _ in triggers:
            cursor.execute(f'DROP TRIGGER "{name}"')
        return [sql for _, sql in triggers]


def _restore_triggers(connection: Any, table: str, saved: list[str]) -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f'ALTER TABLE "{table}" ENABLE TRIGGER USER')
        for sql in saved:
            cursor.execute(sql)
