"""Mailed coupons, § 525.21(q): the patron list screened against the exclusion lists (q)(7), released to the
provider with one serial per patron (q)(2), proofs with Code 128 barcodes (q)(3), kept by finance (q)(4)."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
import time_machine
from django.core.exceptions import ValidationError

from compliance.exclusion.models import ListKind, ScreeningMatch
from compliance.exclusion.services import list_import, match_decide
from compliance.services import signature_sign
from coupons.models import CouponState, LedgerLine, MailedCoupon, MailingCampaign, MailingRecipient
from coupons.services.mailing import (
    campaign_create,
    campaign_release,
    campaign_screen,
    list_import_run,
    mailing_provider_register,
)
from coupons.services.mailing_screening import screening_request
from coupons.services.redemption import Scan, redemption_record
from tests.coupons.conftest import PASSWORD, states
from tests.coupons.test_browser import SHOTS
from tests.exclusion.conftest import INVOLUNTARY, LIST_DAY, SELF_EXCLUDED, list_file

pytestmark = pytest.mark.django_db

HEADER = "patron_id,first_name,middle_name,last_name,date_of_birth,address,city,state,zip\n"
PATRONS = (
    "P-1,Robert,James,Smith,1970-03-04,12 Main Street,Harrisburg,PA,17101\n"  # on the self-exclusion list
    "P-2,Bob,,Smith,,99 Elm Street,Harrisburg,PA,17102\n"  # a near match: a compliance officer decides
    "P-3,Ann,,Jones,1985-02-03,1 Market St,Lancaster,PA,17601\n"
    "P-4,Carl,,Weber,,7 Front St,York,PA,17401\n"
    "P-5,Dana,,Lee,1990-09-09,3 Lake Rd,Erie,PA,16501\n"
)


@pytest.fixture
def lists(facility: Any, compliance_officer: Any) -> None:
    for kind, rows in ((ListKind.SELF_EXCLUSION, SELF_EXCLUDED), (ListKind.INVOLUNTARY, INVOLUNTARY)):
        list_import(facility=facility, kind=kind, board_list_date=LIST_DAY, data=list_file(rows),
                    file_name="board.csv", user=compliance_officer, password=PASSWORD)


@pytest.fixture
def campaign(program, receive, issue, lists, compliance_officer, marketing_supervisor) -> Any:
    receive(1, 100)
    issue(1, 50)
    provider = mailing_provider_register(facility=program.facility, name="Keystone Mail Services", certificate_number="GSP-0042",
                                 contact="lists@keystonemail.example", user=compliance_officer)
    made = campaign_create(facility=program.facility, provider=provider, series=program.series, name="Winter mailer",
                           patron_file=(HEADER + PATRONS).encode(), user=marketing_supervisor)
    list_import_run(made.list_import.pk)  # what the upload's job does first
    campaign_screen(campaign=made, user=marketing_supervisor)
    return made


def test_the_list_is_screened_and_released_without_the_excluded(campaign, compliance_officer, marketing_supervisor,
                                                                 finance_staff, program, client_for, dealer,
                                                                 craps_table):
    matches = {m.candidate_key: m for m in ScreeningMatch.objects.all()}
    assert matches["P-1"].outcome == "excluded" and matches["P-2"].outcome == "review"
    with pytest.raises(ValidationError, match="await a compliance officer's decision"):
        campaign_release(campaign=campaign, user=marketing_supervisor, password=PASSWORD)
    match_decide(match=matches["P-2"], decision="not_same_person", reason="Different date of birth on file",
                 user=compliance_officer, password=PASSWORD)
    released = campaign_release(campaign=campaign, user=marketing_supervisor, password=PASSWORD)
    mailed = {c.recipient.key: c.serial for c in MailedCoupon.objects.select_related("recipient")}
    assert mailed == {"P-2": 1, "P-3": 2, "P-4": 3, "P-5": 4}  # P-1 is never sent
    assert (1, 4, CouponState.DISTRIBUTED) in states(program.series)
    line = LedgerLine.objects.get(kind=LedgerLine.Kind.DISTRIBUTE)
    assert "Keystone Mail Services" in line.reason and line.quantity == 4
    assert [s.slot for s in released.signature_list()] == ["released"]
    signature_sign(record=released, slot="list_received", user=finance_staff, password=PASSWORD)

    client = client_for(finance_staff)
    listed = client.get(f"/coupons/mailings/{campaign.pk}/list.csv")
    assert listed["Content-Type"] == "text/csv; charset=utf-8"
    data = b"".join(listed.streaming_content)
    assert data.startswith("\ufeff".encode())  # the byte order mark: Excel reads the names in UTF-8
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert [r["serial"] for r in rows] == ["MP-0000001", "MP-0000002", "MP-0000003", "MP-0000004"]
    assert set(rows[0]) == {"patron_name", "address", "city", "state", "zip", "denomination", "expiration_date",
                            "serial"}
    assert "Robert" not in "".join(r["patron_name"] for r in rows)
    from openpyxl import load_workbook

    workbook = client.get(f"/coupons/mailings/{campaign.pk}/list.xlsx")
    cells = [[c.value for c in row] for row in load_workbook(io.BytesIO(workbook.content)).active.iter_rows()]
    assert cells[0] == list(rows[0]) and [row[-1] for row in cells[1:]] == [r["serial"] for r in rows]
    assert f"/coupons/mailings/{campaign.pk}/list.xlsx" in client.get(f"/coupons/mailings/{campaign.pk}/").content.decode()
    proofs = client.get(f"/coupons/mailings/{campaign.pk}/proofs.pdf?part=1")
    assert proofs.status_code == 200 and proofs.content.startswith(b"%PDF")
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "mailing-proofs.pdf").write_bytes(proofs.content)  # looked at as a person would (pdftoppm)
    assert client.get(f"/coupons/mailings/{campaign.pk}/proofs.pdf?part=9").status_code == 404
    # A mailed coupon is redeemed at the table like any other.
    redemption_record(facility=program.facility, user=dealer,
                      scan=Scan(serial="MP-0000003", table=craps_table, position="pass_line", chips_cents=2500))


def test_a_stale_list_blocks_the_release(campaign, compliance_officer, marketing_supervisor):
    for match in ScreeningMatch.objects.filter(outcome="review"):
        match_decide(match=match, decision="excluded", reason="Same person", user=compliance_officer,
                     password=PASSWORD)
    with time_machine.travel("2026-11-06 14:00:00+00:00", tick=False), \
            pytest.raises(ValidationError, match="business days"):  # Friday: Monday's lists are 4 business days old
        campaign_release(campaign=campaign, user=marketing_supervisor, password=PASSWORD)
    assert not MailedCoupon.objects.exists()


def test_the_lists_age_is_counted_on_the_calendar_not_the_gaming_day(campaign, compliance_officer,
                                                                     marketing_supervisor):
    """Monday's lists are 2 business days old through Wednesday. At 01:00 on Thursday the gaming day is still
    Wednesday's, but the lists are 3 business days old (§ 503a.3(d)): the release is refused."""
    for match in ScreeningMatch.objects.filter(outcome="review"):
        match_decide(match=match, decision="excluded", reason="Same person", user=compliance_officer,
                     password=PASSWORD)
    with time_machine.travel("2026-11-05 06:00:00+00:00", tick=False), \
            pytest.raises(ValidationError, match="business days"):  # 01:00 in Harrisburg, Thursday 5 Nov
        campaign_release(campaign=campaign, user=marketing_supervisor, password=PASSWORD)
    assert not MailedCoupon.objects.exists()


