"""The audit trail reads right: each row names the fields that changed, old and new, in words; a
signature's facts read as facts; a facility grant names the facility; the CSV carries JSON."""

from __future__ import annotations

import csv
import io
import json

import pytest

from compliance.models import AuditEvent, Department
from compliance.services import signature_sign
from tests.factories import GamingTableFactory
from tests.testapp.models import TwoPersonForm

pytestmark = pytest.mark.django_db


def _profile_events(person):
    return AuditEvent.objects.filter(model_label="compliance.Profile", object_id=str(person.profile.pk))


def _details(client, **filters) -> str:
    page = client.get("/audit/", filters)
    assert page.status_code == 200
    return page.content.decode()


def test_a_signature_row_reads_as_the_slot_meaning_and_fingerprint_not_letter_pairs(
    facility, compliance_officer, marketing_supervisor, password, client_for
):
    record = TwoPersonForm.objects.create(facility=facility, note="n", quantity=1)
    signature = signature_sign(record=record, slot="prepared", user=marketing_supervisor, password=password)
    event = AuditEvent.objects.get(action="signed", object_id=str(record.pk))
    assert [line.as_json() for line in event.change_lines()] == [
        {"field": "Signature", "value": "Marketing supervisor completing the form"},
        {"field": "Meaning", "value": "Requisitioned"},
        {"field": "Content fingerprint", "value": signature.content_hash},
    ]
    html = _details(client_for(compliance_officer), model="testapp.TwoPersonForm", object_id=record.pk)
    assert "<strong>Signature</strong>: Marketing supervisor completing the form" in html
    assert "slot</strong>: p →" not in html and "→" not in html.split("<tbody>")[1]


def test_a_facility_granted_in_the_admin_is_named_as_added(
    facility, other_facility, administrator, dealer, client_for
):
    administrator.profile.facilities.add(other_facility)  # an administrator of both (set up with no one acting)
    profile = dealer.profile
    seen = set(_profile_events(dealer).values_list("pk", flat=True))
    response = client_for(administrator).post(
        f"/admin/compliance/profile/{profile.pk}/change/",
        {
            "user": dealer.pk,
            "full_name": profile.full_name,
            "credential_number": profile.credential_number,
            "department": profile.department_id,
            "facilities": [facility.pk, other_facility.pk],
            "active": "on",
        },
    )
    assert response.status_code == 302, response.content[:800]
    new_events = list(_profile_events(dealer).exclude(pk__in=seen))
    assert [e.changes for e in new_events] == [{"facilities": {"added": [other_facility.name]}}]
    (line,) = new_events[0].change_lines()
    assert (line.label, line.added, line.removed) == ("Facilities", (other_facility.name,), ())
    assert new_events[0].actor == administrator
    html = _details(client_for(administrator), model="compliance.Profile", object_id=profile.pk)
    assert f"<strong>Facilities</strong>: added {other_facility.name}" in html


def test_a_facility_taken_away_is_named_as_removed_from_either_side(
    facility, other_facility, dealer, administrator, as_user
):
    administrator.profile.facilities.add(other_facility)  # an administrator of both (set up with no one acting)
    seen = set(_profile_events(dealer).values_list("pk", flat=True))
    with as_user(administrator):
        other_facility.staff.add(dealer.profile)  # from the facility's side
        dealer.profile.facilities.remove(other_facility)
    events = list(_profile_events(dealer).exclude(pk__in=seen).order_by("pk"))
    assert [e.changes for e in events] == [
        {"facilities": {"added": [other_facility.name]}},
        {"facilities": {"removed": [other_facility.name]}},
    ]
    assert {e.actor for e in events} == {administrator}


