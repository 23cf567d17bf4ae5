"""Each person's day in a real browser (issue 25, item 7): the floor, surveillance, compliance and the Board
inspector, each signing in, finding the work through the menu, doing it in no more clicks than the paper form's
steps, with axe-core on every page (tests/browser/day.py). The coupon roles' days are in
tests/coupons/test_browser_day.py. Screenshots: var/screenshots/day/."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.urls import Resolver404, resolve
from django.utils import timezone

from compliance.navigation import action_page
from compliance.reports import services as report_services
from compliance.reports import tasks as report_tasks
from compliance.reports.models import ReportRun
from compliance.roles import Role
from compliance.services import signature_sign
from compliance.times import local
from tests.browser.day import LAPTOP, TABLET, Day, in_browser
from tests.compliance.readiness_world import world_for
from tests.factories import PASSWORD, make_person
from tests.reports.conftest import craps, denominations, redeemed  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_the_floor_opens_a_table_and_changes_its_dice(live_server, facility):
    world = world_for(facility)
    table = world.table("craps", "CR-1")
    world.table("high-roll-dice", "HRD-1")
    world.approve_rules(None)
    world.set_limits(table)
    seen: dict[str, Any] = {}

    def steps(page: Any) -> None:
        day = Day(page, live_server, "floor")
        day.sign_in(world.floorperson)
        day.shot("dashboard")
        day.menu("Table board", "Floor")
        card = page.locator(".board-table", has_text="CR-1")
        day.click(card.get_by_role("button", name="Open"))
        page.get_by_text("Table CR-1 is open.").wait_for()
        day.shot("opened")
        # High Roll Dice keeps a dice log (ch. 575): its dice go into play, signed by the floor and the dealer.
        day.menu("Table board", "Floor")
        day.click(page.locator(".board-table", has_text="HRD-1").get_by_role("link", name="HRD-1").first)
        day.click(page.get_by_role("link", name=re.compile("Put dice in play|Change dice")))
        page.get_by_label("New dice: serial numbers or lot").fill("LOT 2026-11 1-5")
        page.get_by_label("Dealer present").select_option(index=1)
        page.get_by_label("Dealer's password (the dealer signs too)").fill(PASSWORD)
        page.get_by_label("Your password (signs the record)").fill(PASSWORD)
        day.click(page.locator("main form[method=post]").get_by_role("button").last)
        seen["after"] = page.locator("main").inner_text()
        day.shot("dice-in-play")
        seen["clicks"] = day.clicks
        day.done(at_most=10)  # the board, open; the board, the table, the dice form and its signature

    in_browser(steps, TABLET)
    assert "LOT 2026-11 1-5" in seen["after"], seen["after"][:500]


def test_surveillance_takes_a_camera_out_of_service(live_server, facility):
    world = world_for(facility)
    table = world.table("craps", "CR-1")
    (camera,) = world.watch(table, "a")

    def steps(page: Any) -> None:
        day = Day(page, live_server, "surveillance")
        day.sign_in(world.surveillance)
        day.shot("dashboard")
        day.menu("Cameras", "Floor")
        row = page.locator("tr", has_text=camera.code)
        day.click(row.get_by_role("link", name=re.compile("Out of service")))
        page.get_by_label("Reason").fill("No signal since the storm")
        day.click(page.locator("main form[method=post]").get_by_role("button").last)
        page.locator("tr", has_text=camera.code).get_by_text("Out of service since").wait_for()
        day.shot("camera-out")
        day.done(at_most=4)

    in_browser(steps, LAPTOP)


def test_compliance_produces_signs_and_files_the_quarterly_report(live_server, facility, denominations,  # noqa: F811
                                                                  redeemed, compliance_officer,  # noqa: F811
                                                                  finance_supervisor, monkeypatch):
    redeemed(denominations[500], datetime(2026, 8, 2, 20, 0, tzinfo=UTC), 3)
    redeemed(denominations[2500], datetime(2026, 9, 5, 20, 0, tzinfo=UTC), 2)
    # A worker picks the job up a moment after it is queued, so the page shows it waiting, then running.
    monkeypatch.setattr(report_tasks.produce_report, "delay",
                        lambda run_id: threading.Timer(2.0, report_services.run_execute, args=[run_id]).start())
    seen: dict[str, Any] = {}
    prepared = threading.Event()
    filed_on = local(timezone.now(), facility).date().isoformat()  # sent today, after it was produced

    def steps(page: Any) -> None:
        day = Day(page, live_server, "compliance")
        day.sign_in(compliance_officer)
        day.shot("dashboard")
        day.menu("Reports", "Records")
        card = page.locator(".card", has=page.get_by_role("heading", name=re.compile("quarterly", re.I))).first
        day.click(card.get_by_role("link", name=re.compile("Produce")))
        day.click(page.locator("main form[method=post]").get_by_role("button", name="Produce"))
        seen["progress"] = page.locator("progress, .progress").count()
        day.shot("progress")
        page.get_by_role("heading", name="Files").wait_for(timeout=30_000)  # the page reloads itself when done
        day.shot("produced")
        seen["run_url"] = page.url
        prepared.wait(30)  # the finance supervisor prepares it (signed below, in the test's thread)
        page.reload()
        day.click(page.get_by_role("link", name=re.compile("^Sign")).first)
        page.get_by_label("Your password").fill(PASSWORD)
        day.click(page.locator("main form[method=post]").get_by_role("button").last)
        day.click(page.get_by_role("link", name=re.compile("Record the filing")))
        page.get_by_label("Date sent to the Bureau").fill(filed_on)
        page.get_by_label("How it was sent").select_option(index=1)
        page.get_by_label("Confirmation or tracking number").fill("BCC-2026-Q3-0042")
        day.click(page.locator("main form[method=post]").get_by_role("button", name="Record the filing"))
        day.shot("filed")
        page.get_by_text("BCC-2026-Q3-0042").wait_for()
        day.done(at_most=9)

    def prepare_when_produced() -> None:
        from django.db import connection

        try:
            for _ in range(300):
                run = ReportRun.objects.filter(facility=facility, kind="quarterly-coupons").first()
                if run is not None and run.status == ReportRun.Status.SUCCEEDED:
                    signature_sign(record=run.signoff, slot="prepared", user=finance_supervisor, password=PASSWORD)
                    break
                threading.Event().wait(0.2)
        finally:
            prepared.set()
            connection.close()

    helper = threading.Thread(target=prepare_when_produced)
    helper.start()
    in_browser(steps, LAPTOP)
    helper.join()
    assert seen["progress"] >= 1
    run = ReportRun.objects.get(facility=facility, kind="quarterly-coupons")
    assert run.filing.reference == "BCC-2026-Q3-0042"


def test_the_inspector_browses_and_is_offered_nothing_to_change(live_server, facility, inspector):
    world = world_for(facility)
    world.table("craps", "CR-1")
    make_person(Role.FINANCE_STAFF, facility)
    links: list[tuple[str, str]] = []
    controls: list[str] = []

    def steps(page: Any) -> None:
        day = Day(page, live_server, "inspector")
        day.sign_in(inspector)
        day.shot("dashboard")
        for label, section in (("Audit trail", "Records"), ("Coupon ledger", "Coupons"), ("Table board", "Floor"),
                               ("Reports", "Records"), ("Rules Submission", "Rules"), ("Dice log", "Equipment"),
                               ("Signatures", "Records")):
            day.menu(label, section)
            main = page.locator("main")
            # No button but a filter's; no field to fill but a filter's.
            for button in main.locator("button, input[type=submit]").all():
                form_method = button.evaluate("b => b.form ? (b.form.getAttribute('method') || 'get') : 'none'")
                if form_method.lower() == "post" and button.is_visible():
                    controls.append(f"{page.url}: {button.inner_text() or button.get_attribute('value')}")
            links.extend((page.url, href) for href in main.locator("a[href^='/']").evaluate_all(
                "as => as.map(a => a.getAttribute('href'))"))
            day.shot(label.lower().replace(" ", "-"))
        day.done(at_most=20)

    in_browser(steps, LAPTOP)
    assert not controls, f"the inspector is shown controls: {controls}"
    offered = []
    for where, href in links:
        try:
            view = getattr(resolve(urlsplit(href).path).func, "view_class", None)
        except Resolver404:
            continue
        if action_page(view):
            offered.append(f"{where} → {href}")
    assert not offered, f"the inspector is offered forms: {offered}"
