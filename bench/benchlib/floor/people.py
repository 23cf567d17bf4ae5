"""The signed-in people of the busy floor (aiohttp): sign-in with the second factor, pages browsed, finance's daily
processing through its form, and a quarterly report requested on its page and followed until the worker is done.

Plain HTTP to gunicorn stands for the TLS proxy of production, as in the redemption bench: every request says
``X-Forwarded-Proto: https`` (``SECURE_PROXY_SSL_HEADER``), so the secure cookies are kept for this origin and a
form's ``Origin`` is the https one Django's CSRF check expects. Redirects are followed by path (Django answers with
the https address).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import html
import json
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from yarl import URL

__all__ = ["Person", "totp"]

_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
_AWAITING = re.compile(r"\$([\d,]+)(?:\.(\d\d))? awaiting processing \(count these\)</dt><dd>([\d,]+) returned, ([\d,]+) voided, "
                       r"([\d,]+) redeemed")
_INPUT_VALUE = r'name="{name}"[^>]*value="([^"]*)"'
_RESTOCK = re.compile(r'<select name="restock_location"[^>]*>(.*?)</select>', re.S)
_OPTION = re.compile(r'<option value="(\d+)"')

Record = Callable[[str, float, float, int, bool], None]  # kind, started, ended, status, as expected


def totp(key_hex: str, at: float | None = None) -> str:
    """The authenticator's code now (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits — django-otp's TOTP device)."""
    counter = int((time.time() if at is None else at) // 30)
    mac = hmac.new(bytes.fromhex(key_hex), counter.to_bytes(8, "big"), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    return f"{(int.from_bytes(mac[offset:offset + 4], 'big') & 0x7FFFFFFF) % 1_000_000:06d}"


class RequestFailed(Exception):
    pass


class Person:
    def __init__(self, port: int, who: str, credentials: dict[str, str], record: Record) -> None:
        self.base, self.who, self.credentials, self.record = f"http://127.0.0.1:{port}", who, credentials, record
        origin = URL(self.base)
        self.headers = {"X-Forwarded-Proto": "https", "Origin": f"https://127.0.0.1:{port}",
                        "Referer": f"https://127.0.0.1:{port}/"}
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True, treat_as_secure_origin=origin),
                                             timeout=aiohttp.ClientTimeout(total=120))

    async def close(self) -> None:
        await self.session.close()

    async def request(self, kind: str, method: str, path: str, data: dict[str, str] | None = None,
                      *, expect: tuple[int, ...] = (200,)) -> tuple[int, str, str]:
        """One request (and the redirects after it, by path); recorded under ``kind``. The final status, body, path."""
        started = time.perf_counter()
        status, body = 0, ""
        try:
            for _ in range(6):
                async with self.session.request(method, self.base + path, data=data, headers=self.headers,
                                                allow_redirects=False) as response:
                    status, body = response.status, await response.text()
                    location = response.headers.get("Location", "")
                if status in (301, 302, 303) and location:
                    target = urlsplit(location)
                    path = target.path + (f"?{target.query}" if target.query else "")
                    method, data = "GET", None
                    continue
                break
        except (TimeoutError, aiohttp.ClientError):
            status = 599
        self.record(kind, started, time.perf_counter(), status, status in expect)
        if status not in expect:
            raise RequestFailed(f"{self.who} {method} {path}: {status} {_said(body)}")
        return status, body, path

    async def sign_in(self) -> None:
        """The sign-in form: username, password and, for a role that needs one, the authenticator's code now."""
        _, page, _ = await self.request("sign-in", "GET", "/accounts/login/", expect=(200,))
        code = totp(self.credentials["totp"]) if self.credentials.get("totp") else ""
        _, _, landed = await self.request("sign-in", "POST", "/accounts/login/", expect=(200,), data={
            "csrfmiddlewaretoken": _csrf(page), "username": self.credentials["username"],
            "password": self.credentials["password"], "otp_token": code})
        if landed.startswith("/accounts/"):
            raise RequestFailed(f"{self.who} could not sign in: ended on {landed}")

    async def browse(self, pages: list[str], until: float, pause: Callable[[], float]) -> None:
        """The pages in turn, a pause between them, until ``until``."""
        n = 0
        while time.perf_counter() < until:
            path = pages[n % len(pages)]
            n += 1
            with contextlib.suppress(RequestFailed):  # recorded as an error; the person goes on to the next page
                await self.request(f"page {path}", "GET", path, expect=(200,))
            await asyncio.sleep(pause())

    async def process_day(self, day: str) -> str:
        """Finance's daily processing of ``day`` through its form: the counts the page says are awaiting."""
        _, page, _ = await self.request("finance: open the day", "GET", f"/coupons/finance/process/?day={day}",
                                        expect=(200,))
        form = {"csrfmiddlewaretoken": _csrf(page), "gaming_date": day, "password": self.credentials["password"],
                "first_count": "", "count_explanation": "", "notes": "Processed during the floor load test"}
        for dollars, cents, returned, voided, redeemed in _AWAITING.findall(html.unescape(page)):
            denomination = int(dollars.replace(",", "")) * 100 + int(cents or 0)
            for label, value in (("returned", returned), ("voided", voided), ("redeemed", redeemed)):
                form[f"{label}_{denomination}"] = value.replace(",", "")
        restock = _RESTOCK.search(page)
        options = _OPTION.findall(restock.group(1)) if restock else []
        form["restock_location"] = options[0] if options else ""
        _, _, landed = await self.request("finance: process the day (POST)", "POST", "/coupons/finance/process/",
                                          form, expect=(200,))
        if not re.fullmatch(r"/coupons/finance/process/\d+/", landed):
            raise RequestFailed(f"finance's processing of {day} ended on {landed}, not on the processing's page")
        return landed

    async def produce_report(self, kind: str) -> tuple[str, float]:
        """Ask for a report of ``kind`` for the page's default period; follow its job until the worker is done.
        The final status and the seconds from the request to the end of the job."""
        _, page, _ = await self.request("report: open the form", "GET", f"/reports/{kind}/produce/", expect=(200,))
        start = re.search(_INPUT_VALUE.format(name="start"), page)
        end = re.search(_INPUT_VALUE.format(name="end"), page)
        asked = time.perf_counter()
        _, _, landed = await self.request("report: request (POST)", "POST", f"/reports/{kind}/produce/", {
            "csrfmiddlewaretoken": _csrf(page), "start": start.group(1) if start else "",
            "end": end.group(1) if end else ""}, expect=(200,))
        run = re.match(r"/reports/runs/(\d+)/", landed)
        if run is None:
            raise RequestFailed(f"the report request landed on {landed}")
        while True:
            await asyncio.sleep(2)
            _, body, _ = await self.request("report: progress", "GET", f"/reports/runs/{run.group(1)}/progress.json",
                                            expect=(200,))
            state: dict[str, Any] = json.loads(body)
            if not state["active"]:
                return str(state["status"]), time.perf_counter() - asked


def _csrf(page: str) -> str:
    found = _CSRF.search(page)
    if found is None:
        raise RequestFailed("no CSRF token on the page")
    return found.group(1)


def _said(page: str) -> str:
    """What a refused form or an error page says (its error lists, else its title)."""
    errors = re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S)
    words = " ".join(re.sub(r"<[^>]+>", " ", e) for e in errors) or " ".join(re.findall(r"<title>(.*?)</title>", page))
    return " ".join(html.unescape(words).split())[:400] or page[:200]
