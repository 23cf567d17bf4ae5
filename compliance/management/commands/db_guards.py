"""``manage.py db_guards``: compare the guards the models declare with the migrated database; write the
migrations that install what is missing (PostgreSQL).

``--check`` exits non-zero while anything declared is missing or differs (the test suite runs the same
comparison). ``--makemigrations`` writes one migration per app with something missing: literal SQL with
its reverse, reviewed like any schema change. Run it after ``migrate`` on a development database.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from compliance.guards_installed import guard_differences, write_migrations


class Command(BaseCommand):
    help = "Check the database guards the models declare; write the migrations installing the missing ones."

    def add_arguments(self, parser: CommandParser) -> None:
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--check", action="store_true", help="exit non-zero when a declared guard is missing")
        group.add_argument("--makemigrations", action="store_true", help="write the migrations for what is missing")

    def handle(self, *args: Any, check: bool = False, makemigrations: bool = False, **options: Any) -> None:
        if connection.vendor != "postgresql":
            self.stdout.write("Embedded SQLite: the database guards are PostgreSQL's.")
            return
        differences = guard_differences()
        for line in differences.lines():
            self.stdout.write(line)
        if makemigrations:
            for path in write_migrations(differences):
                self.stdout.write(self.style.SUCCESS(f"wrote {path}"))
            return
        if differences:
            message = f"{len(differences.lines())} guard(s) missing or different: run manage.py db_guards --makemigrations"
            if check:
                raise CommandError(message)
            self.stdout.write(message)
        else:
            self.stdout.write(self.style.SUCCESS("Every declared guard is installed."))
