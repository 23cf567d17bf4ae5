import django.db.models.deletion
from django.db import migrations, models

from compliance.migration_ops import PostgresSQL, SqliteSQL

FULL = "coupons_redemption_drop_count_id_6fa43cd9"  # the foreign key's index as Django named it (0012)
PARTIAL = "coupon_redemption_counted"
ON = "coupons_redemption (drop_count_id)"


class Migration(migrations.Migration):
    """The redemptions' index on their drop count holds only the rows that have one (issue 27).

    A coupon cancelled at the drop-box count (§ 525.22(h)) names its count; one scanned at a table, nearly every row
    of a year, names none. The foreign key's full index took an entry for each of them all the same, at every scan:
    one of the nine indexes a redemption's insert writes. Partial, it holds the count's rows alone and still serves
    every lookup by a count (a count's redemptions, and the foreign key's check when a count would be deleted: an
    equality implies the column is not null).

    On PostgreSQL both indexes are built and dropped ``CONCURRENTLY`` (so not in a transaction): an upgrade runs with
    the floor scanning (docs/operations.md, "Upgrade"), and building an index on a year of redemptions the plain way
    would hold every scan for as long as it reads the table. The new index is made before the old one goes, so a
    count's lookup always has one."""

    atomic = False
    dependencies = [("coupons", "0035_scanner_revocation_serializes")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="redemption",
                    name="drop_count",
                    field=models.ForeignKey(blank=True, db_index=False, null=True,
                                            on_delete=django.db.models.deletion.PROTECT, related_name="redemptions",
                                            to="coupons.dropcount"),
                ),
                migrations.AddIndex(
                    model_name="redemption",
                    index=models.Index(condition=models.Q(("drop_count__isnull", False)), fields=["drop_count"],
                                       name=PARTIAL),
                ),
            ],
            database_operations=[
                PostgresSQL(
                    sql=[f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {PARTIAL} ON {ON} WHERE drop_count_id IS NOT NULL",
                         f"DROP INDEX CONCURRENTLY IF EXISTS {FULL}"],
                    reverse_sql=[f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {FULL} ON {ON}",
                                 f"DROP INDEX CONCURRENTLY IF EXISTS {PARTIAL}"],
                ),
                SqliteSQL(
                    sql=[f"CREATE INDEX IF NOT EXISTS {PARTIAL} ON {ON} WHERE drop_count_id IS NOT NULL",
                         f"DROP INDEX IF EXISTS {FULL}"],
                    reverse_sql=[f"CREATE INDEX IF NOT EXISTS {FULL} ON {ON}", f"DROP INDEX IF EXISTS {PARTIAL}"],
                ),
            ],
        ),
    ]
