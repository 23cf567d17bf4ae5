"""The certificate holder's filings about a provider (§§ 528.2, 528.3, 528.7(2), 528.8(a), 528.9): each with its
date and document, never changed (a correction replaces a filing), and § 528.8(a)(1)–(3) on record before a
permission to conduct business before certification."""

from __future__ import annotations

import hashlib
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, ProgrammingError, connection, transaction

from compliance.models import RegulatedWriteError
from compliance.newgames.rules import MAX_PICTURE_BYTES
from compliance.providers import selectors, services
from compliance.providers.models import BusinessPermission, ProviderFiling, ProviderFilingDocument
from compliance.roles import Role
from compliance.testing import behind_the_applications_back
from tests.factories import make_person
from tests.providers.conftest import PDF, PERMISSION_KINDS, TODAY, file_filing, permission_filings

pytestmark = pytest.mark.django_db

GRANTED = date(2026, 1, 10)
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def _grant(facility, provider, officer, on=GRANTED):
    return services.permission_grant(facility=facility, provider=provider, granted_on=on, user=officer)


def test_a_permission_is_refused_until_528_8_a_1_to_3_are_on_record(facility, provider, compliance_officer):
    with pytest.raises(ValidationError) as refused:
        _grant(facility, provider, compliance_officer)
    words = " ".join(refused.value.messages)
    assert "§ 528.8(a)(1)" in words and "§ 528.8(a)(2)" in words and "§ 528.8(a)(3)" in words
    assert "application fee paid (§ 528.2(a)(2))" in words and "Record them on the provider's page" in words
    for kind in PERMISSION_KINDS:
        if kind != "due_diligence":
            file_filing(facility, provider, compliance_officer, kind, GRANTED)
    with pytest.raises(ValidationError) as refused:
        _grant(facility, provider, compliance_officer)
    words = " ".join(refused.value.messages)
    assert "§ 528.8(a)(2)" in words and "due diligence" in words and "§ 528.8(a)(1)," not in words
    file_filing(facility, provider, compliance_officer, "due_diligence", GRANTED)  # dated the day of the grant
    assert _grant(facility, provider, compliance_officer).granted_on == GRANTED
    assert not selectors.filing_sections(facility, provider)[2].missing


def test_filings_dated_after_the_grant_do_not_count_for_it(facility, provider, compliance_officer):
    permission_filings(facility, provider, compliance_officer, GRANTED + timedelta(days=1))
    with pytest.raises(ValidationError, match=r"dated on or before 10 Jan 2026"):
        _grant(facility, provider, compliance_officer)
    assert not BusinessPermission.objects.exists()


def test_another_facilitys_filings_do_not_count_here(facility, other_facility, provider, compliance_officer):
    permission_filings(other_facility, provider, make_person(Role.COMPLIANCE_OFFICER, other_facility))
    with pytest.raises(ValidationError, match=r"528\.8\(a\)\(1\)"):
        _grant(facility, provider, compliance_officer)


def test_a_correction_replaces_the_filing_it_names_and_is_never_an_edit(facility, provider, compliance_officer):
    permission_filings(facility, provider, compliance_officer, date(2026, 1, 5))
    statement = ProviderFiling.objects.get(kind="holder_statement")
    with pytest.raises(RegulatedWriteError):
        statement.save()
    with pytest.raises(RegulatedWriteError):
        statement.delete()
    with pytest.raises(ValidationError, match="reason"):
        file_filing(facility, provider, compliance_officer, "holder_statement", date(2026, 1, 20), corrects=statement)
    with pytest.raises(ValidationError, match="same provider and kind"):
        file_filing(facility, provider, compliance_officer, "due_diligence", date(2026, 1, 20), corrects=statement,
                    correction_reason="Wrong date")
    correction = file_filing(facility, provider, compliance_officer, "holder_statement", date(2026, 1, 20),
                             corrects=statement, correction_reason="The statement is dated 20 January")
    assert correction.corrects == statement
    with pytest.raises(ValidationError, match="already corrected"):
        file_filing(facility, provider, compliance_officer, "holder_statement", date(2026, 1, 21), corrects=statement,
                    correction_reason="Again")
    with pytest.raises(ValidationError, match=r"holder's written statement"):  # the corrected date is after the grant
        _grant(facility, provider, compliance_officer)
    assert _grant(facility, provider, compliance_officer, date(2026, 1, 20))
    assert statement not in selectors.filings_to_correct(facility)


