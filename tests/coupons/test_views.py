"""Screens of the coupon ledger: the clerk's flow, refusals in words, the inspector's read-only access."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from compliance.models import Signature
from coupons import services
from coupons.models import CouponIssuance, CouponReceipt, CouponRequisition, LedgerLine, ReconciliationForm
from tests.coupons.conftest import PASSWORD, TODAY

pytestmark = pytest.mark.django_db


def test_a_gaming_day_through_the_screens(
    program, client_for, finance_supervisor, finance_staff, marketing_staff, marketing_supervisor
):
    finance = client_for(finance_supervisor)
    response = finance.post(
        reverse("coupons:receipt-create"),
        {
            "series": program.series.pk,
            "source": "provider",
            "supplier": "Gaming Printers Inc.",
            "invoice_number": "INV-9",
            "invoice_quantity": 1000,
            "invoice_first_serial": 1,
            "invoice_last_serial": 1000,
            "received": "",
            "received_on": TODAY.isoformat(),
            "location": program.vault.pk,
            "password": PASSWORD,
            "examiner_finance": finance_staff.pk,
            "examiner_finance_password": PASSWORD,
            "examiner_marketing": marketing_staff.pk,
            "examiner_marketing_password": PASSWORD,
        },
    )
    receipt = CouponReceipt.objects.get()
    assert response.status_code == 302 and receipt.is_complete
    assert "MP-0000001–MP-0001000" in finance.get(receipt.get_absolute_url()).content.decode()

    marketing = client_for(marketing_supervisor)
    marketing.post(
        reverse("coupons:requisition-create"),
        {
            "program": program.program.pk,
            "needed_for": TODAY.isoformat(),
            "denomination": 2500,
            "quantity": 100,
            "password": PASSWORD,
        },
    )
    requisition = CouponRequisition.objects.get()
    sign = reverse(
        "sign",
        args=[
            Signature._meta.get_field("content_type").related_model.objects.get_for_model(CouponRequisition).pk,
            requisition.pk,
            "authorized",
        ],
    )
    assert finance.post(sign, {"password": PASSWORD}).status_code == 302

    form_page = finance.get(reverse("coupons:issuance-create", args=[requisition.pk]))
    assert "1-100" in form_page.content.decode()  # pre-filled from the ledger
    response = finance.post(
        reverse("coupons:issuance-create", args=[requisition.pk]),
        {
            "series": program.series.pk,
            "serials": "1-100",
            "password": PASSWORD,
            "receiver": marketing_supervisor.pk,
            "receiver_password": PASSWORD,
        },
    )
    assert response.status_code == 302 and CouponIssuance.objects.get().is_complete

    staff = client_for(marketing_staff)
    staff.post(reverse("coupons:distribute"),
               {"distribute-series": program.series.pk, "distribute-serials": "MP-0000001\nMP-0000002"})
    staff.post(reverse("coupons:distribute"), {"distribute-series": program.series.pk, "distribute-serials": "3-10"})
    today = marketing.get(reverse("coupons:today")).content.decode()
    assert "MP-0000011–MP-0000100" in today

    day = reverse("coupons:reconciliation", args=[TODAY.isoformat()])
    page = marketing.get(day).content.decode()
    assert "The ledger expects 90." in page
    refused = marketing.post(day, {"count_2500": 89, "disposition": "return", "password": PASSWORD})
    assert "Explain the variation" in refused.content.decode() and not ReconciliationForm.objects.exists()
    done = marketing.post(
        day,
        {
            "count_2500": 90,
            "disposition": "return",
            "password": PASSWORD,
            "receiver": finance_supervisor.pk,
            "receiver_password": PASSWORD,
        },
    )
    assert done.status_code == 302 and ReconciliationForm.objects.get().is_complete

    pdf = marketing.get(reverse("coupons:reconciliation-pdf", args=[TODAY.isoformat()]))
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")

    ledger = finance.get(reverse("coupons:ledger")).content.decode()
    assert "Returned to finance" in ledger and "MP-0000011–MP-0000100" in ledger


def test_a_refused_receipt_explains_itself_and_saves_nothing(program, receive, client_for, finance_supervisor):
    first = receive(1, 100)
    response = client_for(finance_supervisor).post(
        reverse("coupons:receipt-create"),
        {
            "series": program.series.pk,
            "source": "provider",
            "supplier": "X",
            "invoice_number": "2",
            "invoice_quantity": 100,
            "invoice_first_serial": 50,
            "invoice_last_serial": 149,
            "received_on": "2026-11-03",
            "location": program.vault.pk,
            "password": PASSWORD,
        },
    )
    assert response.status_code == 422
    assert f"were already received on 3 Nov 2026 (receipt #{first.pk})" in response.content.decode()
    assert CouponReceipt.objects.count() == 1


def test_a_receipt_whose_invoice_serials_are_reversed_is_refused_in_words(program, client_for, finance_supervisor):
    client = client_for(finance_supervisor)
    client.raise_request_exception = False
    response = client.post(
        reverse("coupons:receipt-create"),
        {
            "series": program.series.pk, "source": "provider", "supplier": "P", "invoice_number": "I",
            "invoice_quantity": 10, "invoice_first_serial": 100, "invoice_last_serial": 50, "received": "",
            "received_on": TODAY.isoformat(), "location": program.vault.pk, "password": PASSWORD,
        },
    )
    assert response.status_code == 422
    assert "first serial (100) is after its last serial (50)" in response.content.decode()
    assert not CouponReceipt.objects.exists()


def test_the_receipt_service_refuses_reversed_invoice_serials(program, finance_supervisor):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match=r"first serial \(100\) is after its last serial \(50\)"):
        services.receipt_record(
            facility=program.facility, series=program.series, received_on=TODAY, supplier="P", invoice_number="I",
            invoice_quantity=10, invoice_first_serial=100, invoice_last_serial=50, received=[(100, 109)],
            location=program.vault, user=finance_supervisor, password=PASSWORD,
        )
    assert not CouponReceipt.objects.exists()


def _seeded_day(program: Any, receive: Any, issue: Any, marketing_supervisor: Any) -> None:
    receive(1, 100)
    issue(1, 10)
    services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 10},
        user=marketing_supervisor,
        password=PASSWORD,
        disposition="keep",
        kept_in=program.marketing_safe,
    )


def test_the_inspector_reads_everything_and_writes_nothing(
    program, receive, issue, marketing_supervisor, inspector, client_for
):
    _seeded_day(program, receive, issue, marketing_supervisor)
    receipt = CouponReceipt.objects.get()
    requisition = CouponRequisition.objects.get()
    issuance = CouponIssuance.objects.get()
    line = LedgerLine.objects.first()
    assert line is not None
    client = client_for(inspector)
    reads = [
        reverse("coupons:home"),
        reverse("coupons:program"),
        reverse("coupons:series-detail", args=[program.series.pk]),
        reverse("coupons:receipt-detail", args=[receipt.pk]),
        reverse("coupons:requisition-list"),
        reverse("coupons:requisition-detail", args=[requisition.pk]),
        reverse("coupons:issuance-detail", args=[issuance.pk]),
        reverse("coupons:today"),
        reverse("coupons:reconciliation-today"),
        reverse("coupons:reconciliation", args=[TODAY.isoformat()]),
        reverse("coupons:reconciliation-pdf", args=[TODAY.isoformat()]),
        reverse("coupons:reports"),
        reverse("coupons:ledger"),
        reverse("coupons:ledger-csv"),
        reverse("coupons:ledger-pdf"),
    ]
    for url in reads:
        assert client.get(url).status_code == 200, url
    assert client.get(reverse("coupons:document", args=[line.document_type_id, line.document_id])).status_code == 302
    writes = [
        reverse("coupons:approval-create"),
        reverse("coupons:location-create"),
        reverse("coupons:series-create"),
        reverse("coupons:series-expire", args=[program.series.pk]),
        reverse("coupons:receipt-create"),
        reverse("coupons:requisition-create"),
        reverse("coupons:issuance-create", args=[requisition.pk]),
        reverse("coupons:distribute"),
        reverse("coupons:void"),
        reverse("coupons:reconciliation-today"),
        reverse("coupons:reconciliation", args=[TODAY.isoformat()]),
        reverse("coupons:return-create"),
        reverse("coupons:process"),
        reverse("coupons:inventory-create"),
        reverse("coupons:report-resolve", args=["exception", 1]),
        reverse("coupons:report-resolve", args=["deviation", 1]),
    ]
    for url in writes:
        assert client.post(url, {"password": PASSWORD}).status_code == 403, url
    # The inspector sees the forms staff fill in, too (only submitting is refused).
    for url in writes:
        if "resolve" not in url and "expire" not in url:
            assert client.get(url).status_code == 200, url


def test_clerks_open_every_form(
    program, receive, issue, marketing_supervisor, finance_supervisor, compliance_officer, finance_staff, client_for
):
    _seeded_day(program, receive, issue, marketing_supervisor)
    requisition = CouponRequisition.objects.get()
    pages = {
        compliance_officer: ["coupons:approval-create", "coupons:location-create"],
        finance_supervisor: ["coupons:series-create", "coupons:receipt-create"],
        marketing_supervisor: ["coupons:requisition-create", "coupons:return-create", "coupons:void"],
        finance_staff: ["coupons:process", "coupons:inventory-create"],
    }
    for user, names in pages.items():
        client = client_for(user)
        for name in names:
            assert client.get(reverse(name)).status_code == 200, name
    assert (
        client_for(finance_supervisor).get(reverse("coupons:issuance-create", args=[requisition.pk])).status_code == 200
    )
    dashboard = client_for(marketing_supervisor).get(reverse("dashboard")).content.decode()
    assert "Match Play Coupons" in dashboard


def test_roles_without_the_capability_cannot_open_a_form(program, client_for, dealer):
    assert client_for(dealer).get(reverse("coupons:receipt-create")).status_code == 403


def test_another_facilitys_staff_see_none_of_these_coupons(program, receive, other_facility, client_for):
    from compliance.roles import Role
    from tests.factories import make_person

    receipt = receive(1, 10)
    outsider = make_person(Role.FINANCE_SUPERVISOR, other_facility)
    client = client_for(outsider)
    assert client.get(reverse("coupons:series-detail", args=[program.series.pk])).status_code == 404
    assert client.get(reverse("coupons:receipt-detail", args=[receipt.pk])).status_code == 404
    assert len(client.get(reverse("coupons:ledger")).context["page"]) == 0


def test_a_service_refuses_a_series_of_another_facility(program, receive, issue, other_facility, marketing_staff):
    from django.core.exceptions import ValidationError

    receive(1, 10)
    issue(1, 5)
    with pytest.raises(ValidationError, match="another facility"):
        services.distribution_record(
            facility=other_facility, series=program.series, spans=[(1, 1)], user=marketing_staff
        )


def test_the_ledger_filters_by_denomination_serial_and_entry(program, receive, issue, client_for, finance_supervisor):
    receive(1, 100)
    issue(1, 10)
    client = client_for(finance_supervisor)
    page = client.get(reverse("coupons:ledger"), {"denomination": 2500, "kind": "issue"}).context["page"]
    assert [r["span"] for r in page.rows] == ["MP-0000001–MP-0000010"]
    # Serial 50: received, examined into stock (§ 525.21(e)–(f)).
    assert len(client.get(reverse("coupons:ledger"), {"serial": 50}).context["page"]) == 2
    assert client.get(reverse("coupons:ledger"), {"denomination": 500}).status_code == 200


def test_a_new_series_through_its_form(program, client_for, finance_supervisor):
    from compliance.models import Game
    from coupons.models import CouponSeries

    data = {
        "program": program.program.pk,
        "code": "mp50",
        "name": "$50 Match Play",
        "denomination": "50",
        "serial_prefix": "MF",
        "serial_digits": 7,
        "expires_on": "2027-03-31",
        "games": [Game.objects.get(code="craps").pk],
        "wager_restrictions": "Pass line only",
        "shows_logo": "on",
        "value_visible_on_surveillance": "on",
    }
    client = client_for(finance_supervisor)
    refused = client.post(reverse("coupons:series-create"), data)
    assert refused.status_code == 422 and "does not hide the value" in refused.content.decode()
    assert client.post(reverse("coupons:series-create"), {**data, "has_chip_area": "on"}).status_code == 302
    series = CouponSeries.objects.get(code="mp50")
    assert series.denomination_cents == 5000 and series.serial(1) == "MF-0000001"


def test_every_coupon_screen_declares_its_title_and_clause():
    from coupons import urls
    from coupons.views import CouponPage

    assert "title" not in vars(CouponPage) and "citation" not in vars(CouponPage)  # no default to fall back on
    for pattern in urls.urlpatterns:
        view = pattern.callback.view_class
        for name in ("title", "citation"):
            declared = [k for k in view.__mro__ if issubclass(k, CouponPage) and k is not CouponPage and name in vars(k)]
            assert declared and getattr(view, name), f"{pattern.name}: {view.__name__} declares no {name}"


def test_the_remaining_forms_through_the_screens(
    program, receive, issue, client_for, compliance_officer, marketing_supervisor, finance_supervisor, finance_staff
):
    from coupons.models import CouponInventory, CouponReturn, CouponVoid, ExceptionReport, FinanceDayProcessing

    officer = client_for(compliance_officer)
    assert (
        officer.post(
            reverse("coupons:approval-create"),
            {
                "program": program.program.pk,
                "kind": "internal_printing",
                "approved_on": "2026-10-02",
                "reference": "PGCB-IC-9",
                "password": PASSWORD,
            },
        ).status_code
        == 302
    )
    assert (
        officer.post(
            reverse("coupons:location-create"),
            {
                "name": "Cage 3",
                "department": "finance",
                "bcc_approved_on": "2026-10-02",
                "bcc_approval_reference": "BCC-9",
            },
        ).status_code
        == 302
    )

    receive(1, 100)
    issue(1, 20)
    marketing = client_for(marketing_supervisor)
    assert (
        marketing.post(
            reverse("coupons:void"),
            {"void-series": program.series.pk, "void-serials": "20", "void-reason": "Torn", "void-password": PASSWORD},
        ).status_code
        == 302
    )
    assert CouponVoid.objects.get().quantity == 1
    assert (
        marketing.post(
            reverse("coupons:return-create"),
            {
                "what": "all",
                "gaming_date": TODAY.isoformat(),
                "password": PASSWORD,
                "receiver": finance_supervisor.pk,
                "receiver_password": PASSWORD,
            },
        ).status_code
        == 302
    )
    assert CouponReturn.objects.get().quantity == 19
    day = reverse("coupons:reconciliation", args=[TODAY.isoformat()])
    assert marketing.post(day, {"disposition": "return", "password": PASSWORD}).status_code == 302

    finance = client_for(finance_staff)
    count = {
        "gaming_date": TODAY.isoformat(),
        "returned_2500": 19,
        "voided_2500": 0,
        "redeemed_2500": 0,
        "restock_location": program.vault.pk,
        "password": PASSWORD,
    }
    recount = finance.post(reverse("coupons:process"), count)  # § 525.21(m): a differing count is counted again
    assert recount.status_code == 422 and "Count these coupons again" in recount.content.decode()
    first_count = recount.context["form"]["first_count"].value()
    assert (
        finance.post(
            reverse("coupons:process"),
            {**count, "first_count": first_count, "count_explanation": "The torn coupon stayed with marketing"},
        ).status_code
        == 302
    )
    processing = FinanceDayProcessing.objects.get()
    assert processing.variance == 1  # the torn coupon was not brought to finance
    assert finance.get(processing.get_absolute_url()).status_code == 200
    assert (
        finance.post(
            reverse("coupons:inventory-create"),
            {
                # The torn coupon, voided then cancelled, stays in the count until it is destroyed (§ 525.21(n)).
                f"series_{program.series.pk}": "1-100",
                "counted_on": TODAY.isoformat(),
                "password": PASSWORD,
            },
        ).status_code
        == 302
    )
    assert CouponInventory.objects.get().discrepancy == 0

    report = ExceptionReport.objects.get()
    officer.post(reverse("coupons:report-resolve", args=["exception", report.pk]), {"resolution": "Found it."})
    report.refresh_from_db()
    assert report.status == "resolved" and report.resolved_by == compliance_officer
