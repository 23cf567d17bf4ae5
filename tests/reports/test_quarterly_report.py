"""The quarterly Match Play Coupon report, § 525.21(o): figures by denomination from one aggregate, quarter
edges on the facility's clock and gaming day, the PDF and CSV, sign-off, filing and versions."""

from __future__ import annotations

import csv
import hashlib
import io
from datetime import UTC, date, datetime

import psycopg
import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from pypdf import PdfReader

from compliance.reports import selectors, services
from compliance.reports.models import ReportFile, ReportFileContent, ReportFiling, ReportRun, ReportSignoff
from compliance.services import signature_sign
from compliance.testing import behind_the_applications_back
from coupons.days import today
from coupons.models import Redemption
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

Q3 = (date(2026, 7, 1), date(2026, 9, 30))
AFTER_Q3 = "2026-11-03 14:00:00+00:00"  # 09:00 in Pennsylvania on 3 Nov 2026


def pdf_text(data: bytes) -> str:
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages).split())


def file_data(run: ReportRun, fmt: str) -> bytes:
    file = selectors.file_of(run, fmt)
    assert file is not None
    data = selectors.file_bytes(file)
    assert data is not None
    return data


@pytest.fixture
def quarter(denominations, redeemed):
    """A hand-built third quarter: 3 × $5 and 2 × $25 at the tables, 4 × $10 at the count, and coupons outside it."""
    redeemed(denominations[500], datetime(2026, 7, 1, 15, 0, tzinfo=UTC), 3)
    redeemed(denominations[2500], datetime(2026, 8, 15, 1, 0, tzinfo=UTC), 2)
    redeemed(denominations[1000], datetime(2026, 9, 2, 20, 0, tzinfo=UTC), 4, channel=Redemption.Channel.COUNT)
    redeemed(denominations[2500], datetime(2026, 6, 30, 20, 0, tzinfo=UTC), 7)  # the second quarter
    redeemed(denominations[500], datetime(2026, 10, 1, 12, 0, tzinfo=UTC), 9)  # the fourth quarter
    return denominations


def test_the_figures_are_by_denomination_with_the_total(facility, quarter, compliance_officer, produce):
    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
    assert run.status == ReportRun.Status.SUCCEEDED, run.error
    figures = selectors.run_content(run).figures
    assert figures["by_denomination"] == [[500, 3, 1500], [1000, 4, 4000], [2500, 2, 5000]]
    assert (figures["coupons"], figures["value_cents"]) == (9, 10500)
    rows = list(csv.reader(io.StringIO(file_data(run, "csv").decode())))
    assert ["$5.00", "3", "0", "3", "$15.00"] in rows
    assert ["$10.00", "0", "4", "4", "$40.00"] in rows
    assert ["Total", "5", "4", "9", "$105.00"] in rows


def test_the_pdf_shows_the_figures_the_facility_the_clause_and_the_chain_head(facility, quarter, compliance_officer,
                                                                              produce):
    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
    data = file_data(run, "pdf")
    assert data.startswith(b"%PDF-")
    text = pdf_text(data)
    for expected in ("Keystone Downs Casino", "Quarterly report of Match Play Coupons redeemed", "525.21(o)",
                     "Q3 2026", "$5.00", "$15.00", "$10.00", "$40.00", "$25.00", "$50.00", "Total", "$105.00",
                     "Prepared by", "Approved by", "not signed", run.chain_digest, "Version 1"):
        assert expected in text, expected
    assert len(run.chain_digest) == 64 and run.chain_head


@pytest.mark.parametrize(("local_instant", "quarter_of_it"), [
    ("2026-09-30 23:30", "Q3"),  # 1 October in UTC, still 30 September in Pennsylvania
    ("2026-10-01 02:00", "Q3"),  # before the 6:00 start: 30 September's gaming day
    ("2026-10-01 05:59", "Q3"),
    ("2026-10-01 06:00", "Q4"),
    ("2026-07-01 05:30", "Q2"),  # the third quarter's first morning, before its first gaming day begins
])
def test_quarter_edges_follow_the_facility_clock_and_gaming_day(facility, denominations, redeemed, compliance_officer,
                                                                produce, local_instant, quarter_of_it):
    from zoneinfo import ZoneInfo

    at = datetime.fromisoformat(local_instant).replace(tzinfo=ZoneInfo("America/New_York"))
    with time_machine.travel(at, tick=False):
        gaming_date = today(facility)  # how the redemption service dates a coupon redeemed at that instant
    (row,) = redeemed(denominations[2500], at)
    assert row.gaming_date == gaming_date
    counts = {}
    with time_machine.travel("2027-01-05 14:00:00+00:00", tick=True):
        for name, period in {"Q2": (date(2026, 4, 1), date(2026, 6, 30)), "Q3": Q3,
                             "Q4": (date(2026, 10, 1), date(2026, 12, 31))}.items():
            run = produce(facility, "quarterly-coupons", *period, compliance_officer)
            counts[name] = selectors.run_content(run).figures["coupons"]
    assert counts == {name: int(name == quarter_of_it) for name in counts}


