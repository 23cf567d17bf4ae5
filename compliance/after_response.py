"""Work a request may leave until its answer has been sent (issue 27, the redemption's tail).

A scan at a table waits for its answer, not for the cache the next scans will read. :func:`after_response` hands
such work to :class:`AfterResponseMiddleware`, which runs it when the WSGI server closes the response (PEP 3333's
``close()``, which gunicorn calls once the body is written and Django's test client calls too): the person has the
answer, the worker does the rest before it takes its next request. Outside a request (a Celery task, a command, a
shell) the work runs at once, where it was asked for.

Only work whose failure loses nothing belongs here — refreshing a cache that is computed again when missing. Its
failure is logged with its traceback, never raised: the response has gone.
"""

from __future__ import annotations

import contextvars
import functools
import logging
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse

__all__ = ["AfterResponseMiddleware", "after_response"]

logger = logging.getLogger(__name__)

_PENDING: contextvars.ContextVar[list[Callable[[], object]] | None] = contextvars.ContextVar("after_response_pending", default=None)


def after_response(work: Callable[[], object]) -> None:
    """Run ``work`` once this request's response has been sent; at once where there is no request. It runs in a
    copy of the request's context as it is now, so what it logs carries the request's id, person and facility."""
    pending = _PENDING.get()
    if pending is None:
        work()
    else:
        pending.append(functools.partial(contextvars.copy_context().run, _attempt, work))


def _attempt(work: Callable[[], object]) -> None:
    try:
        work()
    except Exception:
        logger.exception("work left for after the response failed: %r", work)


def _run(pending: list[Callable[[], object]]) -> None:
    while pending:
        pending.pop(0)()


class AfterResponseMiddleware:
    """Collects what the request leaves for after its response and runs it when the response is closed. Django's
    ``HttpResponse.close()`` runs each of the response's closers before it sends ``request_finished`` (which may
    close the database connection), so the work still has the request's connection."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        pending: list[Callable[[], object]] = []
        token = _PENDING.set(pending)
        try:
            response = self.get_response(request)
        finally:
            _PENDING.reset(token)
        if pending:
            closers = getattr(response, "_resource_closers", None)
            if closers is None:  # not a Django response (never seen): do the work now rather than lose it
                _run(pending)
            else:
                closers.append(lambda: _run(pending))
        return response
