"""Marketing's screens, § 525.21(j)–(k): the "today" page's two forms, and closing a day while holding coupons that
expire that night."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.urls import reverse

from coupons import services
from coupons.models import CouponDistribution, CouponVoid, ReconciliationForm
from tests.coupons.conftest import PASSWORD, TODAY, approve, make_series

pytestmark = pytest.mark.django_db


def test_the_today_page_has_no_duplicate_ids_and_each_label_points_at_its_own_form_525_21_j(
    program, receive, issue, client_for, marketing_supervisor
):
    receive(1, 100)
    issue(1, 20)
    html = client_for(marketing_supervisor).get(reverse("coupons:today")).content.decode()
    ids = Counter(re.findall(r'\sid="([^"]+)"', html))
    assert [name for name, seen in ids.items() if seen > 1] == []
    assert 'for="id_distribute-serials"' in html and 'id="id_distribute-serials"' in html
    assert 'for="id_void-serials"' in html and 'id="id_void-serials"' in html


def test_the_today_pages_two_forms_post_their_own_fields(
    program, receive, issue, client_for, marketing_supervisor, marketing_staff
):
    receive(1, 100)
    issue(1, 20)
    staff = client_for(marketing_staff)
    assert staff.post(reverse("coupons:distribute"), {"distribute-series": program.series.pk,
                                                      "distribute-serials": "1-3"}).status_code == 302
    assert CouponDistribution.objects.get().quantity == 3
    supervisor = client_for(marketing_supervisor)
    voided = supervisor.post(reverse("coupons:void"), {"void-series": program.series.pk, "void-serials": "4",
                                                       "void-reason": "Torn", "void-password": PASSWORD})
    assert voided.status_code == 302
    assert CouponVoid.objects.get().quantity == 1


def test_closing_the_day_with_coupons_expiring_tonight_kept_is_refused_with_the_way_out_525_21_k(
    program, receive, requisition, client_for, finance_supervisor, marketing_supervisor, compliance_officer
):
    """§ 525.21(k): the form is not signed while marketing would keep coupons that expire tonight; the page says so
    before, and the refusal names the serials to return first."""
    tonight = make_series(program.facility, program.program, finance_supervisor, code="mp25t", prefix="MT",
                          expires_on=TODAY)
    approve(program.facility, program.program, compliance_officer, tonight, kinds=("design",))
    receive(1, 100, series=tonight)
    services.issuance_record(requisition=requisition(10), series=tonight, issued=[(1, 10)], user=finance_supervisor,
                             password=PASSWORD, receiver=services.CoSigner(marketing_supervisor, PASSWORD))
    marketing = client_for(marketing_supervisor)
    assert "expire at the end of today" in marketing.get(reverse("coupons:today")).content.decode()
    day = reverse("coupons:reconciliation", args=[TODAY.isoformat()])
    assert "MT-0000001–MT-0000010" in marketing.get(day).content.decode()
    refused = marketing.post(day, {"count_2500": 10, "disposition": "keep", "kept_in": program.marketing_safe.pk,
                                   "password": PASSWORD})
    assert refused.status_code == 422 and not ReconciliationForm.objects.exists()
    assert "Return serials MT-0000001–MT-0000010 (Match Play MP25T) to finance first" in refused.content.decode()
    returned = marketing.post(day, {"count_2500": 10, "disposition": "return", "password": PASSWORD,
                                    "receiver": finance_supervisor.pk, "receiver_password": PASSWORD})
    assert returned.status_code == 302 and ReconciliationForm.objects.get().returns.get().quantity == 10
