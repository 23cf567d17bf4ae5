"""The one JSON shape of every error the project's APIs give (the coupon API documents it as ``Error``):

``{"error": {"code": "<stable code>", "message": "<a sentence for the person>", "clause": "525.22(b)",
"fields": {"<field>": ["<what is wrong>"]}}}``. The foundation answers in it where it refuses an API request
before any view (the inspector's read-only rule, :data:`REQUEST_REFUSALS`); an app's API fills the codes and clauses
it defines, and documents these with its own, since any of its operations may answer them."""

from __future__ import annotations

from typing import Any

from django.http import JsonResponse

__all__ = ["REQUEST_REFUSALS", "api_error_body", "api_error_response"]

# What the foundation refuses before any view reads the request (compliance/request_limits.py): code → (status,
# meaning). Every API operation may answer them, so each API's schema lists them (coupons/api/errors.py).
REQUEST_REFUSALS: dict[str, tuple[int, str]] = {
    "bad_length": (400, "The request's Content-Length header is not a number."),
    "malformed_body": (400, "The body is not the form its Content-Type names (multipart without its boundary)."),
    "nul_character": (400, "The address or the body holds a NUL character, which no record can keep."),
    "too_large": (413, "The body is larger than MAX_REQUEST_BYTES."),
}


def api_error_body(code: str, message: str, *, clause: str = "",
                   fields: dict[str, list[str]] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "clause": clause, "fields": fields or {}}}


def api_error_response(code: str, message: str, *, status: int, clause: str = "") -> JsonResponse:
    return JsonResponse(api_error_body(code, message, clause=clause), status=status)
