from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import time_machine
from django.urls import reverse

from compliance.reports import selectors, services
from compliance.reports.models import ReportRun

pytestmark = pytest.mark.django_db


def test_smoke(django_capture_on_commit_callbacks, facility, denominations, redeemed, finance_supervisor, compliance_officer, inspector, client_for):
    redeemed(denominations[500], datetime(2026, 8, 1, 20, 0, tzinfo=UTC), 3)
    redeemed(denominations[2500], datetime(2026, 9, 30, 12, 0, tzinfo=UTC), 2)
    with time_machine.travel("2026-11-03 14:00:00+00:00", tick=True):
        with django_capture_on_commit_callbacks(execute=True):
            run = services.run_request(facility=facility, kind="quarterly-coupons", start=date(2026, 7, 1),
                                       end=date(2026, 9, 30), user=compliance_officer)
        run.refresh_from_db()
        assert run.status == ReportRun.Status.SUCCEEDED, run.error
        content = selectors.run_content(run)
        assert content.figures["value_cents"] == 3 * 500 + 2 * 2500
        page = client_for(inspector).get(reverse("reports:run", args=[run.pk]))
        assert page.status_code == 200
        assert "$65.00" in page.content.decode()
        pdf = client_for(inspector).get(reverse("reports:file", args=[run.pk, "pdf"]))
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
        for name in ("reports:home", "reports:runs"):
            assert client_for(inspector).get(reverse(name)).status_code == 200
        for kind in ("quarterly-coupons", "redemptions", "coupon-reconciliation", "equipment", "staffing", "audit-extract"):
            r = client_for(compliance_officer).get(reverse("reports:kind", args=[kind]))
            assert r.status_code == 200, kind
