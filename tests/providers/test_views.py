"""The provider pages: a compliance officer records each event; the inspector reads every page and posts
nothing; other staff read; hostile input answers in words, never a 500."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from compliance.providers import services
from compliance.providers.models import Certification, GamingProvider, ProviderFiling, TableOffering
from compliance.roles import Role
from tests.compliance.test_shown_to_each_person import _parse
from tests.factories import make_person
from tests.providers.conftest import PDF, file_filing, permission_filings

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
            "table": table, "filing": ProviderFiling.objects.filter(kind="due_diligence").get()}


def _pages(w):
    p, o, t = w["provider"].pk, w["offering"].pk, w["term"].pk
    return [reverse("providers:list"), reverse("providers:create"), reverse("providers:detail", args=[p]),
            reverse("providers:offering-create", args=[p]), reverse("providers:certification-create", args=[p]),
            reverse("providers:permission-create", args=[p]), reverse("providers:offering-lab", args=[o]),
            reverse("providers:offering-approve", args=[o]), reverse("providers:renewal-file", args=[t]),
            reverse("providers:renewal-decide", args=[t]),
            reverse("providers:permission-rescind", args=[w["permission"].pk]), reverse("providers:tables"),
            reverse("providers:assign"), reverse("providers:remove", args=[w["row"].pk]),
            reverse("providers:filing-create"), reverse("providers:filing-document", args=[w["filing"].pk])]


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
    def counts():
        return (GamingProvider.objects.count(), Certification.objects.count(), TableOffering.objects.count(),
                ProviderFiling.objects.count())

    before = counts()
    for url in _pages(world):
        assert client.get(url).status_code == 200, url
        assert client.post(url, {"name": "X", "approved_on": "2026-01-01"}).status_code == 403, url
    filing = {"provider": world["provider"].pk, "kind": "application", "filed_on": "2026-03-01",
              "document": SimpleUploadedFile("a.pdf", PDF, content_type="application/pdf")}
    assert client.post(reverse("providers:filing-create"), filing).status_code == 403
    assert counts() == before
    page = client.get(reverse("providers:detail", args=[world["provider"].pk])).content.decode()
    assert "This facility's filings" in page and "due_diligence.pdf" in page
    form_page = client.get(reverse("providers:filing-create")).content.decode()
    [form] = [f for f in _parse(form_page).forms if f["method"] == "post" and not f["action"]]
    assert form["fields"] and form["enabled_fields"] == 0 and form["submits"] == 0 and "Read-only" in form_page


def test_other_staff_read_the_register_but_not_the_forms(world, facility, client_for):
    client = client_for(make_person(Role.SHIFT_MANAGER, facility))
    assert client.get(reverse("providers:detail", args=[world["provider"].pk])).status_code == 200
    assert client.get(reverse("providers:certification-create", args=[world["provider"].pk])).status_code == 403


def test_a_renewal_filed_through_the_form_and_a_refusal_shown_in_words(world, compliance_officer, client_for):
    client = client_for(compliance_officer)
    url = reverse("providers:renewal-file", args=[world["term"].pk])
    refused = client.post(url, {"filed_on": "2099-01-01"})
    assert refused.status_code == 422 and "still to come" in refused.content.decode()
    assert client.post(url, {"filed_on": "2026-01-31"}).status_code == 302
    world["term"].refresh_from_db()
    assert world["term"].renewal_filed_on == date(2026, 1, 31)


def test_assigning_through_the_form_is_refused_in_words_without_approval(world, facility, provider,
                                                                         compliance_officer, client_for):
    bare = services.offering_add(facility=facility, provider=provider, name="Lucky 7 feature",
                                 user=compliance_officer)
    page = client_for(compliance_officer).post(reverse("providers:assign"),
                                               {"table": world["table"].pk, "offering": bare.pk})
    assert page.status_code == 422 and "§ 528.7(1)" in page.content.decode()


def test_hostile_input_gives_words_not_a_500(world, compliance_officer, client_for):
    client = client_for(compliance_officer)
    fields = ["name", "board_file_number", "contact", "game", "approved_on", "certificate_number", "filed_on",
              "decision", "decided_on", "granted_on", "reference", "rescinded_on", "cease_by", "table", "offering"]
    for url in _pages(world):
        for value in HOSTILE:
            response = client.post(url, dict.fromkeys(fields, value))  # 404: the row the first post took off
            assert response.status_code in (200, 302, 400, 404, 405, 422), f"{url} {value!r} gave {response.status_code}"


def test_a_late_renewal_is_flagged_on_the_register_the_providers_page_and_the_dashboard(world, compliance_officer,
                                                                                        client_for):
    services.renewal_file(facility=world["table"].facility, certification=world["term"], filed_on=date(2026, 3, 2),
                          user=compliance_officer)  # 30 days before the expiry of 1 Apr 2026: late
    client = client_for(compliance_officer)
    for url in (reverse("providers:list"), reverse("providers:detail", args=[world["provider"].pk]), "/",
                reverse("providers:tables")):
        page = client.get(url).content.decode()
        assert "Renewal filed late: received 2 Mar 2026, due by 31 Jan 2026" in page, url
        assert "§ 528.4(b)" in page, url


def test_a_filing_recorded_through_the_form_with_its_document(world, compliance_officer, client_for):
    client = client_for(compliance_officer)
    provider = world["provider"]
    form = client.get(reverse("providers:filing-create"), {"provider": provider.pk, "kind": "investigation"})
    assert form.status_code == 200 and 'enctype="multipart/form-data"' in form.content.decode()
    data = {"provider": provider.pk, "kind": "investigation", "filed_on": "2026-03-01", "reference": "INV-3",
            "summary": "Background clean; two officers interviewed", "finding": "suitable"}
    refused = client.post(reverse("providers:filing-create"),
                          data | {"document": SimpleUploadedFile("x.pdf", b"GIF89a", content_type="application/pdf")})
    assert refused.status_code == 422 and "is not a PDF document" in refused.content.decode()
    done = client.post(reverse("providers:filing-create"),
                       data | {"document": SimpleUploadedFile("report.pdf", PDF, content_type="application/pdf")})
    assert done.status_code == 302 and done["Location"].startswith(reverse("providers:detail", args=[provider.pk]))
    filing = ProviderFiling.objects.get(kind="investigation")
    page = client.get(reverse("providers:detail", args=[provider.pk])).content.decode()
    assert "report.pdf" in page and "Background clean" in page and "No investigation recorded" not in page
    document = client.get(reverse("providers:filing-document", args=[filing.pk]))
    assert document.content == PDF and document["X-Content-SHA256"] == filing.sha256
    assert document["Content-Disposition"].startswith("attachment")
    correct = client.get(reverse("providers:filing-create"), {"corrects": filing.pk}).content.decode()
    assert "Background clean; two officers interviewed" in correct


def test_a_permission_through_the_form_is_refused_in_words_without_the_filings(world, facility, compliance_officer,
                                                                               client_for):
    bare = services.provider_register(facility=facility, name="Lucky Seven LLC", board_file_number="GSP-528-02",
                                      user=compliance_officer)
    page = client_for(compliance_officer).post(reverse("providers:permission-create", args=[bare.pk]),
                                               {"granted_on": "2026-03-01"})
    assert page.status_code == 422 and "§ 528.8(a)(1)" in page.content.decode()


def test_another_facilitys_filing_is_not_found_here(world, other_facility, compliance_officer, client_for):
    theirs = file_filing(other_facility, world["provider"], make_person(Role.COMPLIANCE_OFFICER, other_facility),
                         "application")
    client = client_for(compliance_officer)
    assert client.get(reverse("providers:filing-document", args=[theirs.pk])).status_code == 404


def test_hostile_uploads_and_values_on_the_filing_form_give_words_not_a_500(world, compliance_officer, client_for):
    client = client_for(compliance_officer)
    url = reverse("providers:filing-create")
    base = {"provider": world["provider"].pk, "kind": "qualification", "filed_on": "2026-03-01",
            "subject_name": "Jo Tan", "subject_role": "officer_director", "qualification": "qualified"}
    files = [b"", b"%PDF-", b"\x89PNG\r\n\x1a\n", b"<script>alert(1)</script>", b"\xff\xd8\xff" + b"\x00" * 10, PDF]
    names = ["a.pdf", "", "x" * 400 + ".pdf", "../../../etc/passwd", "=cmd|' /C calc'!A0.pdf", "\u202egpj.pdf"]
    for name, content in zip(names, files, strict=True):
        response = client.post(url, base | {"document": SimpleUploadedFile(name or "x", content)})
        assert response.status_code in (200, 302, 422), (name, response.status_code)
    for field in [*base, "finding", "summary", "notes", "reference", "corrects", "correction_reason"]:
        for value in HOSTILE:
            response = client.post(url, base | {field: value, "document": SimpleUploadedFile("a.pdf", PDF)})
            assert response.status_code in (200, 302, 422), (field, value, response.status_code)
