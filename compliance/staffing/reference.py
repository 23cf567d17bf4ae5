"""The staffing and surveillance rules the regulations set, as rows (§ 577.9 for Three Dice Football).

The next game's rules are rows here (and a data migration), not new code. Migration ``0002`` seeds them;
the same seeder is registered in ``compliance.reference.REFERENCE_SEEDERS`` so a test run's database flush
restores them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CAMERA_RULES", "SPAN_RULES", "STAFFING_RULES", "seed_staffing_rules"]

# § 577.9(b): "three dealers for each Three Dice Football table, one of whom shall act as the stickperson".
# Reading: the stickperson is one of the three dealers, so the three count every dealer position.
STAFFING_RULES: list[dict[str, Any]] = [
    {"game": "three-dice-football", "code": "three-dealers", "positions": "dealer,stickperson,boxperson",
     "minimum": 3, "words": "three dealers at the table", "clause": "577.9(b)"},
    {"game": "three-dice-football", "code": "stickperson", "positions": "stickperson", "minimum": 1,
     "words": "one of the dealers acting as stickperson", "clause": "577.9(b)"},
    # § 577.9(c) limits what "a floorperson" supervising a Three Dice Football table may also supervise: it
    # presupposes one. Reading: a floorperson is placed over every open Three Dice Football table.
    {"game": "three-dice-football", "code": "floorperson", "positions": "floorperson", "minimum": 1,
     "words": "a floorperson supervising the table", "clause": "577.9(c)"},
]

# § 577.9(a): "at least two stationary cameras for each Three Dice Football table. One camera must cover each
# end of the table."
CAMERA_RULES: list[dict[str, Any]] = [
    {"game": "three-dice-football", "minimum": 2, "each_end": True, "clause": "577.9(a)"},
]

# § 577.9(c): "A floorperson may not supervise more than two Three Dice Football tables or one Three Dice
# Football table and one table of any other banking table game excluding Baccarat, Midibaccarat, Craps,
# Mini-Craps and Pai Gow." Reading: at most two tables in all; of them at most one of another game, which
# must be a banking game not in the list.
SPAN_RULES: list[dict[str, Any]] = [
    {"game": "three-dice-football", "max_tables": 2, "max_other_tables": 1, "other_must_be_banking": True,
     "excluded": ["baccarat", "midibaccarat", "craps", "mini-craps", "pai-gow"], "clause": "577.9(c)"},
]


def seed_staffing_rules(apps: Any, schema_editor: Any = None) -> None:
    game_model = apps.get_model("compliance", "Game")
    games = {g.code: g for g in game_model.objects.all()}
    staffing = apps.get_model("staffing", "StaffingRule")
    cameras = apps.get_model("staffing", "CameraRule")
    spans = apps.get_model("staffing", "SpanRule")
    for row in STAFFING_RULES:
        if row["game"] in games:
            staffing.objects.get_or_create(game=games[row["game"]], code=row["code"], defaults={
                k: v for k, v in row.items() if k not in {"game", "code"}})
    for row in CAMERA_RULES:
        if row["game"] in games:
            cameras.objects.get_or_create(game=games[row["game"]], defaults={
                k: v for k, v in row.items() if k != "game"})
    for row in SPAN_RULES:
        if row["game"] in games:
            span, created = spans.objects.get_or_create(game=games[row["game"]], defaults={
                k: v for k, v in row.items() if k not in {"game", "excluded"}})
            if created:
                span.excluded_games.set([games[code] for code in row["excluded"] if code in games])
