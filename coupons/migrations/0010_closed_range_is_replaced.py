"""A coupon range row is closed only together with the rows that replace it (PostgreSQL).

``coupons.ledger.move_rows`` closes each touched row and, in the same transaction, opens rows for
the moved pieces and the untouched remainder. A constraint trigger, deferred to commit, checks that
the serials of every row closed in the transaction are covered, one for one, by open rows of the same
series (a row closed and replaced twice in one transaction is covered by the last replacements): a
received serial is never left in no state. Open rows never overlap (``coupon_range_open_no_overlap``),
so the overlap lengths add up to the closed row's size exactly when nothing is missing.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION coupons_closed_range_is_replaced() RETURNS trigger AS $$
DECLARE
    covered bigint;
BEGIN
    IF NEW.closed_by_id IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(sum(least(r.last_serial, NEW.last_serial) - greatest(r.first_serial, NEW.first_serial) + 1), 0)
      INTO covered
      FROM coupons_couponrange r
     WHERE r.series_id = NEW.series_id AND r.closed_by_id IS NULL
       AND int8range(r.first_serial, r.last_serial, '[]') && int8range(NEW.first_serial, NEW.last_serial, '[]');
    IF covered <> NEW.last_serial - NEW.first_serial + 1 THEN
        RAISE EXCEPTION 'coupon range #% (serials % to %) was closed without rows replacing it',
            NEW.id, NEW.first_serial, NEW.last_serial
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
"""

TRIGGER = """
CREATE CONSTRAINT TRIGGER coupons_closed_range_is_replaced
    AFTER UPDATE OF closed_by_id ON coupons_couponrange
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.closed_by_id IS NULL AND NEW.closed_by_id IS NOT NULL)
    EXECUTE FUNCTION coupons_closed_range_is_replaced()
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTION, params=None)
        schema_editor.execute(TRIGGER, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "DROP TRIGGER IF EXISTS coupons_closed_range_is_replaced ON coupons_couponrange", params=None
        )
        schema_editor.execute("DROP FUNCTION IF EXISTS coupons_closed_range_is_replaced()", params=None)


class Migration(migrations.Migration):
    dependencies = [("coupons", "0009_ledger_line_seal")]

    operations = [migrations.RunPython(forwards, backwards)]
