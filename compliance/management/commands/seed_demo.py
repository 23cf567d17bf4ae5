from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from compliance.actors import acting_as, system_user
from compliance.demo import demo_seed


class Command(BaseCommand):
    help = ("Create a demo facility, one person per role and tables of each game; prints new passwords and "
            "TOTP secrets once.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--reset-passwords", action="store_true", help="Give every demo person a new password")

    def handle(self, *args: Any, **options: Any) -> None:
        with acting_as(system_user()):
            facility, logins = demo_seed(reset_passwords=options["reset_passwords"])
        self.stdout.write(self.style.SUCCESS(f"Demo facility: {facility.name} ({facility.code})"))
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
