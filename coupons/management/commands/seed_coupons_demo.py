from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from compliance.models import Facility
from coupons.demo import coupons_demo_seed


class Command(BaseCommand):
    help = "Seed the coupon ledger of the demo facility (after `manage.py seed_demo`): series, approvals, a day."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--facility", default="demo")

    def handle(self, *args: Any, **options: Any) -> None:
        facility = Facility.objects.filter(code=options["facility"]).first()
        if facility is None:
            raise CommandError(f"No facility {options['facility']!r}: run `manage.py seed_demo` first.")
        series = coupons_demo_seed(facility=facility)
        self.stdout.write("Coupon ledger seeded." if series else "The coupon ledger already has data.")
