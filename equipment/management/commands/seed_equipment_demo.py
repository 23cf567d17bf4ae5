from typing import Any

from django.core.management.base import BaseCommand, CommandError

from compliance.actors import acting_as, system_user
from compliance.models import Facility
from equipment.demo import equipment_demo_seed


class Command(BaseCommand):
    help = "The approvals of the demo facility's devices (run after seed_demo)."

    def handle(self, *args: Any, **options: Any) -> None:
        facility = Facility.objects.filter(code="demo").first()
        if facility is None:
            raise CommandError("Run `manage.py seed_demo` first: there is no demo facility.")
        with acting_as(system_user()):
            made = equipment_demo_seed(facility)
        self.stdout.write(self.style.SUCCESS(f"Equipment demo: {made} approval(s) added."))
