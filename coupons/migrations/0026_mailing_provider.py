"""The mailing's register of gaming service providers is the register of *mailing providers* (issue 24): a name of
its own, apart from chapter 528's certified gaming related gaming service providers (``compliance.providers``).
A rename of the table and of its history table; no row changes."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('coupons', '0025_mailing_jobs_are_jobs'),
    ]

    operations = [
        migrations.RenameModel('ServiceProvider', 'MailingProvider'),
        migrations.RenameModel('HistoricalServiceProvider', 'HistoricalMailingProvider'),
        migrations.AlterModelOptions(
            name='historicalmailingprovider',
            options={'get_latest_by': ('history_date', 'history_id'), 'ordering': ('-history_date', '-history_id'),
                     'verbose_name': 'historical mailing provider', 'verbose_name_plural': 'historical mailing providers'},
        ),
    ]