def test_a_reason_without_a_filing_to_correct_is_refused(facility, provider, compliance_officer):
    with pytest.raises(ValidationError, match="only when correcting"):
        file_filing(facility, provider, compliance_officer, "application", correction_reason="Because")


def test_another_facilitys_filing_cannot_be_corrected_here(facility, other_facility, provider, compliance_officer):
    theirs = file_filing(other_facility, provider, make_person(Role.COMPLIANCE_OFFICER, other_facility), "application")
    with pytest.raises(ValidationError, match="not one of this facility's"):
        file_filing(facility, provider, compliance_officer, "application", corrects=theirs, correction_reason="x")


def test_a_date_still_to_come_on_the_facilitys_gaming_day_is_refused(facility, provider, compliance_officer):
    """At 02:00 on 3 March the gaming day is still 2 March: a filing dated 3 March is still to come."""
    night = datetime(2026, 3, 3, 2, 0, tzinfo=ZoneInfo("America/New_York"))
    with time_machine.travel(night, tick=False):
        with pytest.raises(ValidationError, match="still to come"):
            file_filing(facility, provider, compliance_officer, "application", date(2026, 3, 3))
        assert file_filing(facility, provider, compliance_officer, "application", TODAY).filed_on == TODAY


def test_the_document_is_a_pdf_or_an_image_of_at_most_5_mb_kept_with_its_sha256(facility, provider,
                                                                                compliance_officer):
    def record(document):
        return services.filing_record(facility=facility, provider=provider, kind="application_fee", filed_on=TODAY,
                                      document=document, user=compliance_officer)

    with pytest.raises(ValidationError, match="Attach the document"):
        record(None)
    with pytest.raises(ValidationError, match="not a PDF document or a PNG or JPEG image"):
        record(("receipt.pdf", b"MZ\x90\x00 not a pdf"))
    with pytest.raises(ValidationError, match="not a PDF"):
        record(("empty.pdf", b""))
    with pytest.raises(ValidationError, match="at most 5 MB"):
        record(("big.pdf", b"%PDF-" + b"0" * MAX_PICTURE_BYTES))
    filing = record(("../../etc/receipt\x00.png", PNG))
    assert (filing.document_name, filing.content_type, filing.size) == ("receipt.png", "image/png", len(PNG))
    assert filing.sha256 == hashlib.sha256(PNG).hexdigest() and selectors.filing_bytes(filing) == PNG
    assert ProviderFilingDocument.objects.get(filing=filing).intact(filing.sha256)


def test_a_qualification_names_who_their_role_and_the_outcome(facility, provider, compliance_officer):
    with pytest.raises(ValidationError, match="individual's or entity's name"):
        file_filing(facility, provider, compliance_officer, "qualification", subject_role="officer_director",
                    qualification="qualified")
    with pytest.raises(ValidationError, match="Choose the role"):
        file_filing(facility, provider, compliance_officer, "qualification", subject_name="Jo Tan",
                    qualification="qualified")
    with pytest.raises(ValidationError, match=r"credentials to individuals"):
        file_filing(facility, provider, compliance_officer, "qualification", subject_name="Dragon Holdings",
                    subject_role="holding_entity", qualification="temporary")
    with pytest.raises(ValidationError, match=r"only for a qualification"):
        file_filing(facility, provider, compliance_officer, "application", subject_name="Jo Tan")
    assert "No qualification recorded" in selectors.filing_sections(facility, provider)[1].missing
    file_filing(facility, provider, compliance_officer, "qualification", subject_name="Dragon Holdings",
                subject_role="holding_entity", qualification="qualified")
    assert "No officer or director" in selectors.filing_sections(facility, provider)[1].missing
    file_filing(facility, provider, compliance_officer, "qualification", subject_name="Jo Tan",
                subject_role="officer_director", qualification="temporary")
    assert selectors.filing_sections(facility, provider)[1].missing == ""


