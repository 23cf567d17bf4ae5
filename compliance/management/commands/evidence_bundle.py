"""``manage.py evidence_bundle --facility CODE --from DAY --to DAY --out FILE``: the Board's evidence bundle of a
facility and period, written to a file (for periods too large to download from the Evidence page)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from compliance.evidence.bundle import bundle_name, bundle_plan, bundle_stream
from compliance.models import Facility


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a date such as 2026-11-03") from None


class Command(BaseCommand):
    help = "Write the evidence bundle of a facility and period (verify it with compliance/evidence/verify_bundle.py)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--facility", required=True, help="the facility's code")
        parser.add_argument("--from", dest="first", required=True, help="first gaming day, YYYY-MM-DD")
        parser.add_argument("--to", dest="last", required=True, help="last gaming day, YYYY-MM-DD")
        parser.add_argument("--out", default="", help="the file to write (default: the bundle's own name, here)")

    def handle(self, *args: Any, facility: str, first: str, last: str, out: str, **options: Any) -> None:
        found = Facility.objects.filter(code=facility).first()
        if found is None:
            raise CommandError(f"No facility has the code {facility!r}.")
        first_day, last_day = _day(first), _day(last)
        if last_day < first_day:
            raise CommandError("The last gaming day comes before the first.")
        plan = bundle_plan(found, first_day, last_day)
        path = Path(out or bundle_name(plan))
        with path.open("wb") as handle:
            for piece in bundle_stream(plan):
                handle.write(piece)
        self.stdout.write(f"{path}: {len(plan.chains)} chains, {plan.rows:,} chain rows"
                          + ("" if plan.anchor else " (no anchor after the period yet)"))
