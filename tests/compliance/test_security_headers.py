"""Security headers on every page, in development and production modes: a Content-Security-Policy with no
inline scripts or styles, beside Django's own (issue 9, item 6)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import override_settings
from django.urls import reverse

from compliance.security import policy_header

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def _assert_headers(response: object) -> None:
    csp = response["Content-Security-Policy"]  # type: ignore[index]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    assert response["X-Frame-Options"] == "DENY"  # type: ignore[index]
    assert response["X-Content-Type-Options"] == "nosniff"  # type: ignore[index]
    assert response["Referrer-Policy"] == "same-origin"  # type: ignore[index]


@pytest.mark.django_db
def test_every_page_carries_the_policy(client, client_for, finance_supervisor):
    _assert_headers(client.get(reverse("login")))
    _assert_headers(client_for(finance_supervisor).get(reverse("dashboard")))


@pytest.mark.django_db
@override_settings(SECURE_SSL_REDIRECT=False, SESSION_COOKIE_SECURE=True, CSRF_COOKIE_SECURE=True,
                   SECURE_HSTS_SECONDS=31_536_000, DEBUG=False)
def test_the_production_settings_carry_it_too(client):
    _assert_headers(client.get(reverse("login"), secure=True))


def test_no_template_has_an_inline_script_or_style():
    offenders = []
    for path in TEMPLATES.rglob("*.html"):
        text = path.read_text()
        if re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text) or re.search(r"\sstyle=\"|<style[\s>]|\son[a-z]+=\"", text):
            offenders.append(str(path.relative_to(TEMPLATES)))
    assert not offenders, f"inline scripts or styles (blocked by the policy): {offenders}"
    assert "'unsafe-inline'" not in policy_header()
