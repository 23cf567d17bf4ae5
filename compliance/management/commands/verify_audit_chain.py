"""``manage.py verify_audit_chain``: walk every chain and every signed record; non-zero exit on any break.

Prints the first broken link of each chain and each altered record (a row no longer matching its
keyed seal, a signed record no longer matching its signatures). ``--link`` first joins waiting rows
to their chains (the beat job does so every minute).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from compliance.chain import chain_head, chain_link_all, chain_verify


class Command(BaseCommand):
    help = "Verify the keyed hash chain and every signed record; exits non-zero on any break."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--link", action="store_true", help="link waiting rows before verifying")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["link"]:
            chain_link_all()
        report = chain_verify()
        *found, summary = report.lines()
        for line in found:
            self.stderr.write(line)
        self.stdout.write(summary)
        if not report.intact:
            raise CommandError(f"audit chain broken: {len(report.broken)} broken link(s), "
                               f"{len(report.altered)} altered record(s)")
        self.stdout.write(f"chain head: {chain_head(link_first=False)}")
