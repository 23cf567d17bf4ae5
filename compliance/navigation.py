"""What a person is shown: the main navigation, and the one question every link, menu entry and form
asks before it is shown — :func:`may_request`, which resolves the URL to its view and asks the view's
own rule (``CapabilityRequiredMixin.allows``), the same rule that answers the request. A link is never
shown to a page that would answer 403, and nothing here repeats which role may open which page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.urls import NoReverseMatch, Resolver404, resolve, reverse

from compliance.middleware import INSPECTOR_ALLOWED_WRITES, SAFE_METHODS
from compliance.roles import Role, is_inspector, roles_of

__all__ = ["NAVIGATION", "NavItem", "may_request", "navigation_for"]


@dataclass(frozen=True)
class NavItem:
    label: str
    url_name: str
    section: str = "General"
    # Whose daily work the screen is; empty = everyone. Overseers (compliance, the Board inspector,
    # administrators) see every screen. Whether the person may open it at all is the view's answer.
    for_roles: frozenset[Role] = frozenset()


_OVERSEERS = frozenset({Role.COMPLIANCE_OFFICER, Role.BOARD_INSPECTOR, Role.ADMINISTRATOR})
_FLOOR = frozenset({Role.DEALER, Role.FLOORPERSON, Role.SHIFT_MANAGER, Role.SURVEILLANCE})
_COUPONS = frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR, Role.MARKETING_STAFF, Role.MARKETING_SUPERVISOR})
_MARKETING = frozenset({Role.MARKETING_STAFF, Role.MARKETING_SUPERVISOR})
_FINANCE = frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR})


NAVIGATION: tuple[NavItem, ...] = (
    NavItem("Dashboard", "dashboard"),
    NavItem("Tables", "table-list", "Floor", _FLOOR),
    NavItem("People", "people-list", "Compliance"),
    NavItem("Signatures", "signature-list", "Compliance"),
    NavItem("Audit trail", "audit-list", "Compliance"),
    NavItem("Audit chain", "chain-status", "Compliance"),
    NavItem("Evidence bundle", "evidence", "Compliance"),
    NavItem("Regulations", "regulation-list", "Compliance"),
    # Reports as Celery jobs (issue 12)
    NavItem("Reports", "reports:home", "Compliance"),
    NavItem("Report jobs", "reports:runs", "Compliance"),
    # The game catalogue and exact game math (issue 13)
    NavItem("Game math", "games:list", "Compliance"),
    # Gaming related gaming service providers, ch. 528 (issue 14, item 7)
    NavItem("Service providers", "providers:list", "Compliance"),
    # Rules Submissions, wager limits, signs and gaming guides, ch. 521 (issue 14)
    NavItem("Rules Submission", "submissions:list", "Compliance"),
    NavItem("Gaming guides", "submissions:guides", "Compliance"),
    NavItem("Wager limits", "submissions:limits", "Floor", _FLOOR),
    NavItem("New game requests", "newgames:list", "Compliance", frozenset({Role.COMPLIANCE_OFFICER})),
    # Equipment (issue 4)
    NavItem("Table board", "equipment:board", "Floor", _FLOOR),
    NavItem("Dice log", "equipment:dice-log", "Floor", _FLOOR),
    NavItem("Deck log", "equipment:deck-log", "Floor", _FLOOR),
    NavItem("Equipment alerts", "equipment:alerts", "Floor", _FLOOR),
    NavItem("Equipment report", "equipment:report", "Floor", _FLOOR),
    NavItem("Equipment rules", "equipment:requirements", "Floor", _FLOOR),
    NavItem("Approved equipment", "equipment:approvals", "Compliance"),
    # Match Play Coupons (issue 3)
    NavItem("Coupons", "coupons:home", "Coupons", _COUPONS),
    NavItem("Marketing today", "coupons:today", "Coupons", _COUPONS),
    NavItem("Coupon ledger", "coupons:ledger", "Coupons", _COUPONS),
    # Redemption at the table, the drop-box count and mailed coupons (issue 10)
    NavItem("Redeem at a table", "coupons:redeem-tables", "Floor", frozenset({Role.DEALER})),
    NavItem("Redemptions", "coupons:redemptions-today", "Coupons", _COUPONS | _FLOOR),
    NavItem("Drop-box counts", "coupons:drop-counts", "Coupons", _FINANCE),
    NavItem("Table scanners", "coupons:scanners", "Floor", frozenset({Role.SHIFT_MANAGER})),
    NavItem("Mailed coupons", "coupons:mailings", "Coupons", _MARKETING | _FINANCE),
    # Staffing and surveillance (issue 11)
    NavItem("Staffing", "staffing:floor", "Floor", _FLOOR),
    NavItem("Rosters", "staffing:rosters", "Floor", frozenset({Role.SHIFT_MANAGER, Role.FLOORPERSON})),
    NavItem("Cameras", "staffing:surveillance", "Floor", frozenset({Role.SURVEILLANCE, Role.SHIFT_MANAGER})),
    NavItem("Staffing report", "staffing:report", "Floor", frozenset({Role.SHIFT_MANAGER})),
    # Exclusion-list screening of mailings (issue 10, item 6)
    NavItem("Exclusion lists", "exclusion:lists", "Compliance", _MARKETING),
    NavItem("Exclusion review", "exclusion:queue", "Compliance"),
)


def may_request(user: Any, url: str, method: str = "GET") -> bool:
    """Whether ``user`` may make a ``method`` request of ``url`` (a path, query allowed): the view's
    ``allows`` for the project's pages, staff status for the admin, and for a Board inspector no write
    but to their own session. A URL that resolves to nothing is not ours to hide (it answers 404)."""
    path = urlsplit(url).path
    try:
        match = resolve(path)
    except Resolver404:
        return True
    if method not in SAFE_METHODS and is_inspector(user) and match.url_name not in INSPECTOR_ALLOWED_WRITES:
        return False
    if match.app_name == "admin":
        return bool(getattr(user, "is_active", False) and getattr(user, "is_staff", False))
    allows = getattr(getattr(match.func, "view_class", None), "allows", None)
    return allows(user, method) if allows is not None else True


def navigation_for(user: Any) -> list[dict[str, str]]:
    items = []
    for item in NAVIGATION:
        if item.for_roles and not (roles_of(user) & (item.for_roles | _OVERSEERS)):
            continue
        try:
            url = reverse(item.url_name)
        except NoReverseMatch:
            continue  # the app that provides this screen is not installed
        if not may_request(user, url):
            continue
        items.append({"label": item.label, "url": url, "section": item.section, "url_name": item.url_name})
    return items
