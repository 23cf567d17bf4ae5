from django.db import migrations

from compliance.staffing.reference import seed_staffing_rules


class Migration(migrations.Migration):
    dependencies = [("staffing", "0001_initial"), ("compliance", "0009_integer_bounds")]

    operations = [migrations.RunPython(seed_staffing_rules, migrations.RunPython.noop)]
