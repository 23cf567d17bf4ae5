"""Per-device token authentication for table scanners: ``Authorization: Token <token>``.

Only the token's SHA-256 is stored; a revoked device is refused with code ``token_revoked``. The
authenticated principal is the device's own service account and ``request.auth`` the device.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from coupons.selectors.redemption import scanner_by_token_sha256
from coupons.services.scanners import token_sha256


def _device_of(request: Any, digest: str) -> Any:
    """The scanner whose token has this digest, read once a request: the scanners' front door reads it first
    (coupons/api/front.py), and a request it leaves to the view is not read again."""
    http = getattr(request, "_request", request)
    held = getattr(http, "_scanner_read", None)
    if held is not None and held[0] == digest:
        return held[1]
    device = scanner_by_token_sha256(digest)
    http._scanner_read = (digest, device)
    return device


class ScannerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2 or len(header[1]) > 200:
            raise exceptions.AuthenticationFailed("Send the scanner's token as 'Authorization: Token <token>'.",
                                                  code="not_authenticated")
        try:
            token = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("The token is not valid.", code="not_authenticated") from None
        device = _device_of(request, token_sha256(token))
        if device is None:
            raise exceptions.AuthenticationFailed("The token is not valid.", code="not_authenticated")
        if not device.is_active:
            raise exceptions.AuthenticationFailed(
                f"The scanner {device.name} was revoked; ask the shift manager for a new token.", code="token_revoked")
        return device.account, device

    def authenticate_header(self, request: Any) -> str:
        return self.keyword


class ScannerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "coupons.api.authentication.ScannerTokenAuthentication"
    name = "scannerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Token <token>`: the token shown once when the table's scanner was registered."}
