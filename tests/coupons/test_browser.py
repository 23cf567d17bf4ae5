"""Marketing's day in a real browser (headless Chromium): scans at the desk, then the day's form."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from coupons.models import CouponDistribution, ReconciliationForm
from tests.browser.conftest import shoot
from tests.browser.day import in_browser
from tests.coupons.real_clock import _frozen_day, series_expires_on  # noqa: F401  (fixtures)
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def _in_browser(steps: Callable[[Any], None]) -> None:
    """``steps(page)`` in a fresh Chromium on a thread of its own, a tablet held landscape (tests/browser/day.py)."""
    in_browser(steps, {"width": 1024, "height": 768})


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
        shoot(page, SHOTS / "coupons-reconciliation.png")

    _in_browser(steps)
    assert seen == {"recorded": True, "held": True, "refused": True, "nothing saved": True, "closed": True}
    assert CouponDistribution.objects.get().quantity == 3
    assert ReconciliationForm.objects.get().is_complete
