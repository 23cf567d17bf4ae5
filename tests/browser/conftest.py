"""Headless Chromium (Debian's package) driven by Playwright against Django's live server."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("CI"):
        raise pytest.UsageError("CI must run the browser tests: install Debian's chromium (make browser-deps)")
    skip = pytest.mark.skip(reason="Debian's chromium is not installed (make browser-deps installs it)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    # Playwright's sync API runs an event loop in this thread; Django's ORM calls from the test
    # body are still synchronous, so tell Django that is intended.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=[*ARGS])
        yield browser
        browser.close()
        del profile


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1024, "height": 768})  # a tablet held landscape
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.fixture
def login(page: Any, live_server: Any) -> Any:
    def sign_in(user: Any) -> Any:
        fill_sign_in(page, live_server, user)
        page.wait_for_url(f"{live_server.url}/")
        return page

    return sign_in


def shoot(page: Any, path: Path, *, full_page: bool = True) -> None:
    """A screenshot of the page as it is now. Headless Chromium sometimes answers a capture with "Unable to
    capture screenshot" while it is still compositing the page it has just loaded (CI, 29 Nov 2026); the
    page is then waited for and the capture asked again, at most three times, and any other error is raised."""
    from playwright.sync_api import Error

    for attempt in range(3):
        try:
            page.wait_for_load_state("load")
            page.screenshot(path=str(path), full_page=full_page)
            return
        except Error as error:
            if "Unable to capture screenshot" not in str(error) or attempt == 2:
                raise
            page.wait_for_timeout(500)


def fill_sign_in(page: Any, live_server: Any, user: Any) -> None:
    """The real sign-in form: username, password and the code of the person's authenticator device."""
    from tests.factories import PASSWORD

    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Authentication code").fill(_token_outside_the_event_loop(user))
    page.get_by_role("button", name="Sign in").click()


def _token_outside_the_event_loop(user: Any) -> str:
    """The person's current TOTP code, read in a thread of its own: Playwright's event loop runs in this
    one, where Django refuses database queries."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    from tests.conftest import totp_token

    def read() -> str:
        try:
            return totp_token(user)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(read).result()
