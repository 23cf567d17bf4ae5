"""Who works now is found by the assignments' end (issue 27): an index on ``ends_at`` (NULL while working)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("staffing", "0005_internal_controls_and_floorperson"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="assignment",
            index=models.Index(fields=["ends_at"], name="assignment_ends_at"),
        ),
    ]
