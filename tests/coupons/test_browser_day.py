"""The coupon roles' days in a real browser (issue 25, item 7): finance, marketing and the dealer, each signing in,
finding the work through the menu and the links on their pages, doing it in no more clicks than the paper form's
steps, with axe-core on every page (tests/browser/day.py). Each test sets up its own data through the services.
Screenshots: var/screenshots/day/."""

from __future__ import annotations

import re
import threading
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.utils import timezone

from compliance.gaming_day import gaming_day
from compliance.services import signature_sign
from coupons import services
from coupons.models import (
    CouponInventory,
    CouponIssuance,
    CouponReceipt,
    CouponRequisition,
    CouponReturn,
    FinanceDayProcessing,
    ReconciliationForm,
    Redemption,
)
from coupons.services.redemption import Scan
from tests.browser.day import LAPTOP, TABLET, Day, in_browser
from tests.coupons.real_clock import _frozen_day, series_expires_on  # noqa: F401  (fixtures)
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def _submit(page: Any, name: str | re.Pattern[str]) -> Any:
    return page.locator("main form[method=post]").get_by_role("button", name=name)


def test_finance_receives_issues_processes_and_takes_the_inventory(
    live_server,
    program,
    receive,
    issue,
    craps_table,
    dealer,
    marketing_staff,
    marketing_supervisor,
    finance_supervisor,
    finance_staff,
):
    """§ 525.21(e)–(i), (m), (n). Yesterday (set up through the services): 20 coupons issued to marketing, 10
    handed to patrons, 2 of them redeemed at a craps table, 1 voided by marketing, the other 9 returned with the
    signed form. This morning finance staff processes yesterday (a first count that differs is asked again); the
    finance supervisor receives a shipment examined by a finance and a marketing member who sign on the receipt,
    authorizes marketing's requisition and issues against it; finance staff then takes the monthly inventory."""
    facility, series = program.facility, program.series
    with time_machine.travel(timezone.now() - timedelta(days=1), tick=True):
        yesterday = gaming_day(facility)
        receive(1, 100, received_on=yesterday)
        issue(1, 20, gaming_date=yesterday)
        services.distribution_record(
            facility=facility, series=series, spans=[(1, 10)], user=marketing_staff, gaming_date=yesterday
        )
        for serial in ("MP-0000003", "MP-0000004"):
            services.redemption_record(
                facility=facility,
                user=dealer,
                scan=Scan(serial=serial, table=craps_table, position="pass_line", chips_cents=2500),
            )
        services.coupons_void(
            facility=facility,
            series=series,
            spans=[(11, 11)],
            reason="Torn at the desk",
            user=marketing_supervisor,
            password=PASSWORD,
        )
        services.reconciliation_complete(
            facility=facility,
            gaming_date=yesterday,
            counted_remaining={2500: 9},
            user=marketing_supervisor,
            password=PASSWORD,
            receiver=services.CoSigner(finance_supervisor, PASSWORD),
        )
    today = gaming_day(facility)
    assert today == yesterday + timedelta(days=1)
    requisition = services.requisition_prepare(
        facility=facility,
        program=program.program,
        denomination_cents=2500,
        quantity=30,
        needed_for=today,
        user=marketing_supervisor,
        password=PASSWORD,
    )
    seen: dict[str, Any] = {}

    def steps(page: Any) -> None:
        day = Day(page, live_server, "finance")
        # Finance staff, first thing: yesterday's documents and coupons, § 525.21(m).
        day.sign_in(finance_staff)
        day.shot("staff-dashboard")
        day.click(page.get_by_role("link", name=re.compile(f"Finance has not processed {yesterday:%a %d %b}")))
        page.get_by_label("$25 returned coupons counted").fill("9")
        page.get_by_label("$25 voided coupons counted").fill("1")
        page.get_by_label("$25 redeemed coupons counted").fill("1")  # one coupon missed in the drop box
        page.get_by_label("Returned coupons go back to").select_option(label=str(program.vault))
        page.get_by_label("Your password (finance, counted and reviewed)").fill(PASSWORD)
        day.click(_submit(page, "Reconcile, cancel and sign"))
        page.get_by_text("Count these coupons again").wait_for()
        day.shot("count-again")
        page.get_by_label("$25 redeemed coupons counted").fill("2")  # counted again: the ledger's 2
        page.get_by_label("Your password (finance, counted and reviewed)").fill(PASSWORD)
        day.click(_submit(page, "Reconcile, cancel and sign"))
        page.get_by_text("The day reconciles.").wait_for()
        day.shot("processed")
        day.click(page.get_by_role("button", name="Sign out"))

        # The finance supervisor: marketing's requisition, first on the work list, is authorized (§ 525.21(g)(5))
        # and issued against (h); then the shipment, examined by a finance and a marketing member (e)–(f).
        day.sign_in(finance_supervisor)
        day.shot("supervisor-dashboard")
        day.click(page.get_by_role("link", name=re.compile(f"Requisition #{requisition.pk}:")))
        page.get_by_label(re.compile("^Your password")).fill(PASSWORD)
        day.shot("authorize")
        day.click(page.locator("main form[method=post]").get_by_role("button").last)
        day.click(page.get_by_role("link", name="Issue coupons against this requisition"))
        page.get_by_label("Marketing supervisor receiving (optional, signs now)").select_option(
            str(marketing_supervisor.pk)
        )
        page.locator("#id_receiver_password").fill(PASSWORD)
        page.get_by_label("Your password (finance supervisor issuing)").fill(PASSWORD)
        day.shot("issue-form")
        day.click(_submit(page, "Record in the ledger and sign"))
        page.get_by_text(re.compile(r"Issuance #\d+ recorded: 30 coupons")).wait_for()
        day.shot("issued")

        day.menu("Coupon stock", "Coupons")
        day.shot("stock")
        day.click(page.get_by_role("link", name=re.compile("Record coupons received")))
        page.get_by_label("Provider or print shop").fill("Gaming Printers Inc.")
        page.get_by_label("Invoice number").fill("INV-2026-0117")
        page.get_by_label("Quantity on the invoice").fill("500")
        page.get_by_label("First serial on the invoice").fill("101")
        page.get_by_label("Last serial on the invoice").fill("600")
        page.get_by_label("Your password (finance supervisor recording)").fill(PASSWORD)
        page.get_by_label("Finance member who examined (optional, signs now)").select_option(str(finance_staff.pk))
        page.locator("#id_examiner_finance_password").fill(PASSWORD)
        page.get_by_label("Marketing member who examined (optional, signs now)").select_option(str(marketing_staff.pk))
        page.locator("#id_examiner_marketing_password").fill(PASSWORD)
        day.shot("receipt-form")
        day.click(_submit(page, "Record in the ledger and sign"))
        page.get_by_text(re.compile(r"Receipt #\d+ recorded: 500 coupons")).wait_for()
        day.shot("received")
        day.click(page.get_by_role("button", name="Sign out"))

        # Finance staff: the monthly inventory of every coupon not distributed to patrons, § 525.21(n).
        day.sign_in(finance_staff)
        day.menu("Coupon stock", "Coupons")
        day.click(page.get_by_role("link", name=re.compile("Monthly inventory")))
        page.get_by_label(f"{series.name}: serials counted").fill("11-600")  # voided 11, kept; stock; marketing's
        page.get_by_label("Your password (finance, took the inventory)").fill(PASSWORD)
        day.shot("inventory-form")
        day.click(_submit(page, "Record in the ledger and sign"))
        page.get_by_text("the count agrees with the ledger").wait_for()
        seen["inventory"] = page.locator("main").inner_text()
        day.shot("inventory")
        seen["clicks"] = day.clicks
        # The paper's steps, one a form opened or signed: the processing — the day on the work list, a count asked
        # again, the signed count (3); the authorization — the work list's line, signed (2); the issuance — the form,
        # signed with the receiving supervisor on it (2); the receipt — the stock book (the grouped menu: 2), the
        # form, signed with both examiners on it (4); the inventory — the book, the form, signed (3); two sign-outs
        # between the persons (2). 16 at most.
        day.done(at_most=16)

    in_browser(steps, LAPTOP)
    processing = FinanceDayProcessing.objects.get(gaming_date=yesterday)
    assert (processing.variance, processing.counted_redeemed, processing.counted_returned) == (0, 2, 9)
    receipt = CouponReceipt.objects.get(invoice_number="INV-2026-0117")
    assert receipt.quantity == 500 and receipt.is_complete
    requisition.refresh_from_db()
    assert requisition.is_complete
    assert CouponIssuance.objects.get(requisition=requisition).quantity == 30
    inventory = CouponInventory.objects.get()
    assert not inventory.discrepancy, seen["inventory"][:1500]
    assert Redemption.objects.count() == 2


