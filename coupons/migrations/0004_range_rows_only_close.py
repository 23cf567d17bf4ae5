"""The current-state rows may only be closed, once: their serials, state and opening never change.

A range is split by closing it and opening new rows, so history is never lost. PostgreSQL: a
trigger refuses any other UPDATE, and DELETE (test flushes TRUNCATE). SQLite: the same for UPDATE.
"""

from django.db import migrations

PG_FUNCTION = """
CREATE OR REPLACE FUNCTION coupons_range_only_close() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'coupon ranges are never deleted: close them' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.closed_by_id IS NOT NULL OR NEW.closed_by_id IS NULL
       OR NEW.first_serial <> OLD.first_serial OR NEW.last_serial <> OLD.last_serial
       OR NEW.state <> OLD.state OR NEW.series_id <> OLD.series_id OR NEW.opened_by_id <> OLD.opened_by_id THEN
        RAISE EXCEPTION 'a coupon range can only be closed, once' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""

SQLITE_TRIGGER = """
CREATE TRIGGER coupons_range_only_close BEFORE UPDATE ON coupons_couponrange
WHEN OLD.closed_by_id IS NOT NULL OR NEW.closed_by_id IS NULL
     OR NEW.first_serial <> OLD.first_serial OR NEW.last_serial <> OLD.last_serial
     OR NEW.state <> OLD.state OR NEW.series_id <> OLD.series_id OR NEW.opened_by_id <> OLD.opened_by_id
BEGIN SELECT RAISE(ABORT, 'a coupon range can only be closed, once'); END
"""


def forwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_FUNCTION, params=None)
        schema_editor.execute(
            "CREATE TRIGGER coupons_range_only_close BEFORE UPDATE OR DELETE ON coupons_couponrange "
            "FOR EACH ROW EXECUTE FUNCTION coupons_range_only_close()",
            params=None,
        )
    elif vendor == "sqlite":
        schema_editor.execute(SQLITE_TRIGGER, params=None)


def backwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute("DROP TRIGGER IF EXISTS coupons_range_only_close ON coupons_couponrange", params=None)
        schema_editor.execute("DROP FUNCTION IF EXISTS coupons_range_only_close()", params=None)
    elif vendor == "sqlite":
        schema_editor.execute("DROP TRIGGER IF EXISTS coupons_range_only_close", params=None)


class Migration(migrations.Migration):
    dependencies = [("coupons", "0003_sqlite_allow_flush")]

    operations = [migrations.RunPython(forwards, backwards)]
