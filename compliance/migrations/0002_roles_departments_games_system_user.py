"""Roles as groups, the departments, the games of Subpart K and the ``system`` service account."""

from django.db import migrations

from compliance.reference import seed_reference_data


class Migration(migrations.Migration):
    dependencies = [("compliance", "0001_initial"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunPython(seed_reference_data, migrations.RunPython.noop)]
