"""What each game's table needs, as data: the next game is a row, not code."""

from django.db import migrations

from equipment.reference import seed_equipment_requirements


class Migration(migrations.Migration):
    dependencies = [("equipment", "0001_initial"), ("compliance", "0002_roles_departments_games_system_user")]

    operations = [migrations.RunPython(seed_equipment_requirements, migrations.RunPython.noop)]
