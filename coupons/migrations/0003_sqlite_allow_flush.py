"""SQLite: drop the DELETE trigger on ledger lines.

SQLite has no TRUNCATE, so Django's ``flush`` (used by transactional tests and ``manage.py flush``)
deletes rows, and the trigger refused it. The model still refuses to delete a ledger line, and
UPDATE stays refused by trigger; PostgreSQL keeps its trigger for both (its flush truncates).
"""

from django.db import migrations


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP TRIGGER IF EXISTS coupons_ledgerline_no_delete", params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(
            "CREATE TRIGGER coupons_ledgerline_no_delete BEFORE DELETE ON coupons_ledgerline "
            "BEGIN SELECT RAISE(ABORT, 'coupons_ledgerline rows are append-only: DELETE refused'); END",
            params=None,
        )


class Migration(migrations.Migration):
    dependencies = [("coupons", "0002_serial_guarantees_and_programs")]

    operations = [migrations.RunPython(forwards, backwards)]
