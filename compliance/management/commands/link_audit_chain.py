"""``manage.py link_audit_chain``: join every sealed row still waiting to its chain now (beat does it every minute)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from compliance.chain import chain_head, chain_link_all


class Command(BaseCommand):
    help = "Link every waiting sealed row into its chain and print the chain head."

    def handle(self, *args: Any, **options: Any) -> None:
        made = chain_link_all()
        self.stdout.write(f"{made} link(s) made; chain head: {chain_head(link_first=False)}")
