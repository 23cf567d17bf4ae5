"""Every ledger line and redemption is sealed in its own INSERT (issue 21): ``seal`` is required (rows that
had none are sealed first), NOT NULL and never empty on PostgreSQL; on SQLite a trigger refuses an insert
without one. The linker no longer seals anything late."""

from django.db import migrations

from compliance.migration_ops import sealed_column


class Migration(migrations.Migration):
    dependencies = [("coupons", "0017_range_follows_the_ledger"), ("compliance", "0011_sealed_evidence_and_anchors")]

    operations = sealed_column("coupons", ["ledgerline", "redemption"], ["historicalledgerline", "historicalredemption"])
