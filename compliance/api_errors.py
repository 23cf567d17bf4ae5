"""The one JSON shape of every error the project's APIs give (the coupon API documents it as ``Error``):

``{"error": {"code": "<stable code>", "message": "<a sentence for the person>", "clause": "525.22(b)",
"fields": {"<field>": ["<what is wrong>"]}}}``. The foundation answers in it where it refuses an API request
before any view (the inspector's read-only rule); an app's API fills the codes and clauses it defines."""

from __future__ import annotations

from typing import Any

from django.http import JsonResponse

__all__ = ["api_error_body", "api_error_response"]


def api_error_body(code: str, message: str, *, clause: str = "",
                   fields: dict[str, list[str]] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "clause": clause, "fields": fields or {}}}


def api_error_response(code: str, message: str, *, status: int, clause: str = "") -> JsonResponse:
    return JsonResponse(api_error_body(code, message, clause=clause), status=status)
