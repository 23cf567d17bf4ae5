"""The main navigation: every screen's entry with the capability that shows it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import NoReverseMatch, reverse

from compliance.roles import Capability, has_capability

__all__ = ["NAVIGATION", "NavItem", "navigation_for"]


@dataclass(frozen=True)
class NavItem:
    label: str
    url_name: str
    capability: Capability
    section: str = "General"


NAVIGATION: tuple[NavItem, ...] = (
    NavItem("Dashboard", "dashboard", Capability.VIEW_RECORDS),
    NavItem("Tables", "table-list", Capability.VIEW_RECORDS, "Floor"),
    NavItem("People", "people-list", Capability.VIEW_RECORDS, "Compliance"),
    NavItem("Signatures", "signature-list", Capability.VIEW_RECORDS, "Compliance"),
    NavItem("Audit trail", "audit-list", Capability.VIEW_AUDIT, "Compliance"),
    NavItem("Regulations", "regulation-list", Capability.VIEW_RECORDS, "Compliance"),
    # Equipment (issue 4)
    NavItem("Table board", "equipment:board", Capability.VIEW_RECORDS, "Floor"),
    NavItem("Dice log", "equipment:dice-log", Capability.VIEW_RECORDS, "Floor"),
    NavItem("Deck log", "equipment:deck-log", Capability.VIEW_RECORDS, "Floor"),
    NavItem("Equipment alerts", "equipment:alerts", Capability.VIEW_RECORDS, "Floor"),
    NavItem("Equipment report", "equipment:report", Capability.VIEW_RECORDS, "Floor"),
    NavItem("Equipment rules", "equipment:requirements", Capability.VIEW_RECORDS, "Floor"),
    # Match Play Coupons (issue 3)
    NavItem("Coupons", "coupons:home", Capability.VIEW_RECORDS, "Coupons"),
    NavItem("Marketing today", "coupons:today", Capability.VIEW_RECORDS, "Coupons"),
    NavItem("Coupon ledger", "coupons:ledger", Capability.VIEW_RECORDS, "Coupons"),
)


def navigation_for(user: Any) -> list[dict[str, str]]:
    items = []
    for item in NAVIGATION:
        if not has_capability(user, item.capability):
            continue
        try:
            url = reverse(item.url_name)
        except NoReverseMatch:
            continue  # the app that provides this screen is not installed
        items.append({"label": item.label, "url": url, "section": item.section, "url_name": item.url_name})
    return items
