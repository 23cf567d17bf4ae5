"""What a person is shown: the main navigation (each app declares its entries in its ``apps.py``,
``compliance.registry``), and the one question every link, menu entry and form
asks before it is shown — :func:`may_request`, which resolves the URL to its view and asks the view's
own rule (``CapabilityRequiredMixin.allows``), the same rule that answers the request. A link is never
shown to a page that would answer 403, and nothing here repeats which role may open which page.

A person's menu holds the screens whose ``for_roles`` name one of their roles (an app's ``NavItem``s): a handful shown
in one row; more are grouped by section, each section a drop-down, so every menu fits one row on a laptop.

The Board inspector reads records and documents and changes nothing: a page that exists to fill in a form (a
:class:`compliance.views.ServiceFormView`, the signing page) is an action, not a record, and no link to one is shown to
an inspector (``action_page``)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import NoReverseMatch, Resolver404, get_script_prefix, get_urlconf, resolve, reverse

from compliance.middleware import INSPECTOR_ALLOWED_WRITES, SAFE_METHODS
from compliance.registry import navigation
from compliance.roles import is_inspector, roles_of

__all__ = ["FLAT_MENU_AT_MOST", "action_page", "may_request", "menu_for", "navigation_for"]

# Up to this many screens are shown side by side; more are grouped by section (one row at 1280 px either way).
FLAT_MENU_AT_MOST = 7


def action_page(view_class: Any) -> bool:
    """Whether the page exists to perform an action (fill in and submit a form): its view says so
    (``action_page = True``) or is a form view. A record page with buttons on it is not one."""
    from django.views.generic.edit import ProcessFormView

    declared = getattr(view_class, "action_page", None)
    if declared is not None:
        return bool(declared)
    return isinstance(view_class, type) and issubclass(view_class, ProcessFormView)


class _Route(NamedTuple):
    view_class: Any
    url_name: str | None
    app_name: str


def _urlconf() -> str:
    return get_urlconf() or settings.ROOT_URLCONF


@lru_cache(maxsize=4096)
def _route(path: str, urlconf: str) -> _Route | None:
    """The view a path resolves to, kept: the URLconf does not change while a process runs (a test that swaps it
    swaps the key). Every page asks this for each of its menu's 40-odd screens and each link it may show; resolving
    walks the whole URLconf each time (2.4 ms of a compliance officer's menu on every page before, 0.1 ms now)."""
    try:
        match = resolve(path, urlconf)
    except Resolver404:
        return None
    return _Route(getattr(match.func, "view_class", None), match.url_name, match.app_name)


@lru_cache(maxsize=512)
def _reversed(url_name: str, urlconf: str, prefix: str) -> str | None:
    try:
        return reverse(url_name, urlconf)
    except NoReverseMatch:
        return None  # the app that provides this screen is not installed


def may_request(user: Any, url: str, method: str = "GET") -> bool:
    """Whether ``user`` may make a ``method`` request of ``url`` (a path, query allowed): the view's
    ``allows`` for the project's pages, staff status for the admin, and for a Board inspector no write
    but to their own session. A URL that resolves to nothing is not ours to hide (it answers 404).
    Only where the URL leads is kept (``_route``); the rule is asked of this person every time."""
    return _may(user, _route(urlsplit(url).path, _urlconf()), method)


def _may(user: Any, route: _Route | None, method: str) -> bool:
    if route is None:
        return True
    if (is_inspector(user) and route.url_name not in INSPECTOR_ALLOWED_WRITES
            and (method not in SAFE_METHODS or action_page(route.view_class))):
        return False
    if route.app_name == "admin":
        return bool(getattr(user, "is_active", False) and getattr(user, "is_staff", False))
    allows = getattr(route.view_class, "allows", None)
    return allows(user, method) if allows is not None else True


def navigation_for(user: Any) -> list[dict[str, str]]:
    """The screens of ``user``'s work, in the apps' order: those whose ``for_roles`` name one of their roles (or
    name none: everyone's) and that their roles may open."""
    items = []
    roles = roles_of(user)
    urlconf, prefix = _urlconf(), get_script_prefix()
    for item in navigation():
        if item.for_roles and not (roles & item.for_roles):
            continue
        url = _reversed(item.url_name, urlconf, prefix)
        if url is None or not _may(user, _route(urlsplit(url).path, urlconf), "GET"):
            continue
        items.append({"label": item.label, "url": url, "section": item.section, "url_name": item.url_name})
    return items  # in the sections' order (compliance.registry.navigation)


def menu_for(user: Any, items: list[dict[str, str]] | None = None) -> list[dict[str, Any]]:
    """The menu as shown: each entry a link (``label``, ``url``, ``url_name``) or a section (``label``, ``items``).
    A short menu is flat; a longer one keeps the first entry (the dashboard) and groups the rest by section, a
    section of one screen shown as that screen."""
    items = navigation_for(user) if items is None else items
    if len(items) <= FLAT_MENU_AT_MOST:
        return list(items)
    menu: list[dict[str, Any]] = []
    sections: dict[str, dict[str, Any]] = {}
    for item in items:
        if not item["section"] or item["section"] == "General":
            menu.append(item)
            continue
        if item["section"] not in sections:
            sections[item["section"]] = {"label": item["section"], "children": []}
            menu.append(sections[item["section"]])
        sections[item["section"]]["children"].append(item)
    return [entry["children"][0] if len(entry.get("children", ())) == 1 else entry for entry in menu]