def test_the_figures_come_from_one_aggregate(facility, quarter):
    from compliance.reports.periods import Period
    from coupons.report_kinds.quarterly_coupons import build

    with CaptureQueriesContext(connection) as queries:
        build(facility, Period(*Q3))
    touching = [q["sql"] for q in queries.captured_queries if "coupons_redemption" in q["sql"]]
    assert len(touching) == 1 and "GROUP BY" in touching[0]


def test_only_a_whole_ended_quarter_is_produced(facility, compliance_officer, produce):
    with time_machine.travel("2026-09-15 14:00:00+00:00", tick=True):
        with pytest.raises(ValidationError, match="has not ended"):
            produce(facility, "quarterly-coupons", *Q3, compliance_officer)
        with pytest.raises(ValidationError, match="one calendar quarter"):
            produce(facility, "quarterly-coupons", date(2026, 4, 1), date(2026, 5, 31), compliance_officer)
    assert not ReportRun.objects.exists()


def _sign(run, finance_supervisor, compliance_officer):
    signoff = ReportSignoff.objects.get(run=run)
    signature_sign(record=signoff, slot="prepared", user=finance_supervisor, password=PASSWORD)
    signature_sign(record=signoff, slot="approved", user=compliance_officer, password=PASSWORD)
    return signoff


def test_prepared_then_approved_adds_a_signed_copy_and_then_it_is_filed(facility, quarter, finance_supervisor,
                                                                         compliance_officer, produce):
    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
        signoff = ReportSignoff.objects.get(run=run)
        with pytest.raises(ValidationError, match="File the report once it is signed"):
            services.filing_record(run=run, filed_on=date(2026, 11, 3), method="portal", user=compliance_officer)
        from compliance.selectors import may_sign

        approval = ReportSignoff.requirement("approved")
        assert not may_sign(compliance_officer, signoff, approval)  # no Sign button before it is prepared
        with pytest.raises(ValidationError, match="comes after “Prepared by"), transaction.atomic():
            signature_sign(record=signoff, slot="approved", user=compliance_officer, password=PASSWORD)
        _sign(run, finance_supervisor, compliance_officer)
        signed = selectors.file_of(selectors.run_in(facility, run.pk), ReportFile.Format.SIGNED_PDF)
        text = pdf_text(selectors.file_bytes(signed))
        assert "Prepared" in text and "Approved" in text and "$105.00" in text and "not signed" not in text
        assert not ReportSignoff.objects.get(pk=signoff.pk).altered_since_signed
        with pytest.raises(ValidationError, match="in the future"):
            services.filing_record(run=run, filed_on=date(2026, 12, 3), method="email", user=compliance_officer)
        with pytest.raises(ValidationError, match="before this version was produced"):
            services.filing_record(run=run, filed_on=date(2026, 11, 2), method="email", user=compliance_officer)
        filing = services.filing_record(run=run, filed_on=date(2026, 11, 3), method="portal",
                                        reference="BCC-2026-Q3-0117", user=compliance_officer)
        assert (filing.run, filing.filed_by, filing.recipient) == (run, compliance_officer, "Bureau of Casino Compliance")
        with pytest.raises(ValidationError, match="already recorded as filed"):
            services.filing_record(run=run, filed_on=date(2026, 11, 3), method="email", user=compliance_officer)


def test_only_a_compliance_officer_files(facility, quarter, finance_supervisor, compliance_officer, produce):
    from django.core.exceptions import PermissionDenied

    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
        _sign(run, finance_supervisor, compliance_officer)
        with pytest.raises(PermissionDenied):
            services.filing_record(run=run, filed_on=date(2026, 11, 3), method="mail", user=finance_supervisor)
    assert not ReportFiling.objects.exists()


