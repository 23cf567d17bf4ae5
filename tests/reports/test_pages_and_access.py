"""The report pages: each kind for a period in a constant number of queries, the job list and a version, the
inspector who sees and downloads everything and produces, signs and files nothing, and hostile input."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from compliance.reports.models import ReportFiling, ReportRun
from compliance.reports.registry import all_kinds
from coupons.models import Redemption

pytestmark = pytest.mark.django_db

AFTER_Q3 = "2026-11-03 14:00:00+00:00"
Q3 = {"start": "2026-07-01", "end": "2026-09-30"}


@pytest.mark.parametrize("kind", [k.code for k in all_kinds() if not k.code.startswith("test-")])
def test_every_report_page_takes_the_same_queries_however_many_rows(facility, denominations, redeemed,
                                                                    compliance_officer, client_for, kind):
    client = client_for(compliance_officer)
    url = reverse("reports:kind", args=[kind])
    period = Q3 if kind != "audit-extract" else {"start": "2026-09-01", "end": "2026-09-30"}

    def queries() -> int:
        with time_machine.travel(AFTER_Q3, tick=True), CaptureQueriesContext(connection) as captured:
            assert client.get(url, period).status_code == 200
        return len(captured)

    redeemed(denominations[500], datetime(2026, 9, 2, 20, 0, tzinfo=UTC), 2)
    few = queries()
    for day in range(3, 20):
        redeemed(denominations[2500 if day % 2 else 1000], datetime(2026, 9, day, 20, 0, tzinfo=UTC), 3)
    redeemed(denominations[500], datetime(2026, 9, 21, 20, 0, tzinfo=UTC), 5, channel=Redemption.Channel.COUNT)
    assert queries() == few


def test_the_redemptions_page_draws_its_chart_and_tables(facility, denominations, redeemed, compliance_officer,
                                                         client_for):
    redeemed(denominations[500], datetime(2026, 9, 2, 20, 0, tzinfo=UTC), 2)
    redeemed(denominations[2500], datetime(2026, 9, 3, 20, 0, tzinfo=UTC), 1)
    with time_machine.travel(AFTER_Q3, tick=True):
        html = client_for(compliance_officer).get(reverse("reports:kind", args=["redemptions"]), Q3).content.decode()
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' in html
    assert "CR-7" in html and "Craps" in html and "$35.00" in html


def test_the_inspector_sees_and_downloads_every_version_but_produces_nothing(facility, denominations, redeemed,
                                                                             compliance_officer, inspector, produce,
                                                                             client_for):
    redeemed(denominations[500], datetime(2026, 8, 2, 20, 0, tzinfo=UTC), 2)
    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", date(2026, 7, 1), date(2026, 9, 30), compliance_officer)
        client = client_for(inspector)
        for url in (reverse("reports:home"), reverse("reports:runs"), reverse("reports:run", args=[run.pk]),
                    reverse("reports:run-progress", args=[run.pk]), reverse("reports:kind", args=["quarterly-coupons"])):
            assert client.get(url).status_code == 200, url
        for fmt in ("pdf", "csv", "json"):
            response = client.get(reverse("reports:file", args=[run.pk, fmt]))
            assert response.status_code == 200 and response["X-Content-SHA256"], fmt
        page = client.get(reverse("reports:run", args=[run.pk])).content.decode()
        assert "Produce" not in page.split("</nav>")[-1] or "Read-only" in page
        before = (ReportRun.objects.count(), ReportFiling.objects.count())
        posts = [(reverse("reports:produce", args=["quarterly-coupons"]), Q3),
                 (reverse("reports:run-retry", args=[run.pk]), {}),
                 (reverse("reports:run-filing", args=[run.pk]), {"filed_on": "2026-11-03", "method": "portal"})]
        for url, data in posts:
            assert client.post(url, data).status_code == 403, url
        assert (ReportRun.objects.count(), ReportFiling.objects.count()) == before


def test_a_person_is_shown_only_the_reports_their_role_may_see(facility, shift_manager, dealer, client_for):
    manager = client_for(shift_manager)
    home = manager.get(reverse("reports:home")).content.decode()
    assert "Staffing and surveillance violations" in home and "Audit trail extract" not in home
    assert manager.get(reverse("reports:kind", args=["audit-extract"])).status_code == 403
    dealer_client = client_for(dealer)
    assert dealer_client.get(reverse("reports:kind", args=["staffing"])).status_code == 403
    assert dealer_client.get(reverse("reports:kind", args=["equipment"])).status_code == 200
    assert dealer_client.post(reverse("reports:produce", args=["equipment"]),
                              {"start": "2026-09-01", "end": "2026-09-30"}).status_code == 403


def test_a_version_of_another_facility_is_not_found(facility, other_facility, compliance_officer, client_for):
    from django.contrib.auth import get_user_model

    run = ReportRun.objects.create(facility=other_facility, kind="equipment", period_start=date(2026, 9, 1),
                                   period_end=date(2026, 9, 30), version=1, requested_by=get_user_model().objects.first())
    client = client_for(compliance_officer)
    assert client.get(reverse("reports:run", args=[run.pk])).status_code == 404
    assert client.get(reverse("reports:file", args=[run.pk, "pdf"])).status_code == 404


@pytest.mark.parametrize("query", [
    {"start": "2026-09-30", "end": "2026-07-01"}, {"start": "0001-01-01", "end": "9999-12-31"},
    {"start": "<script>", "end": "'; DROP TABLE x"}, {"start": "2026-02-30"}, {"start": "1" * 400},
    {"start": "2020-01-01", "end": "2026-09-30"},
])
def test_hostile_periods_get_words_not_errors(facility, compliance_officer, client_for, query):
    client = client_for(compliance_officer)
    with time_machine.travel(AFTER_Q3, tick=True):
        for kind in ("quarterly-coupons", "audit-extract", "redemptions"):
            assert client.get(reverse("reports:kind", args=[kind]), query).status_code == 200
            response = client.post(reverse("reports:produce", args=[kind]), query)
            assert response.status_code == 422  # the form again, with what is wrong
    assert not ReportRun.objects.exists()


def test_hostile_addresses_are_not_found(facility, compliance_officer, client_for):
    client = client_for(compliance_officer)
    for url in ("/reports/nope/", "/reports/runs/99999999999999999999/", "/reports/runs/1/files/..%2f..%2fetc",
                "/reports/runs/1/progress.json", "/reports/nope/produce/"):
        assert client.get(url).status_code == 404, url


def test_producing_refuses_a_future_or_unfinished_period_in_words(facility, compliance_officer, client_for):
    client = client_for(compliance_officer)
    with time_machine.travel(AFTER_Q3, tick=True):
        page = client.post(reverse("reports:produce", args=["quarterly-coupons"]),
                           {"start": "2026-10-01", "end": "2026-12-31"}).content.decode()
    assert "has not ended" in page and "03 Nov 2026" in page
    assert not ReportRun.objects.exists()


def test_the_job_list_takes_the_same_queries_however_many_versions(facility, denominations, redeemed,
                                                                   compliance_officer, produce, client_for):
    client = client_for(compliance_officer)

    def queries() -> int:
        with time_machine.travel(AFTER_Q3, tick=True), CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("reports:runs")).status_code == 200
            assert client.get(reverse("reports:home")).status_code == 200
        return len(captured)

    with time_machine.travel(AFTER_Q3, tick=True):
        produce(facility, "quarterly-coupons", date(2026, 7, 1), date(2026, 9, 30), compliance_officer)
    queries()  # warm: caches filled once per process (content types, the session)
    few = queries()
    with time_machine.travel(AFTER_Q3, tick=True):
        for _ in range(3):
            produce(facility, "quarterly-coupons", date(2026, 7, 1), date(2026, 9, 30), compliance_officer)
            produce(facility, "redemptions", date(2026, 9, 1), date(2026, 9, 30), compliance_officer)
    assert queries() == few


def test_the_dashboard_says_where_the_quarterly_report_stands(facility, denominations, redeemed, finance_supervisor,
                                                              compliance_officer, dealer, produce, client_for):
    from compliance.reports.models import ReportSignoff
    from compliance.services import signature_sign
    from tests.factories import PASSWORD

    client = client_for(compliance_officer)
    with time_machine.travel(AFTER_Q3, tick=True):
        assert "Q3 2026 (01 Jul – 30 Sep 2026): not produced yet." in client.get("/").content.decode()
        run = produce(facility, "quarterly-coupons", date(2026, 7, 1), date(2026, 9, 30), compliance_officer)
        page = client.get("/").content.decode()
        assert "version 1 awaiting Prepared by (finance supervisor), Approved by (compliance officer)" in page
        signoff = ReportSignoff.objects.get(run=run)
        signature_sign(record=signoff, slot="prepared", user=finance_supervisor, password=PASSWORD)
        signature_sign(record=signoff, slot="approved", user=compliance_officer, password=PASSWORD)
        assert "signed, not yet recorded as filed" in client.get("/").content.decode()
        from compliance.reports import services

        services.filing_record(run=run, filed_on=date(2026, 11, 3), method="portal", user=compliance_officer)
        assert "version 1 filed on 03 Nov 2026" in client.get("/").content.decode()
        assert "Quarterly coupon report" not in client_for(dealer).get("/").content.decode()
