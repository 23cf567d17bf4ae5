"""Request limits of the API: one per scanner token (``API_THROTTLE_TOKEN``) and one per signed-in person
(``API_THROTTLE_USER``), each a number of requests in a fixed window (``600/min``), or ``off``.

They stop a runaway client — a scanner retrying in a loop, a script gone wrong — not a busy table: the rates
(compliance/settings.py) are far above what a table's scanner or a person ever sends. A request over the
limit is answered 429 in the one error shape with ``Retry-After`` (whole seconds to the end of the window,
``coupons.api.errors``). The count is kept in the default cache: Redis in production, so every gunicorn worker
on every host counts against the same number (a counter in each process would multiply the limit by their
number). Redis's INCR is atomic: two workers counting at once both count; with its expiry it is one round trip
(``compliance.cache.count_in_window``).
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from rest_framework.throttling import BaseThrottle

from compliance.cache import count_in_window
from compliance.env import parse_rate
from coupons.models import ScannerDevice

__all__ = ["PersonThrottle", "ScannerTokenThrottle", "limit_words"]


class _WindowThrottle(BaseThrottle):
    """At most ``count`` requests of one client in each ``period`` seconds (windows aligned on the clock)."""

    scope = ""
    setting = ""

    def client(self, request: Any) -> str | None:
        """Who is counted, or ``None``: this limit does not apply to the request."""
        raise NotImplementedError

    def allow_request(self, request: Any, view: Any) -> bool:
        """Counted once a request: the scanners' front door counts first (coupons/api/front.py), and a request it
        leaves to the view gets the same verdict there without a second count."""
        http = getattr(request, "_request", request)
        decided = getattr(http, "_api_limits", None)
        if decided is None:
            decided = http._api_limits = {}
        if self.scope not in decided:
            decided[self.scope] = self._seconds_left(request)
        self.seconds_left: float | None = decided[self.scope]
        return self.seconds_left is None

    def _seconds_left(self, request: Any) -> float | None:
        """None when the request is within the limit (now counted), else the seconds until the window ends."""
        rate = parse_rate(getattr(settings, self.setting))
        client = self.client(request)
        if rate is None or client is None:
            return None
        count, period = rate
        now = time.time()
        window = int(now // period)
        used = count_in_window(f"api-throttle:{self.scope}:{client}:{period}:{window}", period + 5)
        return None if used <= count else (window + 1) * period - now

    def wait(self) -> float | None:
        return self.seconds_left


class ScannerTokenThrottle(_WindowThrottle):
    """Each scanner token (its device) counted on its own: one table's loop never slows another table."""

    scope, setting = "token", "API_THROTTLE_TOKEN"

    def client(self, request: Any) -> str | None:
        return str(request.auth.pk) if isinstance(request.auth, ScannerDevice) else None


class PersonThrottle(_WindowThrottle):
    """Each person signed in through the web session; a scanner is counted by its token instead."""

    scope, setting = "user", "API_THROTTLE_USER"

    def client(self, request: Any) -> str | None:
        if isinstance(request.auth, ScannerDevice) or not request.user.is_authenticated:
            return None
        return str(request.user.pk)


def limit_words(request: Any, wait: int) -> str:
    """The 429's message: whose limit, how many, and when to send again."""
    scanner = isinstance(getattr(request, "auth", None), ScannerDevice)
    rate = parse_rate(settings.API_THROTTLE_TOKEN if scanner else settings.API_THROTTLE_USER)
    who = f"The scanner {request.auth.name}" if scanner else "Your account"
    limit = ""
    if rate is not None:
        count, period = rate
        unit = {1: "a second", 60: "a minute", 3600: "an hour", 86400: "a day"}[period]
        limit = f" (at most {count:,} {unit})"
    return (f"{who} sent more requests than the API accepts{limit}, far more than a table needs: check it is not "
            f"stuck retrying. Send again in {wait} second{'s' if wait != 1 else ''}.")
