"""One person's day in a real browser (tests/browser/test_each_persons_day.py): the clicks it takes, a screenshot of
each step, and axe-core (vendored, tests/browser/vendor/axe.min.js) on every page visited.

A :class:`Day` drives a Playwright page as a person would — through the menu and the links on the page, never by
typing an address after signing in — and counts every click and every Enter, so a test can hold the main jobs to
the paper form's steps. Every page it lands on is checked once with axe-core; serious and critical violations are
collected and the test asserts there are none.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.db import connections

__all__ = ["LAPTOP", "SHOTS", "TABLET", "Day", "in_browser"]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots" / "day"
LAPTOP = {"width": 1280, "height": 800}
TABLET = {"width": 800, "height": 1280}

_SERIOUS = """() => axe.run(document, {resultTypes: ["violations"]}).then(result => result.violations
    .filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => v.impact + " " + v.id + ": " + v.help + " — " + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join("; ")))"""


def in_browser(steps: Callable[[Any], None], viewport: dict[str, int] | None = None) -> None:
    """Run ``steps(page)`` in a fresh Chromium on a thread of its own (Playwright's sync API refuses to start where
    another one runs an event loop; the live server's Django calls stay in their own threads)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make browser-deps installs it)")
    failure: list[BaseException] = []

    def run() -> None:
        from playwright.sync_api import sync_playwright

        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                     args=["--no-sandbox", "--disable-gpu"])
                # axe-core is injected into each page: the Content-Security-Policy would refuse it, so the test's
                # context alone sets it aside (the application's pages keep theirs).
                size = viewport or LAPTOP
                context = browser.new_context(viewport={"width": size["width"], "height": size["height"]},
                                              bypass_csp=True)
                page = context.new_page()
                page.set_default_timeout(15_000)
                try:
                    steps(page)
                finally:
                    browser.close()
        except BaseException as error:  # re-raised in the test's thread
            failure.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=240)
    if thread.is_alive():
        raise AssertionError("the browser steps did not finish in 240 s")
    if failure:
        raise failure[0]


class Day:
    def __init__(self, page: Any, live_server: Any, who: str) -> None:
        self.page = page
        self.base = live_server.url
        self.server = live_server
        self.who = who
        self.clicks = 0
        self.shots: list[Path] = []
        self.violations: list[str] = []
        self._checked: set[str] = set()

    # --- moving about ------------------------------------------------------------------------------------------

    def sign_in(self, user: Any) -> None:
        from tests.browser.conftest import fill_sign_in

        fill_sign_in(self.page, self.server, user)
        self.page.wait_for_url(f"{self.base}/")
        self.check()

    def click(self, locator: Any) -> None:
        """One click, as the person makes it; the page it leads to is checked."""
        locator.click()
        self.clicks += 1
        self.page.wait_for_load_state()
        self.check()

    def enter(self, locator: Any) -> None:
        """Enter in a field (what a keyboard-wedge scanner sends after the serial): one step."""
        locator.press("Enter")
        self.clicks += 1
        self.page.wait_for_load_state()
        self.check()

    def menu(self, label: str, section: str = "") -> None:
        """Open the menu's ``section`` drop-down (when the menu is grouped) and follow ``label``."""
        nav = self.page.locator("nav.mainnav")
        toggle = nav.locator("details.navtoggle > summary")
        if toggle.is_visible():  # the compact menu of a tablet
            self.click(toggle)
        group = nav.locator("details.navgroup > summary", has_text=section)
        if section and group.count():
            self.click(group)
        self.click(nav.get_by_role("link", name=label, exact=True))

    # --- looking -----------------------------------------------------------------------------------------------

    def check(self) -> None:
        """axe-core on this page, once per path: serious and critical violations are kept for the test."""
        path = urlsplit(self.page.url).path
        if path in self._checked:
            return
        self._checked.add(path)
        self.page.add_script_tag(path=str(AXE))
        self.violations += [f"{path}: {v}" for v in self.page.evaluate(_SERIOUS)]

    def shot(self, name: str) -> Path:
        from tests.browser.conftest import shoot

        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{self.who}-{name}.png"
        shoot(self.page, path)
        self.shots.append(path)
        return path

    def done(self, *, at_most: int) -> None:
        """The day's end: within ``at_most`` clicks and no serious or critical accessibility violation."""
        assert not self.violations, "axe-core found:\n" + "\n".join(self.violations)
        assert self.clicks <= at_most, f"{self.who}'s day took {self.clicks} clicks (the paper form: {at_most})"
        assert self._checked, "no page was checked"
