"""The provider pages: a compliance officer records each event; the inspector reads every page and posts
nothing; other staff read; hostile input answers in words, never a 500."""

from __future__ import annotations

from datetime import date

import pytest
from django.urls import reverse

from compliance.providers import services
from compliance.providers.models import Certification, GamingProvider, TableOffering
from compliance.roles import Role
from tests.factories import make_person
from tests.providers.conftest import permission_filings

pytestmark = pytest.mark.django_db

HOSTILE = ["", "-1", "99999999999999999999", "١٢٣", "<b>x", "=HYPERLINK(\"x\")", "9999-12-31", "0001-01-01",
           "2026-02-30", "x" * 400]


@pytest.fixture
def world(facility, provider, offering, table, compliance_officer):
    term = services.certification_record(facility=facility, provider=provider, approved_on=date(2022, 4, 1),
                                         user=compliance_officer)
    permission_filings(facility, provider, compliance_officer, date(2022, 1, 3))
    permission = services.permission_grant(facility=facility, provider=provider, granted_on=date(2022, 1, 3),
                                           user=compliance_officer)
    services.offering_lab_approval_record(facility=facility, offering=offering, approved_on=date(2022, 5, 1),
                                          user=compliance_officer)
    services.offering_use_approve(facility=facility, offering=offering, approved_on=date(2022, 5, 2),
                                  user=compliance_officer)
    row = services.table_offering_assign(table=table, offering=offering, user=compliance_officer)
    return {"provider": provider, "offering": offering, "term": term, "permission": permission, "row": row,
            "table": table}


def _pages(w):
    p, o, t = w["provider"].pk, w["offering"].pk, w["term"].pk
    return [reverse("providers:list"), reverse("providers:create"), reverse("providers:detail", args=[p]),
            reverse("providers:offering-create", args=[p]), reverse("providers:certification-create", args=[p]),
            reverse("providers:permission-create", args=[p]), reverse("providers:offering-lab", args=[o]),
            reverse("providers:offering-approve", args=[o]), reverse("providers:renewal-file", args=[t]),
            reverse("providers:renewal-decide", args=[t]),
            reverse("providers:permission-rescind", args=[w["permission"].pk]), reverse("providers:tables"),
            reverse("providers:assign"), reverse("providers:remove", args=[w["row"].pk])]


def test_the_pages_say_the_status_in_words(world, compliance_officer, client_for):
    client = client_for(compliance_officer)
    detail = client.get(reverse("providers:detail", args=[world["provider"].pk])).content.decode()
    assert "Certified until 1 Apr 2026" in detail and "Due by 31 Jan 2026" in detail
    tables = client.get(reverse("providers:tables")).content.decode()
    assert "SB-7" in tables and "Yes" in tables
    dashboard = client.get("/").content.decode()
    assert "Gaming service providers" in dashboard and "renewal late (was due by 31 Jan 2026, § 528.4(b))" in dashboard


def test_the_inspector_reads_every_page_and_cannot_post(world, inspector, client_for):
    client = client_for(inspector)
    before = (GamingProvider.objects.count(), Certification.objects.count(), TableOffering.objects.count())
    for url in _pages(world):
        assert client.get(url).status_code == 200, url
        assert client.post(url, {"name": "X", "approved_on": "2026-01-01"}).status_code == 403, url
    assert (GamingProvider.objects.count(), Certification.objects.count(), TableOffering.objects.count()) == before


def test_other_staff_read_the_register_but_not_the_forms(world, facility, client_for):
    client = client_for(make_person(Role.SHIFT_MANAGER, facility))
    assert client.get(reverse("providers:detail", args=[world["provider"].pk])).status_code == 200
    assert client.get(reverse("providers:certification-create", args=[world["provider"].pk])).status_code == 403


def test_a_renewal_filed_through_the_form_and_a_refusal_shown_in_words(world, compliance_officer, client_for):
    client = client_for(compliance_officer)
    url = reverse("providers:renewal-file", args=[world["term"].pk])
    refused = client.post(url, {"filed_on": "2099-01-01"})
    assert refused.status_code == 200 and "still to come" in refused.content.decode()
    assert client.post(url, {"filed_on": "2026-01-31"}).status_code == 302
    world["term"].refresh_from_db()
    assert world["term"].renewal_filed_on == date(2026, 1, 31)


def test_assigning_through_the_form_is_refused_in_words_without_approval(world, facility, provider,
                                                                         compliance_officer, client_for):
    bare = services.offering_add(facility=facility, provider=provider, name="Lucky 7 feature",
                                 user=compliance_officer)
    page = client_for(compliance_officer).post(reverse("providers:assign"),
                                               {"table": world["table"].pk, "offering": bare.pk})
    assert page.status_code == 200 and "§ 528.7(1)" in page.content.decode()


def test_hostile_input_gives_words_not_a_500(world, compliance_officer, client_for):
    client = client_for(compliance_officer)
    fields = ["name", "board_file_number", "contact", "game", "approved_on", "certificate_number", "filed_on",
              "decision", "decided_on", "granted_on", "reference", "rescinded_on", "cease_by", "table", "offering"]
    for url in _pages(world):
        for value in HOSTILE:
            response = client.post(url, dict.fromkeys(fields, value))  # 404: the row the first post took off
            assert response.status_code in (200, 302, 400, 404, 405), f"{url} {value!r} gave {response.status_code}"