def test_a_malformed_patron_list_is_refused_whole(program, lists, compliance_officer, marketing_supervisor,
                                                  client_for):
    provider = mailing_provider_register(facility=program.facility, name="P", certificate_number="GSP-1", contact="",
                                 user=compliance_officer)
    bad = HEADER + PATRONS + "P-6,Eve,,Stone,1988-13-40,1 A St,Erie,PA,16501\nP-7,,,X,,,Erie,PA,1650\n"
    made = campaign_create(facility=program.facility, provider=provider, series=program.series, name="Bad",
                           patron_file=bad.encode(), user=marketing_supervisor)
    job = list_import_run(made.list_import.pk)
    assert job.status == "failed" and not MailingRecipient.objects.exists()
    text = " ".join(job.problems)
    assert "Line 7" in text and "Line 8" in text
    with pytest.raises(ValidationError, match="The patron list was refused"):
        screening_request(campaign=made, user=marketing_supervisor)
    page = client_for(marketing_supervisor).get(made.get_absolute_url()).content.decode()
    assert "The list was refused" in page and "Line 7" in page


@pytest.mark.parametrize(("content", "words"), [
    (HEADER + "P-1,Ann,,Jones,,1 Market St,Lancaster,PA,17601\x00\n", "NUL character"),
    ("patron_id,last_name\nP-1,Jones\n", "the header lacks the column(s) first_name"),
    ("\ufeffpatron".encode("utf-16").decode("latin-1"), "not UTF-8"),
])
def test_what_can_be_refused_at_once_is_refused_before_anything_is_kept(program, lists, compliance_officer,
                                                                         marketing_supervisor, content, words):
    provider = mailing_provider_register(facility=program.facility, name="P", certificate_number="GSP-1", contact="",
                                 user=compliance_officer)
    data = content.encode("latin-1") if "not UTF-8" in words else content.encode()
    with pytest.raises(ValidationError, match=re.escape(words)):
        campaign_create(facility=program.facility, provider=provider, series=program.series, name="Bad",
                        patron_file=data, user=marketing_supervisor)
    assert not MailingCampaign.objects.exists()


