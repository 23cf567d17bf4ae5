"""The table screen in a real browser (headless Chromium, 800 px wide like the tablet at the table): a
keyboard-wedge scanner types the serial and Enter; accepted in green, then the same coupon refused in red."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from django.utils import timezone

from compliance.gaming_day import gaming_day
from coupons import services
from coupons.models import Redemption
from tests.coupons.test_browser import SHOTS, _in_browser, _sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def series_expires_on() -> date:
    return date(timezone.localdate().year + 1, 12, 31)  # the real clock: never expired during a run


@pytest.fixture(autouse=True)
def _frozen_day() -> Iterator[None]:
    yield  # real time: the browser's session cookies expire by its own clock


def test_a_dealer_scans_a_coupon_and_a_second_scan_is_refused(
    live_server, program, receive, issue, marketing_staff, craps_table, dealer
):
    day = gaming_day(program.facility)
    receive(1, 20)
    issue(1, 10, gaming_date=day)
    services.distribution_record(facility=program.facility, series=program.series, spans=[(1, 10)],
                                 user=marketing_staff, gaming_date=day)
    seen: dict[str, Any] = {}

    def steps(page: Any) -> None:
        page.set_viewport_size({"width": 800, "height": 1000})
        _sign_in(page, live_server, dealer)
        page.goto(f"{live_server.url}/coupons/redeem/tables/{craps_table.pk}/")
        page.get_by_label("Chips wagered with it, $ (§ 525.22(b))").fill("40")
        page.get_by_label("Coupon serial").fill("MP-0000007")
        page.get_by_label("Coupon serial").press("Enter")  # what a keyboard-wedge scanner does
        seen["accepted"] = page.locator(".answer.ok .verdict").inner_text() == "✔ Accept"
        seen["breakdown"] = page.get_by_text("the remaining $15 beside it", exact=False).is_visible()
        seen["listed"] = page.locator("table.grid").get_by_text("MP-0000007").is_visible()
        seen["colour"] = page.locator(".answer.ok").evaluate("e => getComputedStyle(e).backgroundColor")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "coupons-table-screen-accept.png"), full_page=True)
        page.get_by_label("Chips wagered with it, $ (§ 525.22(b))").fill("40")
        page.get_by_label("Coupon serial").fill("MP-0000007")
        page.get_by_label("Coupon serial").press("Enter")
        seen["refused"] = page.locator(".answer.refused").get_by_text("already redeemed", exact=False).is_visible()
        seen["focus"] = page.evaluate("document.activeElement && document.activeElement.name")
        page.screenshot(path=str(SHOTS / "coupons-table-screen-refuse.png"), full_page=True)

    _in_browser(steps)
    assert seen["accepted"] and seen["breakdown"] and seen["listed"] and seen["refused"], seen
    assert seen["colour"] == "rgb(227, 243, 232)"  # --ok-bg: green
    assert seen["focus"] == "serial"  # ready for the next scan
    assert Redemption.objects.count() == 1