def test_a_permanent_credential_needs_the_provider_certified_by_its_date(facility, provider, compliance_officer):
    """§ 528.3(e): the permanent credential is issued once the provider has been certified."""
    def permanent(on):
        return file_filing(facility, provider, compliance_officer, "qualification", on, subject_name="Jo Tan",
                           subject_role="salesperson", qualification="permanent")

    services.certification_record(facility=facility, provider=provider, approved_on=date(2026, 2, 1),
                                  user=compliance_officer)
    with pytest.raises(ValidationError, match=r"§ 528\.3\(e\)"):
        permanent(date(2026, 1, 31))
    assert permanent(date(2026, 2, 1)).qualification == "permanent"


def test_an_investigation_gives_its_findings_and_conclusion_and_a_report_what_was_reported(facility, provider,
                                                                                             compliance_officer):
    sections = selectors.filing_sections(facility, provider)
    assert "No investigation recorded" in sections[3].missing
    with pytest.raises(ValidationError, match="findings"):
        file_filing(facility, provider, compliance_officer, "investigation", finding="suitable")
    with pytest.raises(ValidationError, match="conclusion"):
        file_filing(facility, provider, compliance_officer, "investigation", summary="Clean record")
    with pytest.raises(ValidationError, match="only for an investigation"):
        file_filing(facility, provider, compliance_officer, "application", finding="avoid")
    file_filing(facility, provider, compliance_officer, "investigation", summary="Undisclosed convictions",
                finding="avoid")
    assert "§ 528.9(b)" in selectors.filing_sections(facility, provider)[3].missing
    with pytest.raises(ValidationError, match="the action reported"):
        file_filing(facility, provider, compliance_officer, "violation_report")
    report = file_filing(facility, provider, compliance_officer, "violation_report", TODAY,
                         summary="Offered an unapproved side bet", reference="PGCB-2026-14")
    assert report.what.clause == "528.9(c)" and report.reference == "PGCB-2026-14"


def test_the_application_section_says_what_is_missing_including_the_laboratorys_costs(facility, provider,
                                                                                         compliance_officer):
    missing = selectors.filing_sections(facility, provider)[0].missing
    assert "§ 528.2(a)(1)" in missing and "§ 528.2(c)" in missing and "§ 528.7(2)" in missing
    file_filing(facility, provider, compliance_officer, "laboratory_costs", reference="GLO invoice 77")
    missing = selectors.filing_sections(facility, provider)[0].missing
    assert "§ 528.7(2)" not in missing and "§ 528.2(a)(1)" in missing


def test_only_a_compliance_officer_records_a_filing(facility, provider):
    with pytest.raises(PermissionDenied):
        services.filing_record(facility=facility, provider=provider, kind="application", filed_on=TODAY,
                               document=("a.pdf", PDF), user=make_person(Role.SHIFT_MANAGER, facility))
    assert not ProviderFiling.objects.exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the append-only triggers are PostgreSQL's")
def test_the_database_refuses_to_change_or_delete_a_filing_or_its_document(facility, provider, compliance_officer):
    filing = file_filing(facility, provider, compliance_officer, "application", reference="original")
    for table, column in (("providers_providerfiling", "reference = 'forged'"),
                          ("providers_providerfilingdocument", "data = 'forged'")):
        for statement in (f"UPDATE {table} SET {column}", f"DELETE FROM {table}"):  # noqa: S608
            with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic(), \
                    connection.cursor() as cursor:
                cursor.execute(statement)
            with pytest.raises(IntegrityError, match="append-only"):
                behind_the_applications_back(statement, triggers_off=False)
    assert ProviderFiling.objects.get(pk=filing.pk).reference == "original"
    assert selectors.filing_bytes(filing) == PDF
