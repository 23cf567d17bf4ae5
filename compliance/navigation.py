"""What a person is shown: the main navigation (each app declares its entries in its ``apps.py``,
``compliance.registry``), and the one question every link, menu entry and form
asks before it is shown — :func:`may_request`, which resolves the URL to its view and asks the view's
own rule (``CapabilityRequiredMixin.allows``), the same rule that answers the request. A link is never
shown to a page that would answer 403, and nothing here repeats which role may open which page."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.urls import NoReverseMatch, Resolver404, resolve, reverse

from compliance.middleware import INSPECTOR_ALLOWED_WRITES, SAFE_METHODS
from compliance.registry import navigation
from compliance.roles import Role, is_inspector, roles_of

__all__ = ["may_request", "navigation_for"]


_OVERSEERS = frozenset({Role.COMPLIANCE_OFFICER, Role.BOARD_INSPECTOR, Role.ADMINISTRATOR})


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
    for item in navigation():
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
