"""Request-wide rules: who is acting, the inspector's read-only access, the current facility."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, HttpResponseRedirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from compliance.actors import acting_as
from compliance.api_errors import api_error_response
from compliance.gaming_day import facility_zone
from compliance.roles import is_inspector

__all__ = [
    "ACCOUNT_PAGES",
    "INSPECTOR_ALLOWED_WRITES",
    "AccountSecurityMiddleware",
    "ActingUserMiddleware",
    "FacilityMiddleware",
    "InspectorReadOnlyMiddleware",
]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

# URL names an inspector may POST to: they change only the inspector's own session, never a record.
INSPECTOR_ALLOWED_WRITES = frozenset({"login", "logout", "facility-select", "account-second-factor", "password_change",
                                      "password-set", "account-backup-codes"})

# Pages a person reaches before their account is in order (a second factor, their own password).
ACCOUNT_PAGES = frozenset({"login", "logout", "account-second-factor", "password_change", "password_change_done",
                           "password-set"})


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
        message = ("Board inspectors have read-only access: you can view and download every record, "
                   "but nothing can be changed from this account.")
        if request.path.startswith("/api/"):  # the APIs' one error shape
            return api_error_response("permission_denied", message, status=403)
        return HttpResponseForbidden(render_to_string("403.html", {"exception": message}, request=request))


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


class AccountSecurityMiddleware:
    """Sign-in rules that hold on every page (issue 9; compliance/accounts.py):

    - a session idle for ``SESSION_IDLE_MINUTES`` ends, and the person signs in again;
    - a person whose role needs a second factor reaches nothing but the second-factor page until this
      session was verified with a TOTP code (enrolling a device first if they have none);
    - a person whose password an administrator set reaches nothing but the change-password page;
    - account events raised inside a transaction that rolls back (a wrong signing password) are written
      once the view has returned.
    """

    LAST_SEEN_KEY = "last_seen"
    OWN_PASSWORD_KEY = "own_password"  # noqa: S105 — a session key, not a password

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from compliance.accounts import deferred_account_events

        if request.user.is_authenticated and self._idle_too_long(request):
            logout(request)
            messages.info(request, "You were signed out after a period without activity; sign in again.")
        with deferred_account_events():
            return self.get_response(request)

    def _idle_too_long(self, request: HttpRequest) -> bool:
        from compliance.accounts import idle_limit

        now = int(timezone.now().timestamp())
        last_seen = request.session.get(self.LAST_SEEN_KEY)
        if not isinstance(last_seen, int) or now - last_seen >= 60:  # at most one session write a minute
            self.seen_now(request)
        return isinstance(last_seen, int) and now - last_seen > idle_limit().total_seconds()

    @classmethod
    def seen_now(cls, request: HttpRequest) -> None:
        request.session[cls.LAST_SEEN_KEY] = int(timezone.now().timestamp())

    def process_view(
        self, request: HttpRequest, view_func: Callable[..., Any], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        from compliance import accounts

        user = request.user
        match = request.resolver_match
        if not user.is_authenticated or (match is not None and match.view_name in ACCOUNT_PAGES):
            return None
        if accounts.needs_second_factor(user) and not user.is_verified():  # type: ignore[attr-defined]
            return HttpResponseRedirect(reverse("account-second-factor"))
        if not request.session.get(self.OWN_PASSWORD_KEY):  # known at sign-in (compliance.signals)
            if accounts.password_is_temporary(user):
                messages.warning(request, "Your password was set by an administrator: choose your own to go on.")
                return HttpResponseRedirect(reverse("password_change"))
            request.session[self.OWN_PASSWORD_KEY] = True
        return None
