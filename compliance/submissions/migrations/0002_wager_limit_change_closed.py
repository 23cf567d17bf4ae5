"""On PostgreSQL a wager limit change is final once it leaves "scheduled" (in force, cancelled or not applied):
the database refuses to change it, and refuses to delete any. The model refuses too; the trigger covers raw SQL."""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION submissions_refuse_closed_limit_change() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'wager limit changes are never deleted' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.state <> 'scheduled' THEN
        RAISE EXCEPTION 'wager limit change % is %: it can no longer change', OLD.id, OLD.state
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""
TABLE = "submissions_wagerlimitchange"


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(FUNCTION, params=None)
    schema_editor.execute(f"CREATE TRIGGER {TABLE}_closed BEFORE UPDATE OR DELETE ON {TABLE} "
                          "FOR EACH ROW EXECUTE FUNCTION submissions_refuse_closed_limit_change()")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_closed ON {TABLE}")
    schema_editor.execute("DROP FUNCTION IF EXISTS submissions_refuse_closed_limit_change()")


class Migration(migrations.Migration):
    dependencies = [("submissions", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]
