"""Roles as groups, the departments, the games of Subpart K and the ``system`` service account."""

from django.db import migrations

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


def forwards(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    User = apps.get_model("auth", "User")
    Department = apps.get_model("compliance", "Department")
    Game = apps.get_model("compliance", "Game")
    for name in ROLES:
        Group.objects.get_or_create(name=name)
    for code, name in DEPARTMENTS:
        Department.objects.get_or_create(code=code, defaults={"name": name})
    for code, name, chapter, banking in GAMES:
        Game.objects.get_or_create(code=code, defaults={"name": name, "chapter": chapter, "banking": banking})
    if not User.objects.filter(username="system").exists():
        # Acts for scheduled work (Celery beat); it cannot sign in: its password is unusable.
        User.objects.create(username="system", password="!system-account-no-login", is_active=False)


class Migration(migrations.Migration):
    dependencies = [("compliance", "0001_initial"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
