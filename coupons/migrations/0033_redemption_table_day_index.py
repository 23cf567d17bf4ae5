"""A table's redemptions are read by gaming day (issue 27): the index (table, redeemed_at) becomes (table, gaming_date,
redeemed_at), the new one built before the old one goes, so the table's foreign key is never without an index that
begins with it. DROP INDEX and CREATE INDEX only: on SQLite no table is rebuilt (its triggers stay)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("coupons", "0032_redemption_keys_unindexed"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="redemption",
            index=models.Index(fields=["table", "gaming_date", "redeemed_at"], name="coupon_redemption_table_day"),
        ),
        migrations.RemoveIndex(
            model_name="redemption",
            name="coupon_redemption_table",
        ),
    ]
