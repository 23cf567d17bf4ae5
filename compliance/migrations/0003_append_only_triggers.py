"""On PostgreSQL the database itself refuses to change or delete signatures and audit events.

The models refuse too; the triggers cover raw SQL, other clients and future code. (TRUNCATE, used
only by test teardown, is not a row operation and is not blocked.)
"""

from django.db import migrations

TABLES = ["compliance_signature", "compliance_auditevent"]

FUNCTION = """
CREATE OR REPLACE FUNCTION compliance_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% rows are append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(FUNCTION, params=None)
    for table in TABLES:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION compliance_refuse_change()"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
    schema_editor.execute("DROP FUNCTION IF EXISTS compliance_refuse_change()")


class Migration(migrations.Migration):
    dependencies = [("compliance", "0002_roles_departments_games_system_user")]

    operations = [migrations.RunPython(forwards, backwards)]
