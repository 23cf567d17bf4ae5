"""Every report file is sealed in its own INSERT (issue 21): ``seal`` is required, NOT NULL and never empty."""

from django.db import migrations

from compliance.migration_ops import sealed_column


class Migration(migrations.Migration):
    dependencies = [("reports", "0002_db_guards"), ("compliance", "0011_sealed_evidence_and_anchors")]

    operations = sealed_column("reports", ["reportfile"], [])
