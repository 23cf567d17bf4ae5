"""Request-wide rules: who is acting, the inspector's read-only access, the current facility."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from compliance.actors import acting_as
from compliance.gaming_day import facility_zone
from compliance.roles import is_inspector

__all__ = [
    "INSPECTOR_ALLOWED_WRITES",
    "ActingUserMiddleware",
    "FacilityMiddleware",
    "InspectorReadOnlyMiddleware",
]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

# URL names an inspector may POST to: they change only the inspector's own session, never a record.
INSPECTOR_ALLOWED_WRITES = frozenset({"login", "logout", "facility-select"})


class ActingUserMiddleware:
    """Attribute every change made while serving a request to the signed-in user."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            with acting_as(user._wrapped if hasattr(user, "_wrapped") else user):
                return self.get_response(request)
        return self.get_response(request)


class InspectorReadOnlyMiddleware:
    """A Board inspector sees everything and changes nothing (the central rule, not per view).

    Every request with a method other than GET/HEAD/OPTIONS/TRACE from a user holding the Board
    inspector role is refused with 403 before the view runs: form posts, API writes, admin changes
    and uploads alike, including views added after this was written.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Callable[..., Any], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        if request.method in SAFE_METHODS or not is_inspector(request.user):
            return None
        match = request.resolver_match
        if match is not None and match.url_name in INSPECTOR_ALLOWED_WRITES:
            return None
        body = render_to_string(
            "403.html",
            {
                "exception": "Board inspectors have read-only access: you can view and download every record, "
                "but nothing can be changed from this account."
            },
            request=request,
        )
        return HttpResponseForbidden(body)


class FacilityMiddleware:
    """Set ``request.facility``: the facility the user is working in (chosen among those assigned)."""

    SESSION_KEY = "facility_id"

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.facility = SimpleLazyObject(lambda: self._facility(request))  # type: ignore[attr-defined]
        if not request.user.is_authenticated:
            return self.get_response(request)
        # Times are shown on the clock of the facility the person works in (its gaming day too).
        facility = request.facility  # type: ignore[attr-defined]
        with timezone.override(facility_zone(facility) if facility else None):
            return self.get_response(request)

    def _facility(self, request: HttpRequest) -> Any:
        from compliance.selectors import facilities_for

        user = request.user
        if not user.is_authenticated:
            return None
        facilities = list(facilities_for(user))
        chosen = request.session.get(self.SESSION_KEY)
        for facility in facilities:
            if facility.pk == chosen:
                return facility
        return facilities[0] if facilities else None