def test_a_change_names_the_field_and_the_related_record_in_words(facility, administrator, inspector, as_user):
    # (The Board inspector is tied to no department of the facility, so moving them is allowed.)
    table = GamingTableFactory(facility=facility, number="SB-9")
    with as_user(administrator):
        table.number = "SB-10"
        table.save()
        inspector.profile.department = Department.objects.get(code=Department.SURVEILLANCE)
        inspector.profile.active = False
        inspector.profile.save()
    table_event = AuditEvent.objects.get(model_label="compliance.GamingTable", action="changed")
    assert [line.as_json() for line in table_event.change_lines()] == [
        {"field": "Number", "old": "SB-9", "new": "SB-10"}
    ]
    profile_event = _profile_events(inspector).filter(action="changed").first()  # newest first
    lines = {line.label: (line.old, line.new) for line in profile_event.change_lines()}
    assert lines["Active"] == ("Yes", "No")
    assert lines["Department"][1] == "Surveillance"
    assert not lines["Department"][0].isdigit()


def test_a_save_that_changes_nothing_leaves_no_empty_changed_row(facility, dealer, as_user, administrator):
    before = _profile_events(dealer).count()
    with as_user(administrator):
        dealer.profile.save()
    assert _profile_events(dealer).count() == before


def test_the_audit_csv_carries_the_changes_as_json_in_words(
    facility, compliance_officer, marketing_supervisor, password, client_for, as_user
):
    with as_user(marketing_supervisor):
        record = TwoPersonForm.objects.create(facility=facility, note="before", quantity=1)
        record.note = "after"
        record.save()
    signature_sign(record=record, slot="prepared", user=marketing_supervisor, password=password)
    response = client_for(compliance_officer).get(
        "/audit/export.csv", {"model": "testapp.TwoPersonForm", "object_id": record.pk}
    )
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    by_action = {row["action"]: json.loads(row["changes"]) for row in rows}
    assert by_action["changed"] == [{"field": "Note", "old": "before", "new": "after"}]
    assert by_action["signed"][0] == {"field": "Signature", "value": "Marketing supervisor completing the form"}
    # "Created" names the values the record was created with (issue 25), never its id or facility.
    created = {line["field"]: line["value"] for line in by_action["created"]}
    assert created["Note"] == "before" and created["Quantity"] == "1"
    assert "Facility" not in created and "Id" not in created


def test_a_stored_time_reads_on_the_facilitys_clock_and_details_read_as_phrases():
    from django.db import models
    from django.utils import timezone

    from compliance.models.audit import _in_words

    with timezone.override("America/New_York"):
        assert _in_words(models.DateTimeField(), "2026-11-26 11:21:33.654320+00:00") == "26 Nov 2026 06:21:33"
    assert _in_words(models.DateField(), "2026-11-26") == "26 Nov 2026"
    assert _in_words(None, {"address": "10.0.0.9", "first_name_tried": "ann"}) == \
        "Address: 10.0.0.9; First name tried: ann"


def test_a_refused_sign_in_reads_as_what_happened_not_as_a_changed_profile(facility, finance_staff):
    from compliance import accounts
    from compliance.models import AuditEvent

    accounts.account_event(finance_staff, event=accounts.EVENT_SIGNIN_FAILED, actor=None,
                           details={"username": finance_staff.username, "address": "10.0.0.9"})
    event = AuditEvent.objects.latest("pk")
    assert event.summary().startswith("Sign-in refused: wrong username, password or code — ")
    assert "#" not in event.summary()
    assert event.actor_words() == "no one signed in"
    assert sorted((line.label, line.value) for line in event.change_lines()) == [
        ("Address", "10.0.0.9"), ("Username", finance_staff.username)]


def test_the_audit_export_reads_times_on_the_facilitys_clock_even_streamed(
    facility, compliance_officer, marketing_supervisor, client_for, as_user
):
    facility.time_zone = "America/Los_Angeles"  # not the server's zone (America/New_York)
    facility.save()
    with as_user(marketing_supervisor):
        TwoPersonForm.objects.create(facility=facility, note="west", quantity=1)
    response = client_for(compliance_officer).get("/audit/export.csv", {"model": "testapp.TwoPersonForm"})
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows and all(row["occurred_at"].endswith(("-08:00", "-07:00")) for row in rows), rows[0]["occurred_at"]