def test_marketing_requisitions_distributes_and_completes_the_form(
    live_server, program, receive, marketing_supervisor, finance_supervisor
):
    """§ 525.21(g), (j), (k): the marketing supervisor requisitions coupons (finance issues them, through the
    services, while the page waits), hands ten to patrons on "Marketing today" — scanned, one serial and Enter
    each — and completes the day's form, returning the rest with the finance supervisor signing on the same form."""
    facility = program.facility
    receive(1, 100)
    ready = threading.Event()

    def finance_issues() -> None:
        try:
            for _ in range(300):
                requisition = CouponRequisition.objects.filter(facility=facility).first()
                if requisition is not None:
                    signature_sign(record=requisition, slot="authorized", user=finance_supervisor, password=PASSWORD)
                    services.issuance_record(
                        requisition=requisition,
                        series=program.series,
                        issued=[(1, 20)],
                        user=finance_supervisor,
                        password=PASSWORD,
                        receiver=services.CoSigner(marketing_supervisor, PASSWORD),
                    )
                    break
                threading.Event().wait(0.2)
        finally:
            ready.set()
            connection.close()

    def steps(page: Any) -> None:
        day = Day(page, live_server, "marketing")
        day.sign_in(marketing_supervisor)
        day.shot("dashboard")
        day.menu("Requisitions", "Coupons")
        day.click(page.get_by_role("link", name="New requisition"))
        page.get_by_label("Quantity").fill("20")
        page.get_by_label("Promotion").fill("Thanksgiving weekend")
        page.get_by_label("Your password (marketing supervisor completing the requisition)").fill(PASSWORD)
        day.shot("requisition-form")
        day.click(_submit(page, "Complete and sign"))
        page.get_by_text("A finance supervisor must now authorize it").wait_for()
        day.shot("requisitioned")
        ready.wait(30)  # finance authorizes and issues; the supervisor brings the coupons back to the desk

        day.menu("Marketing today", "Coupons")
        serials = page.get_by_label("Serials handed to patrons")
        serials.click()
        for n in range(1, 11):  # a keyboard-wedge scanner: the serial, then Enter (a new line here)
            page.keyboard.type(f"MP-{n:07d}", delay=2)
            page.keyboard.press("Enter")
        day.click(page.locator("main form[action$='/distribute/']").get_by_role("button", name="Record"))
        page.get_by_text("10 coupons recorded as distributed").wait_for()
        day.shot("distributed")

        day.click(page.get_by_role("link", name="Open today's reconciliation form"))
        page.get_by_label("$25 coupons counted remaining").fill("10")
        page.get_by_label("Your password (marketing supervisor completing the form)").fill(PASSWORD)
        page.get_by_label("Finance supervisor receiving the return (optional, signs now)").select_option(
            str(finance_supervisor.pk)
        )
        page.locator("#id_receiver_password").fill(PASSWORD)
        day.shot("form")
        day.click(_submit(page, "Complete and sign the form"))
        page.get_by_text("Completed — day closed").wait_for()
        page.get_by_text("Returned to finance with a copy of this form").wait_for()
        day.shot("signed")
        # The requisition — the book, a new form, signed (3); the distribution — the day's page, the serials
        # recorded (2; a scan is not a click); the day's form — opened, completed and signed with finance's receipt
        # of the return on it (2). 7 at most.
        day.done(at_most=7)

    helper = threading.Thread(target=finance_issues)
    helper.start()
    in_browser(steps, LAPTOP)
    helper.join()
    requisition = CouponRequisition.objects.get()
    assert (requisition.quantity, requisition.promotion) == (20, "Thanksgiving weekend")
    form = ReconciliationForm.objects.get()
    assert form.is_complete
    returned = CouponReturn.objects.get()
    assert returned.quantity == 10 and returned.is_complete


