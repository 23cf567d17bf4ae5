"""The floor opens tables in a real browser, each only when its own requirements hold: a Craps table (rules and
limits only), then a Three Dice Football table once three dealers, two cameras and a floorperson are in place —
and before that sees each unmet requirement, with its clause and the link where it is met. Screenshots are looked
at (var/screenshots/readiness-*.png)."""

from __future__ import annotations

import pytest

from compliance.staffing import services as staffing
from tests.browser.conftest import shoot
from tests.compliance.readiness_world import world_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_the_floor_opens_craps_then_three_dice_football_once_everything_is_in_place(login, live_server, facility):
    from tests.coupons.test_browser import SHOTS

    world = world_for(facility)
    craps = world.table("craps", "CR-1")
    tdf = world.table("three-dice-football", "TDF-1")
    world.approve_rules(None)
    world.set_limits(craps)
    world.set_limits(tdf)
    world.new_dice(tdf, None, "LOT-BROWSER 1-6")
    world.start_roster(None)
    SHOTS.mkdir(parents=True, exist_ok=True)

    page = login(world.floorperson)
    page.goto(f"{live_server.url}/equipment/")
    craps_card = page.locator(".board-table", has_text="CR-1")
    craps_card.get_by_text("Ready to open").wait_for()
    tdf_card = page.locator(".board-table", has_text="TDF-1")
    assert "577.9(b)" in tdf_card.inner_text() and "577.9(a)" in tdf_card.inner_text()
    shoot(page, SHOTS / "readiness-board-before.png")

    # Craps: nothing of the dice chapters stands in the way.
    craps_card.get_by_role("button", name="Open").click()
    page.get_by_text("Table CR-1 is open.").wait_for()

    # Three Dice Football: its page lists every unmet requirement with its clause and where it is met.
    page.goto(f"{live_server.url}/equipment/tables/{tdf.pk}/")
    page.get_by_text("Not ready to open").wait_for()
    readiness = page.locator("#readiness")
    for clause in ("577.9(a)", "577.9(b)", "577.9(c)"):
        assert clause in readiness.inner_text()
    assert readiness.get_by_role("link", name="Meet it here").count() >= 3
    shoot(page, SHOTS / "readiness-tdf-not-ready.png")
    page.get_by_role("button", name="Open table").click()
    page.get_by_text("TDF-1 cannot open").wait_for()

    # Three dealers (one the stickperson), a floorperson over the table, a camera on each end.
    world.staff(tdf, None, dealers=2, stick=True, floor=True)
    for camera in world.watch(tdf, "ab"):
        assert camera.code
    page.goto(f"{live_server.url}/equipment/tables/{tdf.pk}/")
    page.get_by_text("Ready to open").first.wait_for()
    page.get_by_role("button", name="Open table").click()
    page.get_by_text("Table TDF-1 is open.").wait_for()
    page.goto(f"{live_server.url}/equipment/")
    page.locator(".board-table", has_text="TDF-1").get_by_text("Dice:").wait_for()
    assert "In breach" not in page.locator(".board-table", has_text="TDF-1").inner_text()
    shoot(page, SHOTS / "readiness-board-after.png")

    # A dealer leaves without relief: the open table is flagged on the board at once.
    stick = next(a for a in world.roster.assignments.all() if a.position == "stickperson")
    staffing.assignment_end(assignment=stick, user=world.manager, note="left without relief")
    page.goto(f"{live_server.url}/equipment/")
    page.locator(".board-table", has_text="TDF-1").get_by_text("In breach").wait_for()
    shoot(page, SHOTS / "readiness-board-breach.png")
