"""The audit trail of one facility shows its records reached through another (a camera's outages, a roster's
assignments, a mailing's screening), not another facility's: their changes carry the facility, and those written
without one before 30 Nov 2026 are read through their record (``compliance.selectors._audit_branches``)."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.apps import apps

from compliance import selectors
from compliance.keyset import Keyset
from compliance.models import AuditedModel, AuditEvent, Facility
from compliance.roles import Role
from compliance.staffing import services
from compliance.staffing.models import CameraCoverage, CameraOutage
from tests.factories import GamingTableFactory, make_person

pytestmark = pytest.mark.django_db


def test_no_register_shown_to_every_facility_reaches_a_facility_through_a_foreign_key():
    """A model taken for a shared register (no facility of its own, no ``facility_through``) is shown on every
    facility's trail: none may point at a record that has a facility (that was the leak)."""
    leaking = []
    for label in selectors._shared_register_labels():
        model = apps.get_model(label)
        for field in model._meta.concrete_fields:
            related = field.related_model if field.is_relation else None
            if related is not None and (related is Facility or "facility" in {f.name for f in related._meta.get_fields()}):
                leaking.append(f"{label}.{field.name} -> {related._meta.label}")
    assert not leaking, f"shown on every facility's trail but belonging to one: {leaking}"


def test_every_model_reached_through_another_names_a_key_to_a_record_with_a_facility():
    for model in apps.get_models():
        if issubclass(model, AuditedModel) and model.facility_through:
            parent = model._meta.get_field(model.facility_through).related_model
            assert hasattr(parent, "facility_id"), f"{model._meta.label}: {model.facility_through} has no facility"


def _camera_with_outage(facility: Facility, code: str) -> tuple[Any, CameraCoverage, CameraOutage]:
    surveillance = make_person(Role.SURVEILLANCE, facility)
    table: Any = GamingTableFactory(facility=facility)
    camera = services.camera_register(facility=facility, code=code, user=surveillance)
    coverage = services.coverage_set(camera=camera, table=table, end="a", user=surveillance)
    services.camera_out_of_service(camera=camera, reason="Lens fogged", user=surveillance)
    assert coverage is not None
    return surveillance, coverage, CameraOutage.objects.get(camera=camera)


def _trail(facility: Facility, model_label: str = "") -> set[tuple[str, str]]:
    page = selectors.audit_event_page(facility=facility, keyset=Keyset(), limit=200, model_label=model_label)
    streamed = selectors.audit_events(facility=facility, model_label=model_label)
    keys = {(e.model_label, e.object_id) for e in page}
    assert keys == {(e.model_label, e.object_id) for e in streamed}, "the page and the export must agree"
    if not model_label:  # the dashboard's latest changes: the same trail
        latest = selectors.latest_audit_events(facility=facility, limit=200)
        assert keys == {(e.model_label, e.object_id) for e in latest}
    return keys


def test_a_cameras_changes_carry_its_facility_and_stay_on_its_trail(facility, other_facility):
    _person, coverage, outage = _camera_with_outage(facility, "C-1")
    _other, their_coverage, their_outage = _camera_with_outage(other_facility, "C-1")
    for record, where in ((coverage, facility), (outage, facility), (their_coverage, other_facility),
                          (their_outage, other_facility)):
        events = AuditEvent.objects.filter(model_label=record._meta.label, object_id=str(record.pk))
        assert events and {e.facility_id for e in events} == {where.pk}
    ours = {("staffing.CameraCoverage", str(coverage.pk)), ("staffing.CameraOutage", str(outage.pk))}
    theirs = {("staffing.CameraCoverage", str(their_coverage.pk)), ("staffing.CameraOutage", str(their_outage.pk))}
    for label in ("", "staffing.CameraOutage", "staffing.CameraCoverage"):
        shown = _trail(facility, label)
        assert not shown & theirs, f"another facility's camera on this trail (filter {label!r})"
        assert {key for key in ours if label in ("", key[0])} <= shown
        assert not _trail(other_facility, label) & ours


def _written_without_facility(record: Any, actor: Any) -> AuditEvent:
    """An event as the version before 30 Nov 2026 wrote it for these models: no facility."""
    event = AuditEvent.of(record, action=AuditEvent.Action.CHANGED, actor=actor, changes={"reason": "old"})
    event.facility_id = None
    event.save(force_insert=True)
    return event


def test_changes_written_without_a_facility_are_read_through_their_record(
    facility, other_facility, inspector, client_for
):
    person, _coverage, outage = _camera_with_outage(facility, "C-7")
    other_person, _their_coverage, their_outage = _camera_with_outage(other_facility, "C-7")
    ours = _written_without_facility(outage, person)
    theirs = _written_without_facility(their_outage, other_person)
    for label in ("", "staffing.CameraOutage"):
        shown = {e.pk for e in selectors.audit_event_page(facility=facility, keyset=Keyset(), limit=200,
                                                         model_label=label)}
        assert ours.pk in shown and theirs.pk not in shown
        shown_there = {e.pk for e in selectors.audit_events(facility=other_facility, model_label=label)}
        assert theirs.pk in shown_there and ours.pk not in shown_there
    # As the inspector reads it: the page and its CSV export.
    page = client_for(inspector).get("/audit/", {"model": "staffing.CameraOutage"})
    assert page.status_code == 200
    assert {e.pk for e in page.context["page"].object_list} >= {ours.pk} and theirs.pk not in {
        e.pk for e in page.context["page"].object_list}
    for record, rows in ((outage, 1 + AuditEvent.objects.filter(model_label="staffing.CameraOutage",
                                                                 object_id=str(outage.pk)).count()),
                         (their_outage, 1)):  # the header alone: nothing of the other facility's camera
        export = client_for(inspector).get("/audit/export.csv", {"model": "staffing.CameraOutage",
                                                                 "object_id": record.pk})
        assert export.status_code == 200
        assert len(list(csv.reader(io.StringIO(b"".join(export.streaming_content).decode("utf-8-sig"))))) == rows


def test_an_object_id_that_is_not_a_number_matches_nothing_and_raises_nothing(facility, administrator):
    _person, _coverage, outage = _camera_with_outage(facility, "C-9")
    event = AuditEvent.of(outage, action=AuditEvent.Action.CHANGED, actor=administrator)
    event.facility_id, event.object_id = None, "not-a-key"
    event.save(force_insert=True)
    assert event.pk not in {e.pk for e in selectors.audit_events(facility=facility)}
    assert event.pk not in {e.pk for e in selectors.audit_event_page(facility=facility, keyset=Keyset(), limit=500)}


def test_a_persons_second_factor_reset_is_shown_where_they_work_only(facility, other_facility, administrator):
    from compliance.models import SecondFactorReset

    here, elsewhere = make_person(Role.DEALER, facility), make_person(Role.DEALER, other_facility)
    resets = {}
    for person in (here, elsewhere):
        reset = SecondFactorReset(person=person, reason="lost phone", requested_by=administrator)
        resets[person.pk] = reset
        reset.save()
        _written_without_facility(reset, administrator)
    ours, theirs = str(resets[here.pk].pk), str(resets[elsewhere.pk].pk)
    for label in ("", "compliance.SecondFactorReset"):
        shown = {e.object_id for e in selectors.audit_events(facility=facility, model_label=label)
                 if e.model_label == "compliance.SecondFactorReset"}
        assert ours in shown and theirs not in shown
