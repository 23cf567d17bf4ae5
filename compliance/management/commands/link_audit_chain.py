"""``manage.py link_audit_chain``: join every sealed row still waiting to its chain now (beat does it every minute).

``--anchor`` then anchors every facility's chain heads now (an anchor "on demand", e-mailed like the daily one):
the demo does so once its data is seeded.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from compliance.actors import acting_as, system_user
from compliance.chain import anchor_record, chain_head, chain_link_all
from compliance.models import ChainAnchor, Facility


class Command(BaseCommand):
    help = "Link every waiting sealed row into its chain and print the chain head; --anchor: anchor every facility."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--anchor", action="store_true", help="then anchor every facility's heads now")

    def handle(self, *args: Any, anchor: bool = False, **options: Any) -> None:
        made = chain_link_all()
        self.stdout.write(f"{made} link(s) made; chain head: {chain_head(link_first=False)}")
        if anchor:
            with acting_as(system_user()):
                for facility in Facility.objects.order_by("pk"):
                    done = anchor_record(facility, reason=ChainAnchor.Reason.ON_DEMAND, subject="Anchored by hand")
                    self.stdout.write(f"{facility.code}: anchor #{done.pk}, {len(done.heads)} heads, digest {done.digest}")
