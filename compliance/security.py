"""The Content-Security-Policy every response carries, beside Django's own security headers.

No inline scripts or styles: every script and stylesheet is a vendored file under ``static/`` (nothing
from a CDN), so a name or a reason that slipped markup into a page could still not run code or restyle
it. Pages, scripts, styles, images and fonts come from this server only; the app is never framed;
forms post only to it. ``CONTENT_SECURITY_POLICY`` in settings holds the directives.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

__all__ = ["DEFAULT_POLICY", "ContentSecurityPolicyMiddleware", "policy_header"]

DEFAULT_POLICY: dict[str, str] = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
}


def policy_header() -> str:
    directives = getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_POLICY)
    return "; ".join(f"{name} {value}" for name, value in directives.items())


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.header = policy_header()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", self.header)
        return response
