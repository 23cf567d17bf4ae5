"""The report pages in a real browser: a compliance officer produces the quarterly report and watches the job's
progress bar move to done without reloading by hand; the redemptions page draws its chart. Screenshots are
looked at (var/screenshots/)."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime

import pytest

from compliance.reports import services
from compliance.reports.models import ReportRun
from tests.browser.conftest import shoot
from tests.reports.conftest import craps, denominations, redeemed  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_the_job_page_follows_a_report_to_done_and_the_chart_is_drawn(login, live_server, facility, denominations,  # noqa: F811
                                                                      redeemed, compliance_officer):  # noqa: F811
    from tests.coupons.test_browser import SHOTS

    redeemed(denominations[500], datetime(2026, 8, 2, 20, 0, tzinfo=UTC), 3)
    redeemed(denominations[2500], datetime(2026, 8, 20, 20, 0, tzinfo=UTC), 2)
    redeemed(denominations[1000], datetime(2026, 9, 5, 20, 0, tzinfo=UTC), 4)
    # Queued as a request leaves it; no worker yet (the job runs below, while the page watches).
    run = ReportRun.objects.create(facility=facility, kind="quarterly-coupons", period_start=date(2026, 7, 1),
                                   period_end=date(2026, 9, 30), version=1, requested_by=compliance_officer)
    page = login(compliance_officer)
    page.goto(f"{live_server.url}/reports/runs/{run.pk}/")
    assert page.locator(f"[data-status-for='{run.pk}']").inner_text() == "Queued"
    worker = threading.Timer(1.5, services.run_execute, args=[run.pk])
    worker.start()
    page.get_by_role("heading", name="Files").wait_for(timeout=20_000)  # the page reloaded itself when done
    worker.join()
    assert page.locator(f"[data-status-for='{run.pk}']").first.inner_text() == "Succeeded"
    assert page.get_by_text("$105.00").first.is_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, SHOTS / "reports-quarterly-version.png")
    page.goto(f"{live_server.url}/reports/redemptions/?start=2026-08-01&end=2026-09-30")
    assert page.locator("svg.chart rect").count() >= 3
    shoot(page, SHOTS / "reports-redemptions.png")
    page.goto(f"{live_server.url}/reports/")
    shoot(page, SHOTS / "reports-home.png")
