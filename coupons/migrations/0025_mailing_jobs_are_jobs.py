"""The mailing's jobs are ``compliance.models.Job``s (issue 24): one set of status words with the reports' runs, so a
list read or screened is "succeeded" (it was "done"), and a list import has the job's ``error`` column too.

The history rows keep the word they were written with (history tables are append-only: they say what was so)."""

from django.db import migrations, models

JOBS = ("MailingScreening", "MailingListImport")


def _rename_status(old: str, new: str):
    def run(apps, schema_editor):
        for name in JOBS:
            apps.get_model("coupons", name).objects.filter(status=old).update(status=new)

    return run


class Migration(migrations.Migration):

    dependencies = [
        ('coupons', '0024_redeem_only_distributed'),
    ]

    operations = [
        migrations.AddField(
            model_name='historicalmailinglistimport',
            name='error',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='mailinglistimport',
            name='error',
            field=models.TextField(blank=True),
        ),
        migrations.AlterField(
            model_name='historicalmailinglistimport',
            name='status',
            field=models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='queued', max_length=10),
        ),
        migrations.AlterField(
            model_name='historicalmailingscreening',
            name='status',
            field=models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='queued', max_length=10),
        ),
        migrations.AlterField(
            model_name='mailinglistimport',
            name='status',
            field=models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='queued', max_length=10),
        ),
        migrations.AlterField(
            model_name='mailingscreening',
            name='status',
            field=models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='queued', max_length=10),
        ),
        migrations.RunPython(_rename_status("done", "succeeded"), _rename_status("succeeded", "done")),
    ]
