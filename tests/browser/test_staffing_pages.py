"""The roster page in a real browser: a shift manager builds the pit's roster and sees each table judged as it
is filled in; the surveillance page shows the cameras and what is short. Screenshots are looked at."""

from __future__ import annotations

from datetime import time

import pytest

from compliance.staffing import services
from tests.browser.conftest import shoot
from tests.equipment.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_a_shift_manager_builds_a_roster_and_sees_the_gap(login, live_server, facility, shift_manager, dealer,
                                                          surveillance):
    from tests.coupons.test_browser import SHOTS

    tdf = make_table(facility, "three-dice-football", "TDF-1")
    services.shift_create(facility=facility, name="Swing", starts_at=time(14, 0), hours=8, user=shift_manager)
    camera = services.camera_register(facility=facility, code="C-101", user=surveillance, location="Over TDF-1")
    services.coverage_set(camera=camera, table=tdf, end="a", user=surveillance)
    page = login(shift_manager)
    page.goto(f"{live_server.url}/staffing/rosters/")
    page.locator("#id_shift").select_option(index=1)
    page.get_by_role("button", name="Create the roster").click()
    page.wait_for_url(f"{live_server.url}/staffing/rosters/*/")
    page.locator("#id_person").select_option(label=dealer.profile.full_name)
    page.locator("#id_position").select_option("stickperson")
    page.locator("#id_table").select_option(label=str(tdf))
    page.get_by_role("button", name="Place").click()
    page.get_by_text("table TDF-1 has one").wait_for()
    assert page.get_by_text("no camera covers end B").is_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, SHOTS / "staffing-roster.png")
    page.get_by_role("link", name="Fill in the whole pit").click()
    page.get_by_role("button", name="Save the pit's roster").wait_for()
    shoot(page, SHOTS / "staffing-pit.png")
    page.goto(f"{live_server.url}/staffing/cameras/")
    assert page.get_by_text("C-101").first.is_visible()
    shoot(page, SHOTS / "staffing-cameras.png")