def test_a_filed_version_stays_byte_identical_after_the_period_is_produced_again(
        facility, quarter, denominations, redeemed, finance_supervisor, compliance_officer, produce):
    with time_machine.travel(AFTER_Q3, tick=True):
        first = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
        _sign(first, finance_supervisor, compliance_officer)
        services.filing_record(run=first, filed_on=date(2026, 11, 3), method="portal", user=compliance_officer)
        before = {f.format: (f.sha256, file_data(first, f.format)) for f in first.files.all()}
        # A coupon counted late, then the quarter produced again: a new version, the filed one untouched.
        redeemed(denominations[2500], datetime(2026, 9, 30, 18, 0, tzinfo=UTC))
        second = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
    assert (first.version, second.version) == (1, 2)
    assert selectors.run_content(second).figures["value_cents"] == 10500 + 2500
    first = selectors.run_in(facility, first.pk)
    after = {f.format: (f.sha256, file_data(first, f.format)) for f in first.files.all()}
    assert after == before
    assert all(hashlib.sha256(data).hexdigest() == sha for sha, data in after.values())


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the database's own refusal")
def test_the_database_refuses_to_rewrite_or_delete_a_file(facility, quarter, compliance_officer, produce):
    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
    content = ReportFileContent.objects.filter(file__run=run).first()
    # The application's role may only add rows; a trigger refuses the owner too (append-only tables).
    refused = "append-only|permission denied"
    for sql in ("UPDATE reports_reportfilecontent SET data = 'x'::bytea WHERE id = %s",
                "DELETE FROM reports_reportfilecontent WHERE id = %s"):
        with pytest.raises(DatabaseError, match=refused), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [content.pk])
    with pytest.raises(DatabaseError, match=refused), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE reports_reportfile SET sha256 = 'x' WHERE run_id = %s", [run.pk])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="tampering as the owner needs PostgreSQL")
def test_a_file_altered_behind_the_application_is_refused_on_download(facility, quarter, compliance_officer,
                                                                      inspector, produce, client_for):
    from django.urls import reverse

    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
    csv_file = selectors.file_of(run, "csv")
    # What someone with the database's owner account could do.
    behind_the_applications_back("UPDATE reports_reportfilecontent SET data = 'Total,0'::bytea WHERE file_id = %s",
                                 [csv_file.pk])
    response = client_for(inspector).get(reverse("reports:file", args=[run.pk, "csv"]))
    assert response.status_code == 409 and csv_file.sha256 in response.content.decode()


def test_the_pdf_carries_the_facility_logo(facility, quarter, compliance_officer, produce, settings, tmp_path):
    from django.core.files.base import ContentFile
    from PIL import Image

    settings.MEDIA_ROOT = str(tmp_path / "no-such-disk")  # the logo is read through the storage, not a host's disk
    buffer = io.BytesIO()
    Image.new("RGB", (120, 60), (31, 95, 139)).save(buffer, format="PNG")
    facility.logo.save("keystone.png", ContentFile(buffer.getvalue()), save=True)
    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
    reader = PdfReader(io.BytesIO(file_data(run, "pdf")))
    images = list(reader.pages[0].images)
    assert images, "the facility's logo is printed at the head of the report"


def test_a_filing_is_not_dated_before_the_approval_nor_of_a_version_the_records_overtook(
        facility, quarter, denominations, redeemed, finance_supervisor, compliance_officer, produce):
    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
    with time_machine.travel("2026-11-10 15:00:00+00:00", tick=True):
        _sign(run, finance_supervisor, compliance_officer)
        with pytest.raises(ValidationError, match="before the report was approved"):
            services.filing_record(run=run, filed_on=date(2026, 11, 3), method="portal", user=compliance_officer)
        redeemed(denominations[500], datetime(2026, 9, 30, 20, 0, tzinfo=UTC), channel=Redemption.Channel.COUNT)
        with pytest.raises(ValidationError, match="records changed since this version was produced: 10 coupons"):
            services.filing_record(run=run, filed_on=date(2026, 11, 10), method="portal", user=compliance_officer)
    assert not ReportFiling.objects.exists()


def test_the_dashboard_asks_for_approval_only_once_prepared_and_only_of_the_newest_version(
        facility, quarter, finance_supervisor, compliance_officer, produce):
    from compliance.selectors import records_awaiting_signature

    with time_machine.travel(AFTER_Q3, tick=True):
        first = produce(facility, "quarterly-coupons", *Q3, compliance_officer)

        def awaiting(user):
            return [(r.run.version, req.slot) for r, req in records_awaiting_signature(user, facility)
                    if isinstance(r, ReportSignoff)]

        assert awaiting(compliance_officer) == [] and awaiting(finance_supervisor) == [(1, "prepared")]
        signature_sign(record=ReportSignoff.objects.get(run=first), slot="prepared", user=finance_supervisor,
                       password=PASSWORD)
        assert awaiting(compliance_officer) == [(1, "approved")]
        produce(facility, "quarterly-coupons", *Q3, compliance_officer)
        assert awaiting(compliance_officer) == [] and awaiting(finance_supervisor) == [(2, "prepared")]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own guarantees")
