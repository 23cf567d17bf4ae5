# The gaming day's start as a callable default (compliance.models.facility.default_gaming_day_start): no database change.

import compliance.models.facility
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('compliance', '0022_auditevent_keys_unindexed'),
    ]

    operations = [
        migrations.AlterField(
            model_name='facility',
            name='gaming_day_starts_at',
            field=models.TimeField(default=compliance.models.facility.default_gaming_day_start, help_text="When the facility's gaming day begins, on its own clock (it ends just before this time the next morning); records are dated by the gaming day, not the calendar date"),
        ),
        migrations.AlterField(
            model_name='historicalfacility',
            name='gaming_day_starts_at',
            field=models.TimeField(default=compliance.models.facility.default_gaming_day_start, help_text="When the facility's gaming day begins, on its own clock (it ends just before this time the next morning); records are dated by the gaming day, not the calendar date"),
        ),
    ]
