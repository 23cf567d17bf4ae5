"""Dice left on a closed table: which games' dice clock runs while the table is closed.

§ 675a.3(b)(1) (High Roll Dice), § 668a.3(b)(1) (Props & Hops) and § 575.2(c)(1)(i) (Asia Poker)
say dice placed in the shaker "may not remain on a table for more than 24 hours": open or closed.
§ 577.4(d) (Three Dice Football: "changed at least once every 24 hours", a new set on reopening)
and § 539.2(b) (Sic Bo: "may not be used for the play of the game for more than 24 hours") are
read as counting time open for gaming only.
"""

from typing import Any

from django.db import migrations

CLOCK_RUNS_WHILE_CLOSED = ("high-roll-dice", "props-and-hops", "asia-poker")


def set_flag(apps: Any, schema_editor: Any) -> None:
    requirement_model = apps.get_model("equipment", "EquipmentRequirement")
    for requirement in requirement_model.objects.filter(game__code__in=CLOCK_RUNS_WHILE_CLOSED):
        requirement.clock_runs_while_closed = True
        requirement.save(update_fields=["clock_runs_while_closed"])


def clear_flag(apps: Any, schema_editor: Any) -> None:
    requirement_model = apps.get_model("equipment", "EquipmentRequirement")
    for requirement in requirement_model.objects.filter(clock_runs_while_closed=True):
        requirement.clock_runs_while_closed = False
        requirement.save(update_fields=["clock_runs_while_closed"])


class Migration(migrations.Migration):
    dependencies = [("equipment", "0003_removal_corrections_closed_clock_sessions")]

    operations = [migrations.RunPython(set_flag, clear_flag)]
