"""A browser's worth of HTTP for bin/smoke-production: cookies, CSRF, a chosen source address on the loopback (so the
client's address differs from nginx's), TLS against the smoke test's own certificate. Standard library only."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import re
import ssl
import struct
import time
from datetime import date, timedelta
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit

__all__ = ["Client", "Response", "SmokeFailure", "check", "quarter_before", "totp"]


class SmokeFailure(Exception):
    """A check of the smoke test failed; the message says which and what was seen."""


def check(condition: object, words: str) -> None:
    if not condition:
        raise SmokeFailure(words)


class Response:
    def __init__(self, status: int, headers: http.client.HTTPMessage, body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    @property
    def text(self) -> str:
        return self.body.decode(errors="replace")

    def csrf(self) -> str:
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', self.text)
        check(found, f"no CSRF token in the page (status {self.status})")
        assert found is not None
        return found.group(1)


class Client:
    """One person at one address: ``source`` is the loopback address their connections come from."""

    def __init__(self, host: str, https_port: int, http_port: int, ca: Path, source: str = "127.0.0.3") -> None:
        self.host, self.https_port, self.http_port, self.source = host, https_port, http_port, source
        self.context = ssl.create_default_context(cafile=str(ca))
        self.context.check_hostname = False  # the certificate names HOST; we connect to 127.0.0.1
        self.cookies: dict[str, str] = {}

    def as_from(self, source: str) -> Client:
        other = object.__new__(Client)
        other.__dict__.update(self.__dict__, source=source, cookies={})
        return other

    def request(self, method: str, path: str, *, body: bytes | None = None, headers: dict[str, str] | None = None,
                plain: bool = False, host: str | None = None) -> Response:
        if plain:
            connection: http.client.HTTPConnection = http.client.HTTPConnection(
                "127.0.0.1", self.http_port, timeout=60, source_address=(self.source, 0))
        else:
            connection = http.client.HTTPSConnection("127.0.0.1", self.https_port, timeout=60,
                                                     source_address=(self.source, 0), context=self.context)
        sent = {"Host": host or (self.host if plain else f"{self.host}:{self.https_port}"),
                "User-Agent": "compliance-smoke/1", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        connection.request(method, path, body=body, headers=sent)
        answer = connection.getresponse()
        data = answer.read()
        for header in answer.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        connection.close()
        return Response(answer.status, answer.headers, data)

    def get(self, path: str, **kwargs: object) -> Response:
        return self.request("GET", path, **kwargs)  # type: ignore[arg-type]

    def post_form(self, path: str, fields: dict[str, str], *, headers: dict[str, str] | None = None) -> Response:
        token = self.get(path).csrf()
        return self.request("POST", path, body=urlencode({"csrfmiddlewaretoken": token, **fields}).encode(), headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Referer": f"https://{self.host}:{self.https_port}{path}",
            "Origin": f"https://{self.host}:{self.https_port}", **(headers or {})})

    def follow(self, response: Response) -> Response:
        while response.status in {301, 302, 303}:
            response = self.get(urlsplit(response.headers["Location"]).path)
        return response


def totp(secret: str, at: float | None = None) -> str:
    """The 6-digit code an authenticator app shows now for ``secret`` (RFC 6238, SHA-1, 30 s): django-otp's TOTP."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = struct.pack(">Q", int((time.time() if at is None else at) // 30))
    digest = hmac.new(key, counter, hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def quarter_before(today: date) -> tuple[date, date]:
    """The calendar quarter before the one ``today`` is in."""
    first_of_this = date(today.year, 3 * ((today.month - 1) // 3) + 1, 1)
    end = first_of_this - timedelta(days=1)
    return date(end.year, 3 * ((end.month - 1) // 3) + 1, 1), end
