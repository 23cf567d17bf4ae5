"""Existing rows under the rules of migration 0005.

* Asia Poker tables record how they determine the starting position (§ 575.2(c)).
* The register of dice: every set already put in play is registered, first placement first, so an
  identifier already used is refused from now on. Sets logged again with identifiers used before
  (what issue 8 found) are left unregistered: the first use is the one the register names.
"""

from typing import Any

from django.db import migrations

from equipment.identifiers import dice_key


def forwards(apps: Any, schema_editor: Any) -> None:
    requirement_model = apps.get_model("equipment", "EquipmentRequirement")
    for requirement in requirement_model.objects.filter(game__code="asia-poker"):
        requirement.dice_method_per_table = True
        requirement.save(update_fields=["dice_method_per_table"])
    dice_model = apps.get_model("equipment", "DiceSet")
    entry_model = apps.get_model("equipment", "DiceRegisterEntry")
    seen: set[tuple[int, str]] = set()
    for dice in dice_model.objects.filter(corrects__isnull=True).order_by("placed_at", "pk").iterator():
        key = (dice.facility_id, dice_key(dice.identifiers))
        if key in seen:
            continue
        seen.add(key)
        entry_model.objects.create(
            facility_id=dice.facility_id,
            key=key[1],
            identifiers=dice.identifiers,
            dice_set_id=dice.pk,
            registered_at=dice.placed_at,
        )


class Migration(migrations.Migration):
    dependencies = [("equipment", "0005_register_devices_dice_method")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
