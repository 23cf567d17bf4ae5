"""The main navigation: every screen's entry with the capability that shows it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import NoReverseMatch, reverse

from compliance.roles import Capability, Role, has_capability, roles_of

__all__ = ["NAVIGATION", "NavItem", "navigation_for"]


@dataclass(frozen=True)
class NavItem:
    label: str
    url_name: str
    capability: Capability
    section: str = "General"
    # Whose daily work the screen is; empty = everyone. Overseers (compliance, the Board inspector,
    # administrators) see every screen. Access itself is decided by the view, not by the menu.
    for_roles: frozenset[Role] = frozenset()


_OVERSEERS = frozenset({Role.COMPLIANCE_OFFICER, Role.BOARD_INSPECTOR, Role.ADMINISTRATOR})
_FLOOR = frozenset({Role.DEALER, Role.FLOORPERSON, Role.SHIFT_MANAGER, Role.SURVEILLANCE})
_COUPONS = frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR, Role.MARKETING_STAFF, Role.MARKETING_SUPERVISOR})


NAVIGATION: tuple[NavItem, ...] = (
    NavItem("Dashboard", "dashboard", Capability.VIEW_RECORDS),
    NavItem("Tables", "table-list", Capability.VIEW_RECORDS, "Floor", _FLOOR),
    NavItem("People", "people-list", Capability.VIEW_RECORDS, "Compliance"),
    NavItem("Signatures", "signature-list", Capability.VIEW_RECORDS, "Compliance"),
    NavItem("Audit trail", "audit-list", Capability.VIEW_AUDIT, "Compliance"),
    NavItem("Regulations", "regulation-list", Capability.VIEW_RECORDS, "Compliance"),
    # Equipment (issue 4)
    NavItem("Table board", "equipment:board", Capability.VIEW_RECORDS, "Floor", _FLOOR),
    NavItem("Dice log", "equipment:dice-log", Capability.VIEW_RECORDS, "Floor", _FLOOR),
    NavItem("Deck log", "equipment:deck-log", Capability.VIEW_RECORDS, "Floor", _FLOOR),
    NavItem("Equipment alerts", "equipment:alerts", Capability.VIEW_RECORDS, "Floor", _FLOOR),
    NavItem("Equipment report", "equipment:report", Capability.VIEW_RECORDS, "Floor", _FLOOR),
    NavItem("Equipment rules", "equipment:requirements", Capability.VIEW_RECORDS, "Floor", _FLOOR),
    # Match Play Coupons (issue 3)
    NavItem("Coupons", "coupons:home", Capability.VIEW_RECORDS, "Coupons", _COUPONS),
    NavItem("Marketing today", "coupons:today", Capability.VIEW_RECORDS, "Coupons", _COUPONS),
    NavItem("Coupon ledger", "coupons:ledger", Capability.VIEW_RECORDS, "Coupons", _COUPONS),
)


def navigation_for(user: Any) -> list[dict[str, str]]:
    items = []
    for item in NAVIGATION:
        if not has_capability(user, item.capability):
            continue
        if item.for_roles and not (roles_of(user) & (item.for_roles | _OVERSEERS)):
            continue
        try:
            url = reverse(item.url_name)
        except NoReverseMatch:
            continue  # the app that provides this screen is not installed
        items.append({"label": item.label, "url": url, "section": item.section, "url_name": item.url_name})
    return items
