from typing import Any

from django.core.management.base import BaseCommand, CommandError

from compliance.models import Facility
from compliance.submissions.demo import submissions_demo_seed


class Command(BaseCommand):
    help = "An approved Rules Submission, an approved guide, table limits and a draft amendment for the demo."

    def handle(self, *args: Any, **options: Any) -> None:
        facility = Facility.objects.filter(code="demo").first()
        if facility is None:
            raise CommandError("Run `manage.py seed_demo` first: there is no demo facility.")
        made = submissions_demo_seed(facility=facility)
        self.stdout.write(self.style.SUCCESS("Rules Submission demo: " + (
            f"version {made.number} approved and in force." if made else "already there.")))
