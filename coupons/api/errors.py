"""The coupon API's errors in the projects' one JSON shape (``compliance.api_errors``, documented in the schema as
``Error``); the codes and their clauses are :data:`coupons.redemption_rules.REFUSALS`.
"""

from __future__ import annotations

import math
from typing import Any

from rest_framework import exceptions, serializers
from rest_framework.response import Response

from compliance.api_errors import api_error_body
from coupons.api.throttling import limit_words
from coupons.redemption_rules import REFUSALS

__all__ = ["ErrorSerializer", "error_body", "exception_handler"]


def error_body(code: str, message: str, *, fields: dict[str, list[str]] | None = None) -> dict[str, Any]:
    return api_error_body(code, message, clause=REFUSALS[code].clause, fields=fields)


def _fields(detail: Any) -> dict[str, list[str]]:
    if isinstance(detail, dict):
        return {str(k): [str(m) for m in (v if isinstance(v, list) else [v])] for k, v in detail.items()}
    return {"non_field_errors": [str(m) for m in (detail if isinstance(detail, list) else [detail])]}


_CODES: list[tuple[type[exceptions.APIException], str]] = [
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "not_authenticated"),
    (exceptions.PermissionDenied, "permission_denied"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.Throttled, "throttled"),
    (exceptions.NotFound, "not_found"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
]


def exception_handler(exc: Exception, context: Any) -> Response | None:
    """DRF's exceptions in the one shape; anything else is left to Django (and is a bug to fix)."""
    if not isinstance(exc, exceptions.APIException):
        from django.http import Http404

        if isinstance(exc, Http404):
            return Response(error_body("not_found", "No such resource."), status=404)
        return None
    if isinstance(exc, exceptions.ValidationError | exceptions.ParseError):
        fields = _fields(exc.detail)
        first = next((f"{name}: {msgs[0]}" for name, msgs in fields.items() if msgs), "The request is malformed.")
        return Response(error_body("invalid_request", f"Check the request. {first}", fields=fields), status=400)
    code = next((code for kind, code in _CODES if isinstance(exc, kind)), "invalid_request")
    detail_code = getattr(exc.detail, "code", "")
    if detail_code in REFUSALS:
        code = detail_code
    if isinstance(exc, exceptions.Throttled):
        return _throttled(exc, context)
    response = Response(error_body(code, str(exc.detail)), status=REFUSALS[code].status)
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        response["WWW-Authenticate"] = 'Token realm="api"'
    return response


def _throttled(exc: exceptions.Throttled, context: Any) -> Response:
    """429 with ``Retry-After`` in whole seconds (DRF rounds the wait up: retrying then is never too early)."""
    wait = max(1, math.ceil(exc.wait or 1))
    response = Response(error_body("throttled", limit_words(context.get("request"), wait)), status=429)
    response["Retry-After"] = str(wait)
    return response


class _ErrorDetail(serializers.Serializer):
    code = serializers.ChoiceField(choices=sorted(REFUSALS), help_text="Stable; see the list in the description")
    message = serializers.CharField(help_text="A sentence for the dealer")
    clause = serializers.CharField(help_text="The clause of 58 Pa. Code behind the refusal, if any")
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                   help_text="Per-field problems of an invalid request")


class ErrorSerializer(serializers.Serializer):
    error = _ErrorDetail()
