"""The table screen in a real browser (headless Chromium, 800 px wide like the tablet at the table): a
keyboard-wedge scanner types the serial and Enter; accepted in green, then the same coupon refused in red."""

from __future__ import annotations

from typing import Any

import pytest

from compliance.gaming_day import gaming_day
from coupons import services
from coupons.models import Redemption
from tests.browser.conftest import shoot
from tests.coupons.real_clock import _frozen_day, series_expires_on  # noqa: F401  (fixtures)
from tests.coupons.test_browser import SHOTS, _in_browser, _sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def handed_out_today(program, receive, issue, marketing_staff) -> None:
    """Serials 1–20 received, 1–10 issued and given to patrons on today's gaming day (the real clock)."""
    day = gaming_day(program.facility)
    receive(1, 20)
    issue(1, 10, gaming_date=day)
    services.distribution_record(facility=program.facility, series=program.series, spans=[(1, 10)],
                                 user=marketing_staff, gaming_date=day)


def test_a_dealer_scans_a_coupon_and_a_second_scan_is_refused(
    live_server, program, handed_out_today, craps_table, dealer
):
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
        shoot(page, SHOTS / "coupons-table-screen-accept.png")
        page.get_by_label("Chips wagered with it, $ (§ 525.22(b))").fill("40")
        page.get_by_label("Coupon serial").fill("MP-0000007")
        page.get_by_label("Coupon serial").press("Enter")
        seen["refused"] = page.locator(".answer.refused").get_by_text("already redeemed", exact=False).is_visible()
        seen["focus"] = page.evaluate("document.activeElement && document.activeElement.name")
        shoot(page, SHOTS / "coupons-table-screen-refuse.png")

    _in_browser(steps)
    assert seen["accepted"] and seen["breakdown"] and seen["listed"] and seen["refused"], seen
    assert seen["colour"] == "rgb(227, 243, 232)"  # --ok-bg: green
    assert seen["focus"] == "serial"  # ready for the next scan
    assert Redemption.objects.count() == 1


def test_a_scanner_before_the_chips_moves_to_the_chips_and_the_wager_stays_for_the_next_coupon(
    live_server, program, handed_out_today, craps_table, dealer
):
    """§ 525.22(b): each coupon is wagered with chips. A keyboard-wedge scanner types the serial and Enter into the
    field that has the focus: before any chips are entered that Enter is held (no refused redemption) and the
    focus goes to the chips; the chips then stay for the next coupon, whose scan alone redeems it."""
    seen: dict[str, Any] = {}

    def focused(page: Any) -> Any:
        return page.evaluate("document.activeElement && document.activeElement.name")

    def scan(page: Any, serial: str) -> None:  # what the scanner does: keystrokes into the focused field, then Enter
        page.keyboard.type(serial, delay=5)
        page.keyboard.press("Enter")

    def steps(page: Any) -> None:
        page.set_viewport_size({"width": 800, "height": 1280})
        _sign_in(page, live_server, dealer)
        page.goto(f"{live_server.url}/coupons/redeem/tables/{craps_table.pk}/")
        seen["first focus"] = focused(page)
        scan(page, "MP-0000003")  # no chips yet
        page.wait_for_timeout(300)
        seen["held"] = (page.locator(".answer").count(), focused(page),
                        page.get_by_label("Coupon serial").input_value(), page.locator("#scan-prompt").inner_text())
        page.keyboard.type("25")
        page.keyboard.press("Enter")
        page.wait_for_selector(".answer")
        seen["first"] = page.locator(".answer .verdict").inner_text()
        seen["kept"] = (page.get_by_label("Chips wagered with it, $ (§ 525.22(b))").input_value(), focused(page))
        scan(page, "MP-0000004")  # the next coupon: the scan alone
        page.wait_for_selector(".answer.ok")
        seen["second"] = page.locator(".table-screen table.grid").get_by_text("MP-0000004").is_visible()
        # The dealer changes the wager, then scans while the chips field still has the focus.
        chips = page.get_by_label("Chips wagered with it, $ (§ 525.22(b))")
        chips.click()
        chips.fill("40")
        scan(page, "MP-0000005")
        page.wait_for_selector(".answer.ok")
        seen["third"] = page.locator(".table-screen table.grid").get_by_text("MP-0000005").is_visible()
        SHOTS.mkdir(parents=True, exist_ok=True)
        shoot(page, SHOTS / "coupons-table-screen-scanner-first.png")

    _in_browser(steps)
    assert seen["first focus"] == "serial"
    count, focus, serial, prompt = seen["held"]
    assert count == 0 and focus == "chips" and serial == "MP-0000003", seen
    assert "enter the chips wagered with it" in prompt
    assert seen["first"] == "✔ Accept" and float(seen["kept"][0]) == 25 and seen["kept"][1] == "serial", seen
    assert seen["second"] and seen["third"], seen
    redeemed = {r.coupon: r.chips_cents for r in Redemption.objects.all()}
    assert sorted(redeemed.values()) == [2500, 2500, 4000], redeemed
