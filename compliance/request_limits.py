"""What a request may carry, refused before a view reads it (issue 22, item 6).

* A body larger than ``MAX_REQUEST_BYTES`` (by its ``Content-Length``) is answered 413 before a byte of it is
  read: a 50 MB upload is not read whole to be refused afterwards. The proxy in front refuses it first
  (``client_max_body_size``); this holds when it is missing or set higher.
* A NUL character in the address's query, a form field or a JSON body cannot be kept by any record
  (PostgreSQL's text refuses it): the request is answered 400 in words, nothing saved. So is a form body that
  cannot be read as its Content-Type says (multipart without its boundary). Uploaded files are read
  by their own parsers, which refuse a NUL in words (``coupons.mailing_csv``).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.template.loader import render_to_string

from compliance.api_errors import REQUEST_REFUSALS, api_error_body

__all__ = ["RequestLimitsMiddleware"]

_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _answer(request: HttpRequest, code: str, message: str) -> HttpResponse:
    status = REQUEST_REFUSALS[code][0]
    if request.path.startswith("/api/"):  # the API's one error shape (coupons/api/errors.py)
        return JsonResponse(api_error_body(code, message), status=status)
    page = render_to_string("request_refused.html", {"message": message})
    return HttpResponse(page, status=status)


def _size_words(size: int) -> str:
    return f"{size / (1024 * 1024):.0f} MB" if size >= 1024 * 1024 else f"{size // 1024} KB"


class RequestLimitsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refusal = self._refusal(request)
        return refusal if refusal is not None else self.get_response(request)

    def _refusal(self, request: HttpRequest) -> HttpResponse | None:
        limit = int(settings.MAX_REQUEST_BYTES)
        raw = request.META.get("CONTENT_LENGTH") or "0"
        if not (raw.isascii() and raw.isdigit()):
            return _answer(request, "bad_length", "The request's Content-Length is not a number.")
        if len(raw) > 18 or int(raw) > limit:  # (int() of thousands of digits is refused by Python itself)
            size = _size_words(int(raw)) if len(raw) <= 18 else "far more"
            return _answer(request, "too_large",
                           f"This is {size}; the most one request may carry is {_size_words(limit)}. "
                           "Send a smaller file (split a patron list into several mailings), or ask the "
                           "administrator to raise MAX_REQUEST_BYTES.")
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in query or "%00" in query:
            return _nul(request)
        content_type = request.META.get("CONTENT_TYPE", "").lower()
        if request.method in ("POST", "PUT", "PATCH") and content_type.startswith(_FORM_TYPES):
            try:
                form = request.POST
            except MultiPartParserError:  # e.g. multipart without its boundary: Django's bare 400 page otherwise
                return _answer(request, "malformed_body", "The request's body cannot be read as the form its "
                                                          "Content-Type names. Nothing was saved: send it again.")
            if any("\x00" in value for values in form.lists() for value in values[1]) or any(
                    "\x00" in key for key in form):
                return _nul(request)
        elif request.method in ("POST", "PUT", "PATCH") and int(raw) and b"\x00" in request.body.replace(
                b"\\u0000", b"\x00"):
            return _nul(request)
        return None


def _nul(request: HttpRequest) -> HttpResponse:
    return _answer(request, "nul_character",
                   "A field holds a NUL character (an invisible control character, often pasted from another "
                   "program), which no record can keep. Nothing was saved: type the value again.")

