"""The keyed hash chain (issue 9): a seal on every signature and audit event, and the chain's links.

Rows already there keep an empty seal: the linker seals them when it first links them and keeps
that seal in the link (``late_seals``). The seal column is nullable so SQLite adds it in place
(a rebuilt table would lose its append-only triggers).
"""

import django.utils.timezone
from django.db import migrations, models

SEAL = models.CharField(
    blank=True,
    editable=False,
    help_text="HMAC-SHA256 of the row's content under the audit chain key (empty: inserted before sealing)",
    max_length=64,
    null=True,
)


class Migration(migrations.Migration):
    dependencies = [("compliance", "0005_facility_gaming_day_start")]

    operations = [
        migrations.AddField(model_name="auditevent", name="seal", field=SEAL),
        migrations.AddField(model_name="signature", name="seal", field=SEAL),
        migrations.CreateModel(
            name="ChainLink",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("chain", models.CharField(help_text="The label of the sealed model", max_length=100)),
                ("sequence", models.PositiveBigIntegerField()),
                ("previous", models.CharField(blank=True, help_text="link_hash of the previous link", max_length=64)),
                ("link_hash", models.CharField(max_length=64)),
                ("ids", models.TextField(help_text="Ids of the rows covered, as runs (1-250,252)")),
                ("first_id", models.BigIntegerField()),
                ("last_id", models.BigIntegerField()),
                ("row_count", models.PositiveIntegerField()),
                ("floor", models.BigIntegerField(default=0)),
                ("late_seals", models.JSONField(blank=True, default=dict)),
                ("linked_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
            options={
                "ordering": ["chain", "sequence"],
                "indexes": [models.Index(fields=["chain", "last_id"], name="chain_link_last_id")],
                "constraints": [
                    models.UniqueConstraint(fields=("chain", "sequence"), name="chain_link_sequence_once")
                ],
            },
        ),
    ]
