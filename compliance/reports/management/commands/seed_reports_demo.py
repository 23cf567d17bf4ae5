from typing import Any

from django.core.management.base import BaseCommand, CommandError

from compliance.actors import acting_as, system_user
from compliance.models import Facility
from compliance.reports.demo import reports_demo_seed


class Command(BaseCommand):
    help = "Coupons redeemed today and the first report versions for the demo facility (after seed_coupons_demo)."

    def handle(self, *args: Any, **options: Any) -> None:
        facility = Facility.objects.filter(code="demo").first()
        if facility is None:
            raise CommandError("Run `manage.py seed_demo` first: there is no demo facility.")
        with acting_as(system_user()):
            made = reports_demo_seed(facility=facility)
        self.stdout.write(self.style.SUCCESS(f"Reports demo: {made} report version(s) produced."))
