"""Liveness and readiness for load balancers and monitoring (issue 26, item 3).

- ``/healthz`` — liveness: the web process answers. No database, no cache: a load balancer must not take every web
  server out of rotation because the database is slow.
- ``/readyz`` — readiness: the database answers, the cache (Redis in production) answers, a Celery worker has been
  heard from and beat has ticked within :data:`FRESH` (two minutes). 200 when all hold, 503 with the failing check
  otherwise; one line per check, ``name ok|FAIL words``, nothing secret.

Both answer before any other middleware (:class:`HealthMiddleware`, first in ``MIDDLEWARE``): plain HTTP (no
redirect to HTTPS) and any ``Host`` (a probe sends the server's address, not its name), GET or HEAD only.

A worker is heard from when it runs :func:`compliance.tasks.health_tick`, which beat sends every 30 seconds
(``ComplianceConfig.beat``): one tick proves beat scheduled it and a worker ran it, and records both instants in the
cache the web servers read. Where tasks run in the web process (the tests, a bare runserver) there is no worker or
beat to wait for, and readiness says so.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

__all__ = ["FRESH", "HealthMiddleware", "healthz", "readiness", "readyz", "record_tick"]

logger = logging.getLogger(__name__)

FRESH = timedelta(minutes=2)
BEAT_KEY = "health:beat-tick"
WORKER_KEY = "health:worker"
_PATHS = {"/healthz": "live", "/readyz": "ready"}


def record_tick(worker: str, at: datetime | None = None) -> None:
    """Beat's tick as a worker ran it: both instants, kept a little longer than they count as fresh."""
    moment = (at or timezone.now()).isoformat()
    keep = int(FRESH.total_seconds()) * 5
    cache.set_many({BEAT_KEY: moment, WORKER_KEY: {"at": moment, "name": worker}}, timeout=keep)


def _age_words(stamp: str | None, now: datetime) -> tuple[bool, str]:
    if not stamp:
        return False, "never heard from"
    age = now - datetime.fromisoformat(stamp)
    seconds = int(age.total_seconds())
    return age <= FRESH, f"{seconds} s ago"


def _database() -> tuple[bool, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return True, connection.vendor


def _cache() -> tuple[bool, str]:
    cache.set("health:probe", "1", timeout=30)
    return cache.get("health:probe") == "1", str(settings.CACHES["default"]["BACKEND"]).rsplit(".", 1)[-1]


def _inline() -> bool:
    return bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False))


def _worker(now: datetime) -> tuple[bool, str]:
    if _inline():
        return True, "tasks run in the web process (no worker to wait for)"
    heard = cache.get(WORKER_KEY) or {}
    fresh, words = _age_words(heard.get("at"), now)
    return fresh, f"{heard.get('name', 'a worker')} {words}" if heard else words


def _beat(now: datetime) -> tuple[bool, str]:
    if _inline():
        return True, "tasks run in the web process (no beat to wait for)"
    return _age_words(cache.get(BEAT_KEY), now)


def readiness(now: datetime | None = None) -> list[tuple[str, bool, str]]:
    """Each check: (name, whether it holds, words). A check that raises has failed, in its error's words."""
    moment = now or timezone.now()
    checks: list[tuple[str, Callable[[], tuple[bool, str]]]] = [
        ("database", _database), ("cache", _cache), ("worker", lambda: _worker(moment)),
        ("beat", lambda: _beat(moment)),
    ]
    found = []
    for name, check in checks:
        try:
            ok, words = check()
        except Exception as error:  # a probe reports any failure in words; it never raises
            ok, words = False, f"{type(error).__name__}: {str(error)[:200]}"
        found.append((name, ok, words))
    return found


def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok\n", content_type="text/plain; charset=utf-8")


def readyz(request: HttpRequest) -> HttpResponse:
    checks = readiness()
    body = "".join(f"{name} {'ok' if ok else 'FAIL'} {words}\n" for name, ok, words in checks)
    status = 200 if all(ok for _, ok, _ in checks) else 503
    response = HttpResponse(body, status=status, content_type="text/plain; charset=utf-8",
                            headers={"Cache-Control": "no-store"})
    if status != 200:
        # A probe asks every few seconds: one warning line each time, never an error mailed to ADMINS per probe
        # (Django logs a 5xx answer as an error, and django.request mails errors).
        logger.warning("not ready: %s", "; ".join(f"{name} {words}" for name, ok, words in checks if not ok))
        response._has_been_logged = True  # type: ignore[attr-defined]
    return response


class HealthMiddleware:
    """First in ``MIDDLEWARE``: the probes answer before the host check, the HTTPS redirect and the session."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        which = _PATHS.get(request.path_info)
        if which is None:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            return HttpResponse("GET or HEAD\n", status=405, content_type="text/plain; charset=utf-8",
                                headers={"Allow": "GET, HEAD"})
        return healthz(request) if which == "live" else readyz(request)
