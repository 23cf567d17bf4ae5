"""The keyed hash chain (issue 9): each ledger line sealed at insert (see compliance 0007).

Nullable so SQLite adds the column in place (a rebuilt table would lose its append-only triggers).
"""

from django.db import migrations, models

SEAL = models.CharField(
    blank=True,
    editable=False,
    help_text="HMAC-SHA256 of the row's content under the audit chain key (empty: inserted before sealing)",
    max_length=64,
    null=True,
)


class Migration(migrations.Migration):
    dependencies = [("coupons", "0007_reversals_and_form_corrections")]

    operations = [
        migrations.AddField(model_name="historicalledgerline", name="seal", field=SEAL),
        migrations.AddField(model_name="ledgerline", name="seal", field=SEAL),
    ]
