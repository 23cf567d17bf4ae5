"""Reminders to renew (§ 528.4(b)): 90, 75 and 61 days before the expiry and on the day a renewal becomes late,
each once, to the facility's compliance officers; none once the renewal is filed."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import time_machine
from django.core import mail

from compliance.providers import services
from compliance.providers.models import RenewalReminder
from compliance.providers.tasks import send_renewal_reminders
from tests.providers.conftest import at_noon

pytestmark = pytest.mark.django_db

APPROVED_ON = date(2022, 6, 1)
EXPIRES = date(2026, 6, 1)


@pytest.fixture
def term(facility, provider, offering, compliance_officer):
    services.offering_use_approve(facility=facility, offering=offering, approved_on=date(2025, 1, 2),
                                  user=compliance_officer)  # the facility uses the provider
    return services.certification_record(facility=facility, provider=provider, approved_on=APPROVED_ON,
                                         user=compliance_officer)


def _run_on(day, capture):
    with time_machine.travel(at_noon(day), tick=False), capture(execute=True):
        send_renewal_reminders.delay()


def test_reminders_fire_on_the_right_days_and_once_each(term, compliance_officer, django_capture_on_commit_callbacks):
    sent_on = {}
    for days_before in range(95, -3, -1):
        day = EXPIRES - timedelta(days=days_before)
        before = len(mail.outbox)
        _run_on(day, django_capture_on_commit_callbacks)
        _run_on(day, django_capture_on_commit_callbacks)  # beat runs hourly: the second run sends nothing
        for message in mail.outbox[before:]:
            sent_on[days_before] = message
    assert sorted(sent_on, reverse=True) == [90, 75, 61, 59]
    assert len(mail.outbox) == 4
    assert all(m.to == [compliance_officer.email] for m in mail.outbox)
    assert "by 2 Apr 2026" in sent_on[90].subject and "§ 528.4(b)" in sent_on[90].body
    assert "now late" in sent_on[59].body and "still keeps the certification in effect" in sent_on[59].body
    assert "with none received by then the certification lapses" in sent_on[59].body
    assert set(RenewalReminder.objects.values_list("stage", flat=True)) == {"90", "75", "61", "late"}
    assert not RenewalReminder.objects.filter(sent_at__isnull=True).exists()


def test_no_reminder_once_the_renewal_is_filed(term, facility, compliance_officer,
                                                django_capture_on_commit_callbacks):
    _run_on(EXPIRES - timedelta(days=90), django_capture_on_commit_callbacks)
    with time_machine.travel(at_noon(EXPIRES - timedelta(days=80)), tick=False):
        services.renewal_file(facility=facility, certification=term, filed_on=EXPIRES - timedelta(days=80),
                              user=compliance_officer)
    for days_before in (75, 61, 59):
        _run_on(EXPIRES - timedelta(days=days_before), django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 1


def test_a_reminder_with_no_one_to_receive_it_stays_unsent_and_goes_once_someone_can(
        term, compliance_officer, django_capture_on_commit_callbacks):
    compliance_officer.email = ""
    compliance_officer.save()
    day = EXPIRES - timedelta(days=90)
    _run_on(day, django_capture_on_commit_callbacks)
    assert not mail.outbox and RenewalReminder.objects.get().sent_at is None
    compliance_officer.email = "compliance@example.test"
    compliance_officer.save()
    _run_on(day + timedelta(days=1), django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 1 and RenewalReminder.objects.get().sent_at is not None


def test_a_provider_no_facility_uses_reminds_no_one(facility, provider, compliance_officer,
                                                     django_capture_on_commit_callbacks):
    services.certification_record(facility=facility, provider=provider, approved_on=APPROVED_ON,
                                  user=compliance_officer)
    _run_on(EXPIRES - timedelta(days=90), django_capture_on_commit_callbacks)
    assert not mail.outbox and not RenewalReminder.objects.exists()
