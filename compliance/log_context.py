"""What every log line says about where it came from (issue 26, item 4): the request id, the person and the facility
of the request being served — or the task and its id in a Celery worker.

- :class:`RequestIdMiddleware` (early in ``MIDDLEWARE``) takes the proxy's ``X-Request-ID`` when it is a plain token
  (letters, digits, ``-``, ``_``, ``.``; up to 64), or makes one, and returns it on the response so a person's
  report of an error can be found in the logs.
- :class:`RequestPersonMiddleware` (after ``FacilityMiddleware``) adds the signed-in person's username and the
  facility's code once both are known.
- :class:`ContextFilter`, on every handler, copies them onto each record (``request_id``, ``user``, ``facility``),
  so the JSON formatter (``LOG_FORMAT=json``, the default in production) and the plain one print them.

Values live in context variables: each request (each thread, each task) keeps its own, and nothing here queries the
database while a line is being logged.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from contextlib import suppress
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

__all__ = ["ContextFilter", "RequestIdMiddleware", "RequestPersonMiddleware", "bind", "task_context",
           "task_context_end"]

_REQUEST_ID: ContextVar[str] = ContextVar("request_id", default="-")
_USER: ContextVar[str] = ContextVar("user", default="-")
_FACILITY: ContextVar[str] = ContextVar("facility", default="-")
_TOKEN = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
access_log = logging.getLogger("compliance.access")


def bind(*, request_id: str | None = None, user: str | None = None, facility: str | None = None) -> None:
    if request_id is not None:
        _REQUEST_ID.set(request_id)
    if user is not None:
        _USER.set(user)
    if facility is not None:
        _FACILITY.set(facility)


_TASK_TOKENS: dict[str, tuple[Any, ...]] = {}


def task_context(task_id: str, task_name: str) -> None:
    """A task starting: its id stands for the request id, the task's name for the person — until it ends
    (:func:`task_context_end`), so a task run inline by a request hands the request its own context back."""
    _TASK_TOKENS[task_id] = (_REQUEST_ID.set(task_id or "-"), _USER.set(f"task:{task_name}"), _FACILITY.set("-"))


def task_context_end(task_id: str) -> None:
    tokens = _TASK_TOKENS.pop(task_id, None)
    if tokens is None:
        return
    for var, token in zip((_REQUEST_ID, _USER, _FACILITY), tokens, strict=True):
        with suppress(ValueError):  # set in another context (a worker's thread): nothing to hand back
            var.reset(token)


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _REQUEST_ID.get()
        record.user = _USER.get()
        record.facility = _FACILITY.get()
        return True


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        offered = request.headers.get("X-Request-ID", "")
        request_id = offered if _TOKEN.match(offered) else uuid.uuid4().hex
        request.request_id = request_id  # type: ignore[attr-defined]
        tokens = (_REQUEST_ID.set(request_id), _USER.set("-"), _FACILITY.set("-"))
        began = time.monotonic()
        try:
            response = self.get_response(request)
            if settings.ACCESS_LOG:
                # One line per request, with the person and facility bound further in. The path only: a query
                # string can carry what someone searched for (a patron's name).
                access_log.info("%s %s %s", request.method, request.path, response.status_code, extra={
                    "method": request.method, "path": request.path, "status": response.status_code,
                    "duration_ms": round((time.monotonic() - began) * 1000, 1)})
        finally:
            for var, token in zip((_REQUEST_ID, _USER, _FACILITY), tokens, strict=True):
                var.reset(token)
        response["X-Request-ID"] = request_id
        return response


class RequestPersonMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            facility = getattr(request, "facility", None)
            bind(user=user.get_username(), facility=getattr(facility, "code", None) or "-")
        return self.get_response(request)