def test_other_scripts_digits_are_not_a_zip_code(program, lists, compliance_officer, marketing_supervisor):
    provider = mailing_provider_register(facility=program.facility, name="P", certificate_number="GSP-1", contact="",
                                 user=compliance_officer)
    made = campaign_create(facility=program.facility, provider=provider, series=program.series, name="Digits",
                           patron_file=(HEADER + "P-1,Ann,,Jones,,1 Market St,Lancaster,PA,١٧٦٠١\n").encode(),
                           user=marketing_supervisor)
    job = list_import_run(made.list_import.pk)
    assert job.status == "failed" and "is not 12345" in job.problems[0]


def test_the_upload_reads_nothing_inside_the_request_and_the_page_follows_the_job(
        program, receive, issue, lists, compliance_officer, marketing_supervisor, client_for,
        django_capture_on_commit_callbacks):
    receive(1, 100)
    issue(1, 50)
    provider = mailing_provider_register(facility=program.facility, name="P", certificate_number="GSP-1", contact="",
                                 user=compliance_officer)
    client = client_for(marketing_supervisor)
    upload = io.BytesIO((HEADER + PATRONS).encode())
    upload.name = "winter.csv"
    with django_capture_on_commit_callbacks(execute=False) as queued:
        answer = client.post("/coupons/mailings/new/", {"name": "Winter", "provider": provider.pk,
                                                        "series": program.series.pk, "patron_file": upload})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    made = MailingCampaign.objects.get()
    assert not MailingRecipient.objects.exists() and made.list_file.name == "winter.csv"
    waiting = client.get(made.get_absolute_url()).content.decode()
    assert 'http-equiv="refresh"' in waiting and "Reading the list" in waiting
    with django_capture_on_commit_callbacks(execute=True):
        for callback in queued:
            callback()  # the commit: the job reads the list, then asks for the screening (eager here)
    assert MailingRecipient.objects.filter(campaign=made).count() == 5
    done = client.get(made.get_absolute_url()).content.decode()
    assert "5 patrons read from winter.csv" in done and "Last screened" in done


def test_mailing_pages_for_marketing_and_the_inspector(campaign, marketing_supervisor, inspector, client_for):
    page = client_for(marketing_supervisor).get(campaign.get_absolute_url())
    assert page.status_code == 200 and b"awaiting a compliance officer" in page.content
    reader = client_for(inspector)
    assert reader.get("/coupons/mailings/").status_code == 200
    listing = reader.get(campaign.get_absolute_url())
    assert listing.status_code == 200 and b"Release and sign" not in listing.content
    assert reader.post(f"/coupons/mailings/{campaign.pk}/release/", {"password": PASSWORD}).status_code == 403


def test_a_list_that_cannot_be_read_leaves_the_reading_refused_not_running(
        program, lists, compliance_officer, marketing_supervisor, monkeypatch):
    from coupons.services import mailing as mailing_services

    provider = mailing_provider_register(facility=program.facility, name="P", certificate_number="GSP-1", contact="",
                                 user=compliance_officer)
    made = campaign_create(facility=program.facility, provider=provider, series=program.series, name="Boom",
                           patron_file=(HEADER + PATRONS).encode(), user=marketing_supervisor)

    def broken(data: bytes) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(mailing_services, "parse_patron_list", broken)
    job = list_import_run(made.list_import.pk)
    assert job.status == "failed" and "an error in the system" in job.problems[0]
    assert not MailingRecipient.objects.exists()


# --- the release is signed by releasing, § 525.21(q)(2); finance receives only a released list, (q)(4) ----------------


def _sign_page(campaign: Any, slot: str) -> str:
    from django.contrib.contenttypes.models import ContentType

    return f"/sign/{ContentType.objects.get_for_model(MailingCampaign).pk}/{campaign.pk}/{slot}/"


def _awaiting(client: Any, campaign: Any) -> dict[str, str]:
    """The slots of ``campaign`` on the dashboard's "Awaiting your signature", with where each links."""
    from compliance.templatetags.compliance import sign_url

    response = client.get("/")
    html = response.content.decode()
    links = {requirement.slot: sign_url(record, requirement.slot)
             for record, requirement in response.context["awaiting"] if record.pk == campaign.pk}
    assert all(f'href="{link}"' in html for link in links.values())
    return links


