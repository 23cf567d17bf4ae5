from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.module_loading import import_string

from compliance.actors import acting_as, system_user
from compliance.demo import demo_seed
from compliance.registry import demo_seeders


class Command(BaseCommand):
    help = ("Create a demo facility, one person per role and tables of each game; prints new passwords and "
            "TOTP secrets once.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--reset-passwords", action="store_true", help="Give every demo person a new password")
        parser.add_argument("--all", action="store_true",
                            help="Then every app's demo data, as each app declares it in its apps.py (make run)")

    def handle(self, *args: Any, **options: Any) -> None:
        with acting_as(system_user()):
            facility, logins = demo_seed(reset_passwords=options["reset_passwords"])
        self.stdout.write(self.style.SUCCESS(f"Demo facility: {facility.name} ({facility.code})"))
        if options["all"]:
            self._apps_demo(facility)
        if not logins:
            self.stdout.write(
                "Demo people already exist; run `python manage.py seed_demo --reset-passwords` for new passwords."
            )
            return
        self.stdout.write("Demo logins (shown once; store them now). Supervisors, shift managers, compliance, the")
        self.stdout.write("inspector and the administrator also type the 6-digit code of an authenticator app set up")
        self.stdout.write("with their TOTP secret (any authenticator app, or `oathtool --totp -b SECRET`):")
        self.stdout.write(f"  {'username':<13} {'password':<17} {'TOTP secret':<33} role — name")
        for login in logins:
            self.stdout.write(f"  {login.username:<13} {login.password:<17} {login.totp_secret or '-':<33} "
                              f"{login.role} — {login.full_name}")

    def _apps_demo(self, facility: Any) -> None:
        """Each app's declared demo seeders (compliance.registry), by stage then app order; each is idempotent."""
        for config, seeder in demo_seeders():
            made = import_string(seeder.function)(facility=facility)  # each acts as whom it says
            words = ("already there" if made is None else "nothing added" if made == 0
                     else f"{made} added" if isinstance(made, int) else str(made))
            self.stdout.write(f"  {config.verbose_name} demo ({seeder.function.rsplit('.', 1)[-1]}): {words}")
