"""Serving a stored file: its bytes only while they still match the SHA-256 recorded when they were stored (a
report's file, a new game request's picture, a provider filing's document). One answer for a file altered outside
the application: 409, saying so, and nothing served."""

from __future__ import annotations

from django.http import HttpResponse

__all__ = ["SUFFIXES", "stored_file_response"]

SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "application/pdf": ".pdf"}


def stored_file_response(data: bytes | None, *, name: str, sha256: str, content_type: str, filename: str,
                         inline: bool = False, stored: str = "at upload") -> HttpResponse:
    """``data``: the bytes as the selector read them, None when they no longer match ``sha256``."""
    if data is None:
        return HttpResponse(
            f"The stored file {name} no longer matches the SHA-256 recorded {stored} ({sha256}): it was altered "
            "outside the application. Preserve the database as evidence and tell the compliance officer.",
            status=409, content_type="text/plain; charset=utf-8")
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = f'{"inline" if inline else "attachment"}; filename="{filename}"'
    response["X-Content-SHA256"] = sha256
    return response