def test_the_release_is_never_signed_on_the_signing_page_only_by_releasing(
        campaign, marketing_supervisor, finance_staff, client_for):
    """§ 525.21(q)(2): the release is the marketing supervisor's signed act; signing its slot without releasing
    (a refused release, an unscreened list) would sign a list never sent and freeze the mailing."""
    with pytest.raises(ValidationError, match="await a compliance officer's decision"):
        campaign_release(campaign=campaign, user=marketing_supervisor, password=PASSWORD)
    client = client_for(marketing_supervisor)
    release_form = f"/coupons/mailings/{campaign.pk}/#release"

    page = client.get(_sign_page(campaign, "released"))
    html = page.content.decode()
    assert page.status_code == 403 and 'type="password"' not in html
    assert f'href="{release_form}"' in html and "Release and sign" in html
    refused = client.post(_sign_page(campaign, "released"), {"password": PASSWORD})
    assert refused.status_code == 422 and "Nothing was signed here" in refused.content.decode()
    with pytest.raises(ValidationError, match="use “Release and sign” on the mailing campaign's page"):
        signature_sign(record=campaign, slot="released", user=marketing_supervisor, password=PASSWORD)
    campaign.refresh_from_db()
    assert campaign.signature_list() == [] and not campaign.is_released

    # Awaiting the marketing supervisor: the release, linked to the release form, not to the signing page.
    assert _awaiting(client, campaign) == {"released": release_form}
    detail = client.get(campaign.get_absolute_url()).content.decode()
    assert f'href="{release_form}"' in detail and _sign_page(campaign, "released") not in detail
    assert 'id="release"' in detail
    # Finance is not asked to receive a list never released (q)(4), and cannot sign its receipt yet.
    finance = client_for(finance_staff)
    assert _awaiting(finance, campaign) == {}
    early = finance.get(_sign_page(campaign, "list_received")).content.decode()
    assert "comes after “Marketing supervisor releasing the patron list to the provider”" in early
    assert 'type="password"' not in early
    assert finance.post(_sign_page(campaign, "list_received"), {"password": PASSWORD}).status_code == 422
    assert campaign.signature_list() == []


def test_once_released_finance_is_asked_to_receive_the_list(campaign, compliance_officer, marketing_supervisor,
                                                            finance_staff, client_for):
    """§ 525.21(q)(4): the list received by finance is the one released."""
    for match in ScreeningMatch.objects.filter(outcome="review"):
        match_decide(match=match, decision="not_same_person", reason="Different date of birth on file",
                     user=compliance_officer, password=PASSWORD)
    campaign_release(campaign=campaign, user=marketing_supervisor, password=PASSWORD)
    assert _awaiting(client_for(marketing_supervisor), campaign) == {}
    finance = client_for(finance_staff)
    assert _awaiting(finance, campaign) == {"list_received": _sign_page(campaign, "list_received")}
    signed = finance.post(_sign_page(campaign, "list_received"), {"password": PASSWORD})
    assert signed.status_code == 302
    assert [s.slot for s in campaign.signature_list()] == ["released", "list_received"]


def test_a_mailing_whose_list_was_refused_awaits_no_release(program, lists, compliance_officer, marketing_supervisor,
                                                            client_for):
    provider = mailing_provider_register(facility=program.facility, name="Keystone Mail Services",
                                         certificate_number="GSP-0042", contact="", user=compliance_officer)
    made = campaign_create(facility=program.facility, provider=provider, series=program.series, name="Broken",
                           patron_file=(HEADER + "P-1,Ann,,Jones,not a date,1 Market St,Lancaster,PA,17601\n").encode(),
                           user=marketing_supervisor)
    list_import_run(made.list_import.pk)
    made.list_import.refresh_from_db()
    assert made.list_import.status == "failed"
    assert _awaiting(client_for(marketing_supervisor), made) == {}


def _patrons(count: int) -> bytes:
    return (HEADER + "".join(f"Q-{n},Pat{n},,Doe,,{n} Oak St,Erie,PA,16501\n" for n in range(count))).encode()


def test_reading_a_list_asks_the_database_the_same_for_ten_patrons_as_for_two_hundred(
        program, lists, compliance_officer, marketing_supervisor):
    """Each recipient's audit event names the campaign's facility: read once for the list, not once a patron
    (compliance.models.audit._related_read_once: the campaign read once with its facility)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from compliance.models import AuditEvent

    provider = mailing_provider_register(facility=program.facility, name="P", certificate_number="GSP-1", contact="",
                                         user=compliance_officer)
    counted = []
    for size in (10, 200):
        made = campaign_create(facility=program.facility, provider=provider, series=program.series,
                               name=f"Mailer {size}", patron_file=_patrons(size), user=marketing_supervisor)
        with CaptureQueriesContext(connection) as queries:
            job = list_import_run(made.list_import.pk)
        assert job.status == "succeeded"
        counted.append(len(queries))
        recipients = [str(pk) for pk in made.recipients.values_list("pk", flat=True)]
        events = AuditEvent.objects.filter(model_label="coupons.MailingRecipient", object_id__in=recipients)
        assert events.count() == size
        assert set(events.values_list("facility_id", flat=True)) == {program.facility.pk}
    assert counted[0] == counted[1], counted
