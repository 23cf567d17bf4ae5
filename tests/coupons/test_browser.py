"""Marketing's day in a real browser (headless Chromium): scans at the desk, then the day's form."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.db import connections
from django.utils import timezone

from coupons.models import CouponDistribution, ReconciliationForm
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


@pytest.fixture
def series_expires_on() -> date:
    return date(timezone.localdate().year + 1, 12, 31)  # the real clock: never expired during a run


@pytest.fixture(autouse=True)
def _frozen_day() -> Iterator[None]:
    # The browser keeps real time (session cookies expire by its clock), so no time travel here.
    yield


def _in_browser(steps: Callable[[Any], None]) -> None:
    """Run ``steps(page)`` in a fresh Chromium on a thread of its own.

    Playwright's sync API refuses to start where another sync Playwright (the foundation's
    session-wide browser, in the same xdist worker) already runs an event loop; a new thread has none.
    """
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make browser-deps installs it)")
    failure: list[BaseException] = []

    def run() -> None:
        from playwright.sync_api import sync_playwright

        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
                )
                page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
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
    thread.join(timeout=120)
    if failure:
        raise failure[0]


def _sign_in(page: Any, live_server: Any, user: Any) -> None:
    from tests.browser.conftest import fill_sign_in

    fill_sign_in(page, live_server, user)
    page.wait_for_url(f"{live_server.url}/")


def test_marketing_scans_coupons_and_completes_the_form(
    live_server, program, receive, issue, marketing_staff, marketing_supervisor
):
    from compliance.gaming_day import gaming_day

    receive(1, 100)
    issue(1, 20, gaming_date=gaming_day(program.facility))  # real time here: the facility's gaming day now
    seen: dict[str, bool] = {}

    def steps(page: Any) -> None:
        _sign_in(page, live_server, marketing_staff)
        page.goto(f"{live_server.url}/coupons/today/")
        page.get_by_label("Serials handed to patrons").fill("MP-0000001\nMP-0000002\nMP-0000003")
        page.get_by_role("button", name="Record").click()
        seen["recorded"] = page.get_by_text("3 coupons recorded as distributed").is_visible()
        seen["held"] = page.get_by_text("MP-0000004–MP-0000020").is_visible()

        page.get_by_role("button", name="Sign out").click()
        _sign_in(page, live_server, marketing_supervisor)
        page.goto(f"{live_server.url}/coupons/reconciliation/")
        page.get_by_label("$25 coupons counted remaining").fill("16")
        page.get_by_label("Your password (marketing supervisor completing the form)").fill(PASSWORD)
        page.get_by_role("button", name="Complete and sign the form").click()
        seen["refused"] = page.get_by_text("Explain the variation before signing").is_visible()
        seen["nothing saved"] = page.get_by_text("Not yet completed").is_visible()

        page.get_by_label("$25 coupons counted remaining").fill("17")
        page.get_by_label("Your password (marketing supervisor completing the form)").fill(PASSWORD)
        page.get_by_role("button", name="Complete and sign the form").click()
        seen["closed"] = page.get_by_text("Completed — day closed").is_visible()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "coupons-reconciliation.png"), full_page=True)

    _in_browser(steps)
    assert seen == {"recorded": True, "held": True, "refused": True, "nothing saved": True, "closed": True}
    assert CouponDistribution.objects.get().quantity == 3
    assert ReconciliationForm.objects.get().is_complete
