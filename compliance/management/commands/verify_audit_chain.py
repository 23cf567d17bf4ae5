"""``manage.py verify_audit_chain``: verify every chain, sealed row and signed record; non-zero exit on any finding.

Prints each finding, naming the record it concerns (a forged signature names the record it signs; a changed
ledger line, its document), then a summary and the heads. ``--anchors FILE`` (repeatable) checks the heads
the Board received (the JSON attached to each anchor e-mail): a database that no longer passes through
one was rewritten, reordered or cut short before it, even by someone holding the key. ``--incremental``
verifies only what came since the last intact verification (the daily job); the weekly job is full.
Exit status: 0 intact, 1 something found or not finished, 3 another verification is running.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from compliance.chain import (
    AnchorsUnreadable,
    VerificationBusy,
    chain_head,
    chain_link_all,
    chain_verify,
    read_anchors,
    verification_record,
)


class Command(BaseCommand):
    help = "Verify the audit chains and every signed record; exits non-zero on any finding."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--link", action="store_true", help="link waiting rows before verifying")
        parser.add_argument("--incremental", action="store_true",
                            help="only what came since the last intact verification")
        parser.add_argument("--anchors", action="append", default=[], metavar="FILE",
                            help="a file of heads the Board received (anchor JSON); repeatable")
        parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                            help=f"stop after this long (default {settings.AUDIT_VERIFY_TIME_LIMIT_SECONDS} s)")
        parser.add_argument("--no-record", action="store_true", help="do not keep the result as a verification record")

    def _anchors(self, paths: list[str]) -> dict[str, dict[int, tuple[str, str]]]:
        held: dict[str, dict[int, tuple[str, str]]] = {}
        for path in paths:
            try:
                read = read_anchors(Path(path).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as error:
                raise CommandError(f"{path}: cannot be read ({error})") from None
            except AnchorsUnreadable as error:
                raise CommandError(f"{path}: {error}") from None
            for chain, heads in read.items():
                held.setdefault(chain, {}).update({seq: (h, f"{where} from {path}") for seq, (h, where) in heads.items()})
        return held

    def handle(self, *args: Any, **options: Any) -> None:
        held = self._anchors(options["anchors"])
        if options["link"]:
            chain_link_all()
        limit = options["time_limit"] or float(settings.AUDIT_VERIFY_TIME_LIMIT_SECONDS)
        try:
            report = chain_verify(incremental=options["incremental"], anchors=held, time_limit=limit)
        except VerificationBusy as error:
            raise CommandError(str(error), returncode=3) from None
        if not options["no_record"]:
            verification_record(report)
        *found, summary = report.lines()
        for line in found:
            self.stderr.write(line)
        self.stdout.write(summary)
        if not report.intact:
            raise CommandError(f"audit chain NOT intact: {report.finding_count} finding(s)"
                               + ("" if report.complete else "; the verification did not finish"))
        self.stdout.write(f"chain head: {chain_head(link_first=False)}")
