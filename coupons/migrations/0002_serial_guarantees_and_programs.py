"""What the database itself guarantees about serial numbers, and the program types.

* Open ``CouponRange`` rows of one series never share a serial: every serial is in exactly one state.
* Received ranges (ledger lines of kind ``receive``) of one series never share a serial: a serial is
  received once.
* Ledger lines are append-only.

PostgreSQL: exclusion constraints over ``int8range(first, last, '[]')`` with ``&&`` (btree_gist for
the ``series_id WITH =`` part) and the foundation's append-only trigger function. SQLite (the
embedded default): triggers that raise on the same conditions.
"""

from django.contrib.postgres.operations import BtreeGistExtension
from django.db import migrations

from coupons.reference import seed_coupon_programs

PG_FORWARD = [
    """ALTER TABLE coupons_couponrange ADD CONSTRAINT coupon_range_open_no_overlap
       EXCLUDE USING gist (series_id WITH =, int8range(first_serial, last_serial, '[]') WITH &&)
       WHERE (closed_by_id IS NULL)""",
    """ALTER TABLE coupons_ledgerline ADD CONSTRAINT coupon_received_once
       EXCLUDE USING gist (series_id WITH =, int8range(first_serial, last_serial, '[]') WITH &&)
       WHERE (kind = 'receive')""",
    """CREATE TRIGGER coupons_ledgerline_append_only BEFORE UPDATE OR DELETE ON coupons_ledgerline
       FOR EACH ROW EXECUTE FUNCTION compliance_refuse_change()""",
]
PG_BACKWARD = [
    "DROP TRIGGER IF EXISTS coupons_ledgerline_append_only ON coupons_ledgerline",
    "ALTER TABLE coupons_ledgerline DROP CONSTRAINT IF EXISTS coupon_received_once",
    "ALTER TABLE coupons_couponrange DROP CONSTRAINT IF EXISTS coupon_range_open_no_overlap",
]

SQLITE_FORWARD = [
    """CREATE TRIGGER coupon_range_open_no_overlap_insert BEFORE INSERT ON coupons_couponrange
       WHEN NEW.closed_by_id IS NULL AND EXISTS (
         SELECT 1 FROM coupons_couponrange r WHERE r.series_id = NEW.series_id AND r.closed_by_id IS NULL
           AND r.first_serial <= NEW.last_serial AND NEW.first_serial <= r.last_serial)
       BEGIN SELECT RAISE(ABORT, 'coupon_range_open_no_overlap: serials already in another state'); END""",
    """CREATE TRIGGER coupon_range_open_no_overlap_update BEFORE UPDATE ON coupons_couponrange
       WHEN NEW.closed_by_id IS NULL AND EXISTS (
         SELECT 1 FROM coupons_couponrange r WHERE r.series_id = NEW.series_id AND r.closed_by_id IS NULL
           AND r.id <> NEW.id AND r.first_serial <= NEW.last_serial AND NEW.first_serial <= r.last_serial)
       BEGIN SELECT RAISE(ABORT, 'coupon_range_open_no_overlap: serials already in another state'); END""",
    """CREATE TRIGGER coupon_received_once BEFORE INSERT ON coupons_ledgerline
       WHEN NEW.kind = 'receive' AND EXISTS (
         SELECT 1 FROM coupons_ledgerline l WHERE l.series_id = NEW.series_id AND l.kind = 'receive'
           AND l.first_serial <= NEW.last_serial AND NEW.first_serial <= l.last_serial)
       BEGIN SELECT RAISE(ABORT, 'coupon_received_once: serials already received'); END""",
    """CREATE TRIGGER coupons_ledgerline_no_update BEFORE UPDATE ON coupons_ledgerline
       BEGIN SELECT RAISE(ABORT, 'coupons_ledgerline rows are append-only: UPDATE refused'); END""",
    """CREATE TRIGGER coupons_ledgerline_no_delete BEFORE DELETE ON coupons_ledgerline
       BEGIN SELECT RAISE(ABORT, 'coupons_ledgerline rows are append-only: DELETE refused'); END""",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS coupon_range_open_no_overlap_insert",
    "DROP TRIGGER IF EXISTS coupon_range_open_no_overlap_update",
    "DROP TRIGGER IF EXISTS coupon_received_once",
    "DROP TRIGGER IF EXISTS coupons_ledgerline_no_update",
    "DROP TRIGGER IF EXISTS coupons_ledgerline_no_delete",
]


def forwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": PG_FORWARD, "sqlite": SQLITE_FORWARD}.get(vendor, [])
    for sql in statements:
        schema_editor.execute(sql, params=None)


def backwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": PG_BACKWARD, "sqlite": SQLITE_BACKWARD}.get(vendor, [])
    for sql in statements:
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("coupons", "0001_initial"),
        ("compliance", "0003_append_only_triggers"),
    ]

    operations = [
        BtreeGistExtension(),
        migrations.RunPython(forwards, backwards),
        migrations.RunPython(seed_coupon_programs, migrations.RunPython.noop),
    ]