def test_a_signed_off_versions_period_and_files_are_frozen_with_it_and_its_filing_is_anchored(
    facility, quarter, finance_supervisor, compliance_officer, produce, django_capture_on_commit_callbacks
):
    """What the sign-off vouches for (the version's period, number and files) is part of its signed content: the
    database refuses to change it once signed (issue 21), but the signed copy the approval adds."""
    from compliance.models import ChainAnchor
    from tests.compliance.attack import refused

    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
        produced = ChainAnchor.objects.get(facility=facility, reason=ChainAnchor.Reason.REPORT)
        assert run.chain_digest == produced.digest
        assert "Audit chain heads anchored at production" in pdf_text(file_data(run, "pdf"))
        _sign(run, finance_supervisor, compliance_officer)
        assert ReportFile.objects.filter(run=run, format=ReportFile.Format.SIGNED_PDF).exists()
        error = psycopg.errors.IntegrityConstraintViolation
        assert "part of signed report signoff" in refused(
            "UPDATE reports_reportrun SET period_end = period_end + 1 WHERE id = %s", [run.pk], error=error)
        assert "nothing is added" in refused(
            "INSERT INTO reports_reportfile (run_id, format, name, size, sha256, created_at, seal) "
            "VALUES (%s, 'extra', 'x', 1, 'x', now(), 'x')", [run.pk], error=error)
        with django_capture_on_commit_callbacks(execute=True):
            services.filing_record(run=run, filed_on=date(2026, 11, 3), method="portal", user=compliance_officer)
        assert ChainAnchor.objects.filter(facility=facility, reason=ChainAnchor.Reason.FILING).count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own guarantees")
def test_a_shadowed_sign_off_still_freezes_its_version(facility, quarter, finance_supervisor, compliance_officer,
                                                        produce):
    """A temporary table named like the sign-offs (the owner's doing; the application's role may not make one):
    the guard names its tables with their schema and still refuses."""
    from tests.compliance.attack import refused, shadow

    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
        _sign(run, finance_supervisor, compliance_officer)
        shadow("reports_reportsignoff")
        assert "part of signed report signoff" in refused(
            "UPDATE reports_reportrun SET version = version + 1 WHERE id = %s", [run.pk],
            error=psycopg.errors.IntegrityConstraintViolation)


def _quarter_closed_by_finance(facility, user, when: str) -> None:
    """Finance's processing of 30 September recorded at ``when``: from then the database refuses any redemption
    of the quarter's days (coupon_day_closed)."""
    from compliance.actors import acting_as
    from coupons.models import FinanceDayProcessing

    counts = dict.fromkeys(("given_to_marketing", "returned", "voided", "distributed", "carried_forward", "redeemed",
                            "counted_returned", "counted_voided", "counted_redeemed"), 0)
    with time_machine.travel(when), acting_as(user):
        FinanceDayProcessing.objects.create(facility=facility, gaming_date=Q3[1], **counts)


def test_a_version_produced_once_finance_closed_the_quarter_is_not_recounted_on_each_view(
        facility, quarter, denominations, redeemed, finance_supervisor, compliance_officer, produce):
    """The version's page and its filing ask whether the records changed since it was produced. Once finance has
    processed the quarter's last day, no redemption of the quarter can be added (the database refuses it), so a
    version produced after that holds for good: no aggregate over the quarter's redemptions on each view. A version
    produced before still compares, and still finds what came after it."""
    from compliance.reports.registry import kind_of

    kind = kind_of("quarterly-coupons")
    with time_machine.travel("2026-10-01 13:00:00+00:00", tick=True):
        early = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
    # A coupon found at the count of 30 September, before finance closed the day:
    redeemed(denominations[500], datetime(2026, 9, 30, 20, 0, tzinfo=UTC), channel=Redemption.Channel.COUNT)
    _quarter_closed_by_finance(facility, finance_supervisor, "2026-10-02 14:00:00+00:00")
    with time_machine.travel(AFTER_Q3, tick=True):
        late = produce(facility, "quarterly-coupons", *Q3, compliance_officer)
        with CaptureQueriesContext(connection) as queries:
            assert services.stale_words(late, kind) == ""
        assert not [q for q in queries.captured_queries if "coupons_redemption" in q["sql"]]
        assert "records changed since this version was produced: 10 coupons" in services.stale_words(early, kind)
    assert selectors.run_content(late).figures["coupons"] == 10
    with pytest.raises(IntegrityError, match="coupon_day_closed"), transaction.atomic():  # it stays as counted
        redeemed(denominations[500], datetime(2026, 9, 30, 21, 0, tzinfo=UTC), channel=Redemption.Channel.COUNT)
