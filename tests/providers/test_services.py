"""Recording the Board's decisions about a provider, and § 528.7 at the table."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import time_machine
from django.core.exceptions import PermissionDenied, ValidationError

from compliance.providers import selectors, services
from compliance.providers.models import TableOffering
from compliance.roles import Role
from tests.factories import make_person
from tests.providers.conftest import TODAY, at_noon, permission_filings

pytestmark = pytest.mark.django_db


def _approved(facility, offering, officer, on=date(2025, 6, 1)):
    services.offering_lab_approval_record(facility=facility, offering=offering, approved_on=on, user=officer)
    services.offering_use_approve(facility=facility, offering=offering, approved_on=on, reference="ED-1",
                                  user=officer)


def test_the_certification_expires_four_years_from_the_boards_approval(facility, provider, compliance_officer):
    term = services.certification_record(facility=facility, provider=provider, approved_on=date(2025, 1, 15),
                                         user=compliance_officer)
    assert term.expires_on == date(2029, 1, 15)
    assert selectors.certification_standing(provider, TODAY).in_effect


def test_a_renewal_filed_60_days_ahead_keeps_it_in_effect_until_the_denial(facility, provider, compliance_officer):
    term = services.certification_record(facility=facility, provider=provider, approved_on=date(2022, 1, 1),
                                         user=compliance_officer)
    assert term.expires_on == date(2026, 1, 1)
    services.renewal_file(facility=facility, certification=term, filed_on=date(2025, 11, 2), user=compliance_officer)
    standing = selectors.certification_standing(provider, TODAY)
    assert standing.in_effect and "§ 528.4(c)" in standing.words
    services.renewal_decide(facility=facility, certification=term, decision="denied", decided_on=TODAY,
                            user=compliance_officer)
    assert not selectors.certification_standing(provider, TODAY).in_effect


def test_a_renewal_received_59_days_ahead_keeps_it_in_effect_flagged_late(facility, provider, compliance_officer):
    term = services.certification_record(facility=facility, provider=provider, approved_on=date(2022, 1, 1),
                                         user=compliance_officer)
    services.renewal_file(facility=facility, certification=term, filed_on=date(2025, 11, 3), user=compliance_officer)
    standing = selectors.certification_standing(provider, TODAY)
    assert standing.in_effect and standing.clause == "528.4(c)"
    assert "Renewal filed late" in standing.flag and "due by 2 Nov 2025" in standing.flag and "§ 528.4(b)" in standing.flag


def test_a_renewal_after_the_expiry_is_refused_and_the_certification_lapses(facility, provider, compliance_officer):
    term = services.certification_record(facility=facility, provider=provider, approved_on=date(2022, 1, 1),
                                         user=compliance_officer)
    with pytest.raises(ValidationError, match="renews nothing"):
        services.renewal_file(facility=facility, certification=term, filed_on=date(2026, 1, 2),
                              user=compliance_officer)
    services.renewal_file(facility=facility, certification=term, filed_on=date(2026, 1, 1), user=compliance_officer)
    assert selectors.certification_standing(provider, TODAY).in_effect  # received on the day of expiry


def test_an_approved_renewal_is_a_new_four_year_term_from_that_approval(facility, provider, compliance_officer):
    term = services.certification_record(facility=facility, provider=provider, approved_on=date(2022, 1, 1),
                                         user=compliance_officer)
    services.renewal_file(facility=facility, certification=term, filed_on=date(2025, 10, 1), user=compliance_officer)
    new = services.renewal_decide(facility=facility, certification=term, decision="approved",
                                  decided_on=date(2026, 2, 1), user=compliance_officer)
    assert (new.approved_on, new.expires_on, new.renews_id) == (date(2026, 2, 1), date(2030, 2, 1), term.pk)
    assert selectors.certification_standing(provider, TODAY).in_effect
    with pytest.raises(ValidationError, match="already decided"):
        services.renewal_decide(facility=facility, certification=term, decision="denied", decided_on=TODAY,
                                user=compliance_officer)


def test_dates_still_to_come_and_decisions_before_a_filing_are_refused_in_words(facility, provider,
                                                                                 compliance_officer):
    with pytest.raises(ValidationError, match="still to come"):
        services.certification_record(facility=facility, provider=provider, approved_on=TODAY + timedelta(days=1),
                                      user=compliance_officer)
    term = services.certification_record(facility=facility, provider=provider, approved_on=date(2024, 1, 1),
                                         user=compliance_officer)
    with pytest.raises(ValidationError, match="record its filing first"):
        services.renewal_decide(facility=facility, certification=term, decision="approved", decided_on=TODAY,
                                user=compliance_officer)


def test_only_a_compliance_officer_records_and_assigns(facility, provider, offering, table):
    shift_manager = make_person(Role.SHIFT_MANAGER, facility)
    with pytest.raises(PermissionDenied):
        services.certification_record(facility=facility, provider=provider, approved_on=TODAY, user=shift_manager)
    with pytest.raises(PermissionDenied):
        services.table_offering_assign(table=table, offering=offering, user=shift_manager)


def test_an_offering_is_refused_at_a_table_when_the_provider_is_neither_certified_nor_permitted(
        facility, offering, table, compliance_officer):
    _approved(facility, offering, compliance_officer)
    with pytest.raises(ValidationError, match=r"§ 528\.7.*neither certified nor permitted"):
        services.table_offering_assign(table=table, offering=offering, user=compliance_officer)
    assert not TableOffering.objects.exists()


def test_an_offering_is_refused_until_the_laboratory_and_the_board_approved_it(facility, provider, offering, table,
                                                                               compliance_officer):
    services.certification_record(facility=facility, provider=provider, approved_on=date(2025, 1, 1),
                                  user=compliance_officer)
    with pytest.raises(ValidationError) as refused:
        services.table_offering_assign(table=table, offering=offering, user=compliance_officer)
    words = " ".join(refused.value.messages)
    assert "§ 528.7(1)" in words and "§ 528.7(3)" in words and "neither certified" not in words
    services.offering_lab_approval_record(facility=facility, offering=offering, approved_on=date(2025, 2, 1),
                                          user=compliance_officer)
    with pytest.raises(ValidationError, match=r"528\.7\(3\)"):
        services.table_offering_assign(table=table, offering=offering, user=compliance_officer)
    services.offering_use_approve(facility=facility, offering=offering, approved_on=date(2025, 3, 1),
                                  user=compliance_officer)
    row = services.table_offering_assign(table=table, offering=offering, user=compliance_officer)
    offering.refresh_from_db()
    assert row.assigned_on == TODAY and selectors.offering_refusal(offering, TODAY, facility=facility) == ""


def test_a_permission_before_certification_allows_use_until_the_date_to_cease(facility, provider, offering, table,
                                                                              compliance_officer):
    _approved(facility, offering, compliance_officer)
    permission_filings(facility, provider, compliance_officer)
    permission = services.permission_grant(facility=facility, provider=provider, granted_on=date(2026, 1, 10),
                                           reference="BOL-77", user=compliance_officer)
    services.table_offering_assign(table=table, offering=offering, user=compliance_officer)
    offering.refresh_from_db()
    cease = TODAY + timedelta(days=14)
    services.permission_rescind(facility=facility, permission=permission, rescinded_on=TODAY, cease_by=cease,
                                user=compliance_officer)
    assert selectors.offering_refusal(offering, cease - timedelta(days=1), facility=facility) == ""
    refusal = selectors.offering_refusal(offering, cease, facility=facility)
    assert "ceased by" in refusal and "§ 528.8(b)" in refusal
    with time_machine.travel(at_noon(cease), tick=False):
        services.table_offering_remove(table_offering=TableOffering.objects.get(), user=compliance_officer)
        with pytest.raises(ValidationError, match="neither certified nor permitted"):
            services.table_offering_assign(table=table, offering=offering, user=compliance_officer)


def test_a_permission_for_another_facility_does_not_count_here(facility, other_facility, provider, offering, table,
                                                               compliance_officer):
    _approved(facility, offering, compliance_officer)
    elsewhere = make_person(Role.COMPLIANCE_OFFICER, other_facility)
    permission_filings(other_facility, provider, elsewhere)
    services.permission_grant(facility=other_facility, provider=provider, granted_on=date(2026, 1, 10),
                              user=elsewhere)
    with pytest.raises(ValidationError, match="neither certified nor permitted"):
        services.table_offering_assign(table=table, offering=offering, user=compliance_officer)


def test_a_rescission_needs_a_date_to_cease_on_or_after_the_notice(facility, provider, compliance_officer):
    permission_filings(facility, provider, compliance_officer)
    permission = services.permission_grant(facility=facility, provider=provider, granted_on=date(2026, 1, 10),
                                           user=compliance_officer)
    with pytest.raises(ValidationError, match=r"528\.8\(c\)"):
        services.permission_rescind(facility=facility, permission=permission, rescinded_on=TODAY,
                                    cease_by=TODAY - timedelta(days=1), user=compliance_officer)
