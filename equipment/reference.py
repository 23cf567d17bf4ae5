"""Reference data of the equipment logs: what each game's table needs, as data.

The next game is a row here (and a data migration), not new code. Migration ``0002`` seeds it; the
same seeder is registered in ``compliance.reference.REFERENCE_SEEDERS`` so a test run's database
flush restores it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REQUIREMENTS", "seed_equipment_requirements"]

# Readings recorded in docs/equipment.md. "new_dice_on_reopen" is the express rule of § 577.4(d)
# for Three Dice Football; the issue extends it to every dice game as an internal control.
REQUIREMENTS: list[dict[str, Any]] = [
    {
        "game": "three-dice-football",
        "dice_count": 6,
        "dice_colours": "4 green, 2 red",
        "container": "dice_cup",
        "dice_citation": "577.4(a), (d)",
        "notes": "Set of four green and two red dice at the table; the stickperson keeps the dice not in "
        "active play in a dice cup (§ 577.4(a)). Changed at least every 24 hours; new set on reopening, "
        "lost die, tampering, marking or damage (§ 577.4(d)).",
    },
    {
        "game": "high-roll-dice",
        # § 675a.3(b)(1): the dice "may not remain on a table for more than 24 hours", open or closed.
        "clock_runs_while_closed": True,
        "dice_count": 10,
        "variation_dice_count": 6,
        "die_size_mm": 19,
        "container": "shaker",
        "dice_citation": "675a.3(b)(1)",
        "notes": "Ten 19 mm dice (six in the variation, § 675a.6(e)) in an approved shaker bearing the "
        "facility's name or logo (§ 675a.3(b)(2)); at most 24 hours on a table (§ 675a.3(b)(1)).",
    },
    {
        "game": "props-and-hops",
        # § 668a.3(b)(1): the dice "may not remain on a table for more than 24 hours", open or closed.
        "clock_runs_while_closed": True,
        "dice_count": 2,
        "container": "shaker",
        "dice_citation": "668a.3(b)(1)",
        "notes": "Two dice in a shaker; the floorperson places them in the shaker in the dealer's presence "
        "(§ 668a.3(d)); at most 24 hours on a table (§ 668a.3(b)(1)).",
    },
    {
        "game": "sic-bo",
        "dice_count": 3,
        "container": "shaker",
        "dice_citation": "539.2(b)",
        "opening_inspection_required": True,
        "inspection_citation": "539.5(a)(1)–(2)",
        "notes": "Three dice kept in the shaker at the table (§ 539.2(a)); not used more than 24 hours "
        "(§ 539.2(b)). Electrical device and automated shaker inspected before opening (§ 539.5(a)).",
    },
    {
        "game": "asia-poker",
        # § 575.2(c)(1)(i): the dice "may not remain on a table for more than 24 hours", open or closed.
        "clock_runs_while_closed": True,
        "dice_count": 3,
        "container": "shaker",
        "dice_citation": "575.2(c)(1)(i)",
        # § 575.2(c) allows a shaker, a random number generator or a flat button: each table records its
        # method (TableDiceMethod); a shaker table needs dice in play to open, the others none.
        "dice_required_to_open": False,
        "dice_method_per_table": True,
        "uses_decks": True,
        "max_decks": 2,
        "deck_hand_hours": 4,
        "deck_shoe_hours": 8,
        "deck_citation": "575.3(c)(1)–(2)",
        "notes": "Shaker with three dice, at most 24 hours on a table (§ 575.2(c)(1)(i)); one deck with one "
        "joker, or two decks of different back colours alternated with an automated shuffler (§ 575.3(a)–(b)); "
        "changed every 4 hours by hand, 8 hours from a shoe (§ 575.3(c)); inspection verified (§ 575.4(a)).",
    },
]


def seed_equipment_requirements(apps: Any, schema_editor: Any = None) -> None:
    game_model = apps.get_model("compliance", "Game")
    requirement_model = apps.get_model("equipment", "EquipmentRequirement")
    # Migration 0002 runs this with the model as it was then: fields added later (set by their own
    # data migration, e.g. 0004) are left out.
    known = {f.name for f in requirement_model._meta.get_fields()}
    for row in REQUIREMENTS:
        values = {k: v for k, v in row.items() if k in known or k == "game"}
        game = game_model.objects.filter(code=values.pop("game")).first()
        if game is not None:
            requirement_model.objects.get_or_create(game=game, defaults=values)
