"""``manage.py archive_year --year 2025``: move a closed year's audit events and history rows into the archive.

Run as the database's owner (``DATABASE_OWNER_URL=… manage.py archive_year --year 2025``), after the year has
ended and its rows are linked; then ``verify_audit_chain`` proves the chain whole, archived rows included.
What it does and why it opens no way to change a sealed row: :mod:`compliance.archive`, docs/operations.md
("Archive"). Running it again moves what is left of that year (nothing, once done). On the embedded SQLite it
says so and changes nothing.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from compliance.archive import ArchiveRefused, year_archive
from compliance.management.commands.db_roles import connected_as_owner


class Command(BaseCommand):
    help = "Move a closed year's audit events and history rows into the archive schema (PostgreSQL, as the owner)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--year", type=int, required=True, help="the year to archive (it must have ended)")

    def handle(self, *args: Any, year: int, **options: Any) -> None:
        app = connections["default"].settings_dict
        if app["ENGINE"] != "django.db.backends.postgresql":
            self.stdout.write("Embedded SQLite: every row stays in its table; the archive is PostgreSQL's "
                              "(docs/operations.md, \"Archive\"). Nothing was moved.")
            return
        role = str(app.get("USER") or "")
        try:
            with connected_as_owner():
                moved = year_archive(year=year, role=role, progress=self.stdout.write)
        except ArchiveRefused as refused:
            raise CommandError(str(refused)) from refused
        for table, count in moved.items():
            if count:
                self.stdout.write(f"{table}: {count:,} rows of {year} now in archive.{table}_{year}")
        self.stdout.write(self.style.SUCCESS(f"{sum(moved.values()):,} rows of {year} archived. Run verify_audit_chain: "
                                             "the chain reads them where they are now."))
