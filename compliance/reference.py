"""Reference data every deployment has: roles, departments, the games of Subpart K, the system account.

Migration ``0002`` creates it through :func:`seed_reference_data` with the historical models; the same
function, given the live app registry, restores it where a test run's database flush removed it
(:func:`ensure_reference_data`). Other apps add their own seeders to :data:`REFERENCE_SEEDERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["DEPARTMENTS", "GAMES", "REFERENCE_SEEDERS", "ROLES", "ensure_reference_data", "seed_reference_data"]

ROLES = [
    "finance_staff",
    "finance_supervisor",
    "marketing_staff",
    "marketing_supervisor",
    "dealer",
    "floorperson",
    "shift_manager",
    "surveillance",
    "compliance_officer",
    "board_inspector",
    "administrator",
]

DEPARTMENTS = [
    ("finance", "Finance"),
    ("marketing", "Marketing"),
    ("table_games", "Table Games"),
    ("surveillance", "Surveillance"),
    ("security", "Security"),
    ("compliance", "Compliance"),
]

# (code, name, chapter of 58 Pa. Code as in the texts this system carries, banking).
# Games whose chapters are not among those texts are listed for the rules that name them
# (§ 525.22(c), § 577.9(c)) and leave the chapter blank.
GAMES = [
    ("three-dice-football", "Three Dice Football", "577", True),
    ("high-roll-dice", "High Roll Dice", "675a", True),
    ("props-and-hops", "Props & Hops", "668a", True),
    ("sic-bo", "Sic Bo", "539", True),
    ("asia-poker", "Asia Poker", "575", True),
    ("craps", "Craps", "", True),
    ("mini-craps", "Mini-Craps", "", True),
    ("roulette", "Roulette", "", True),
    ("blackjack", "Blackjack", "", True),
    ("baccarat", "Baccarat", "", True),
    ("midibaccarat", "Midibaccarat", "", True),
    ("pai-gow", "Pai Gow", "", True),
]


def seed_reference_data(apps: Any, schema_editor: Any = None) -> None:
    group_model = apps.get_model("auth", "Group")
    user_model = apps.get_model("auth", "User")
    department_model = apps.get_model("compliance", "Department")
    game_model = apps.get_model("compliance", "Game")
    for name in ROLES:
        group_model.objects.get_or_create(name=name)
    for code, name in DEPARTMENTS:
        department_model.objects.get_or_create(code=code, defaults={"name": name})
    for code, name, chapter, banking in GAMES:
        game_model.objects.get_or_create(code=code, defaults={"name": name, "chapter": chapter, "banking": banking})
    # Acts for scheduled work (Celery beat); it cannot sign in: its password is unusable.
    user_model.objects.get_or_create(
        username="system", defaults={"password": "!system-account-no-login", "is_active": False}
    )


REFERENCE_SEEDERS: list[Callable[[Any], None]] = [seed_reference_data]


def ensure_reference_data() -> None:
    """Recreate reference data if it is missing (one query when it is all there)."""
    from django.apps import apps
    from django.contrib.auth.models import Group

    from compliance.models import Game

    if Group.objects.filter(name__in=ROLES).count() == len(ROLES) and Game.objects.exists():
        return
    for seeder in REFERENCE_SEEDERS:
        seeder(apps)