def test_the_dealer_scans_two_coupons_on_a_tablet(
    live_server, program, receive, issue, marketing_staff, craps_table, dealer
):
    """§ 525.22(b): the chips are entered once and kept; each coupon is a scan and the scanner's Enter."""
    facility = program.facility
    today = gaming_day(facility)
    receive(1, 20)
    issue(1, 10, gaming_date=today)
    services.distribution_record(
        facility=facility, series=program.series, spans=[(1, 10)], user=marketing_staff, gaming_date=today
    )
    seen: dict[str, Any] = {}

    def steps(page: Any) -> None:
        day = Day(page, live_server, "dealer")
        day.sign_in(dealer)
        day.shot("dashboard")
        day.menu("Redeem at a table", "Floor")
        day.shot("tables")
        day.click(page.get_by_role("link", name=re.compile("Table CR-1")))
        page.get_by_label("Chips wagered with it, $ (§ 525.22(b))").fill("25")
        serial = page.get_by_label("Coupon serial")
        for coupon in ("MP-0000004", "MP-0000005"):
            serial.fill(coupon)
            day.enter(serial)
            page.locator(".answer.ok").wait_for()
            seen.setdefault("answers", []).append(page.locator(".answer .verdict").inner_text())
        seen["listed"] = page.locator(".table-screen table.grid").inner_text()
        day.shot("accepted")
        # The table — the tablet's compact menu, its line, the table's tile (3); each coupon the scanner's Enter (2).
        day.done(at_most=5)

    in_browser(steps, TABLET)
    assert seen["answers"] == ["✔ Accept", "✔ Accept"], seen
    assert "MP-0000004" in seen["listed"] and "MP-0000005" in seen["listed"]
    assert sorted(Redemption.objects.values_list("serial", "chips_cents")) == [(4, 2500), (5, 2500)]
