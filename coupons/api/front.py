"""The table scanners' front door: a scan answered early in the middleware, when nothing the rest would do applies.

At the busiest hour a floor of tables sends hundreds of scans a second, and a scan's Python was nearly half the
stack's rather than the redemption's (issue 27's profile: the session, authentication, second-factor, messages,
acting-user, inspector, facility and sign-in middleware, then DRF's request, negotiation, parsing and view — 45 % of
a scan's CPU beside the service's 55 %). For a scanner none of it does anything: it sends no cookie, so there is no
session, no signed-in person, no inspector and no CSRF check (DRF exempts its views; a token is not a cookie); its
token names the device, its account and its table.

So :class:`ScannerFrontMiddleware`, placed after the middleware every request needs (the health probes, the request
id and the access log, work left until the answer has gone, the HTTPS redirect and the security headers, the
request's size and NUL checks), answers ``POST /api/v1/coupons/redemptions/`` itself when the request is exactly a
scanner's well-formed scan:

* no ``Cookie`` header (a person's browser goes the whole way: the inspector's read-only rule, the session, CSRF),
  a ``Host`` the settings allow (``CommonMiddleware``'s check, made before anything is written) and no
  ``DISALLOWED_USER_AGENTS`` set;
* ``Content-Type: application/json`` (or with ``charset=utf-8``) and an ``Accept`` that asks for nothing else;
* ``Authorization: Token <token>`` of an active scanner, read by the API's own authentication class;
* a body that DRF's JSON parser reads and the API's own request serializer accepts;
* within the token's request limit (the API's own throttle, counted once).

It then asks :func:`coupons.api.scanning.scan_reply`, the reply the DRF view gives too, and renders it with DRF's
JSON renderer and the headers the view's response carries (``Allow``, ``X-Frame-Options``). Anything else — a
cookie, another content type or ``Accept``, no token, a bad or revoked token, a body that does not parse or
validate, a scanner over its limit — goes on down the stack unchanged, and the DRF view answers it exactly as
before (nothing was written: each check above reads only). ``tests/coupons/test_scanner_front.py`` holds the two
ways to the same reply for each kind of scan, and every other request to the other way.

``SCANNER_FRONT_DOOR=off`` (compliance/settings.py) sends every scan the whole way.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.urls import get_script_prefix, reverse
from django.utils.cache import patch_vary_headers
from rest_framework import exceptions
from rest_framework.renderers import JSONRenderer
from rest_framework.utils import json as drf_json

from coupons.api.authentication import ScannerTokenAuthentication
from coupons.api.scanning import Reply, scan_reply, scanner_table_problem
from coupons.api.serializers import RedemptionRequestSerializer
from coupons.api.throttling import ScannerTokenThrottle

__all__ = ["ScannerFrontMiddleware"]

_JSON_TYPES = frozenset({"application/json", "application/json;charset=utf-8"})
_ACCEPTED = frozenset({"*/*", "application/json"})  # or no Accept header at all (an empty one is DRF's 406)


@cache
def _path_info() -> str:
    """The scan's address below the script prefix (``/api/v1/coupons/redemptions/``), as the URLconf names it."""
    return "/" + reverse("coupons-api:redemptions")[len(get_script_prefix()):]


@cache
def _allow() -> str:
    """The ``Allow`` header DRF gives the view's answers."""
    from coupons.api.views import RedemptionsView

    view = RedemptionsView()
    view.setup(HttpRequest())  # as as_view() does: HEAD answered as GET
    return ", ".join(view.allowed_methods)


def _plain_request(request: HttpRequest) -> bool:
    """Nothing the middleware below or DRF's negotiation would do differently for this request: no cookie (an empty
    Cookie header carries none), no query string (DRF reads ``?format=``), a JSON body, an ``Accept`` of JSON or none,
    an allowed Host (CommonMiddleware's check, made before anything is written), and none of the settings that would
    change the answer on the way (a user agent refused, ``www.`` prepended, each view in a transaction)."""
    meta = request.META
    if meta.get("HTTP_COOKIE") or meta.get("QUERY_STRING"):
        return False
    if settings.DISALLOWED_USER_AGENTS or settings.PREPEND_WWW or connection.settings_dict.get("ATOMIC_REQUESTS"):
        return False
    if meta.get("CONTENT_TYPE", "").lower().replace(" ", "") not in _JSON_TYPES:
        return False
    if "HTTP_ACCEPT" in meta and meta["HTTP_ACCEPT"].strip() not in _ACCEPTED:
        return False
    try:
        request.get_host()
    except DisallowedHost:
        return False
    return True


def _scanner_of(request: HttpRequest) -> tuple[Any, Any] | None:
    """The scanner's account and device, within the token's limit. Both are kept on the request (the token read
    once, the request counted once), so a request that goes on down the stack is not read or counted again."""
    try:
        found = ScannerTokenAuthentication().authenticate(request)
    except exceptions.AuthenticationFailed:
        return None
    if found is None or not ScannerTokenThrottle().allow_request(SimpleNamespace(auth=found[1], _request=request),
                                                                 None):
        return None
    return found


def _scan_of(request: HttpRequest) -> dict[str, Any] | None:
    """The scan, when the body is one: read as DRF's JSON parser reads it (UTF-8, no NaN or Infinity) and valid to
    the API's own request serializer."""
    try:
        payload = drf_json.loads(request.body.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    serializer = RedemptionRequestSerializer(data=payload)
    return serializer.validated_data if serializer.is_valid() else None


def _rendered(request: HttpRequest, reply: Reply, frame: XFrameOptionsMiddleware) -> HttpResponse:
    content = JSONRenderer().render(reply.body)
    response = HttpResponse(content, status=reply.status, content_type="application/json")
    for name, value in reply.headers.items():
        response[name] = value
    response["Allow"] = _allow()
    response["Content-Length"] = str(len(content))
    patch_vary_headers(response, ("Cookie",))  # as the session middleware marks every answer of the stack
    return frame.process_response(request, response)


class ScannerFrontMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self._frame = XFrameOptionsMiddleware(get_response)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (request.method == "POST" and settings.SCANNER_FRONT_DOOR and request.path_info == _path_info()
                and _plain_request(request) and (scanner := _scanner_of(request)) is not None
                and (scan := _scan_of(request)) is not None):
            return self._answer(request, *scanner, scan)
        return self.get_response(request)

    def _answer(self, request: HttpRequest, account: Any, device: Any, data: dict[str, Any]) -> HttpResponse:
        request.user = account  # as DRF sets it: an error report names the scanner's account
        reply = scanner_table_problem(device, data.get("table", "").strip()) or scan_reply(
            data=data, facility=device.facility, table=device.table, device=device, user=account,
            key=request.headers.get("Idempotency-Key", ""), absolute_uri=request.build_absolute_uri)
        return _rendered(request, reply, self._frame)
