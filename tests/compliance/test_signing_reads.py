"""A signature read and written as SQL (compliance.signing_reads): what a second signer waiting for the first sees,
the rows as save() would have written them, and save() still used where it would do more than insert."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext

from compliance.actors import acting_as
from compliance.models import AuditEvent, Signature
from compliance.roles import Role
from compliance.services import signature_sign
from tests.factories import PASSWORD, make_person
from tests.testapp.models import TwoPersonForm

SLOT_TAKEN = "was already given by"


def _form(facility: Any, person: Any) -> TwoPersonForm:
    with acting_as(person):
        return TwoPersonForm.objects.create(facility=facility, note="Saturday promotion", quantity=500)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks and concurrent transactions: PostgreSQL")
def test_a_signer_waiting_for_the_first_sees_the_first_signature_once_it_commits(facility):
    """The record is locked by one statement and its signatures read by the next: the second signer, who waited
    for the first's lock, reads the signature committed meanwhile and is refused in words. Were the signatures
    read by the locking statement itself, its snapshot (taken before the wait) would not show it: the second
    would pass every check and be refused by the unique constraint instead ("could not be given")."""
    first, second = (make_person(Role.MARKETING_SUPERVISOR, facility) for _ in range(2))
    form = _form(facility, first)
    signed, outcome = threading.Event(), {}

    def first_signer() -> None:
        try:
            with transaction.atomic():
                signature_sign(record=form, slot="prepared", user=first, password=PASSWORD)
                signed.set()
                time.sleep(1.5)  # the second signer's statement starts, and waits for this lock
        finally:
            signed.set()
            connection.close()

    def second_signer() -> None:
        signed.wait(30)
        began = time.monotonic()
        try:
            signature_sign(record=form, slot="prepared", user=second, password=PASSWORD)
            outcome["error"] = None
        except ValidationError as error:
            outcome["error"] = error
        finally:
            outcome["waited"] = time.monotonic() - began
            connection.close()

    threads = [threading.Thread(target=first_signer), threading.Thread(target=second_signer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert outcome["waited"] > 0.5, "the second signer did not wait for the first's lock"
    assert outcome["error"] is not None and SLOT_TAKEN in str(outcome["error"]), outcome
    assert list(Signature.objects.filter(object_id=form.pk).values_list("signer", flat=True)) == [first.pk]


@pytest.mark.django_db
def test_the_signature_and_its_event_are_the_rows_save_would_write(facility, marketing_supervisor, password):
    form = _form(facility, marketing_supervisor)
    with CaptureQueriesContext(connection) as captured:
        signature = signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    stored = Signature.objects.get(pk=signature.pk)
    assert stored.seal == signature.seal and stored.seal_intact() and stored.matches_record()
    assert (stored.slot, stored.signer_id, stored.role, stored.content_hash) == (
        "prepared", marketing_supervisor.pk, "marketing_supervisor", form.content_hash())
    assert stored.signed_at == signature.signed_at and not signature._state.adding
    event = AuditEvent.objects.get(action=AuditEvent.Action.SIGNED, object_id=str(form.pk))
    assert event.seal_intact() and event.occurred_at == stored.signed_at and event.actor_id == marketing_supervisor.pk
    assert event.changes == {"slot": "prepared", "meaning": "requisitioned", "content_hash": stored.content_hash}
    assert event.facility_id == facility.pk and event.model_label == TwoPersonForm._meta.label
    if connection.vendor == "postgresql":  # both rows in one statement
        inserts = [q["sql"] for q in captured.captured_queries if "INSERT INTO" in q["sql"]]
        assert len(inserts) == 1 and '"compliance_signature"' in inserts[0] and '"compliance_auditevent"' in inserts[0]


@pytest.mark.django_db
def test_a_receiver_of_the_signature_s_save_still_hears_it(facility, marketing_supervisor, password):
    """A receiver connected later (some app's) is not skipped: the rows are then saved one by one."""
    heard: list[Any] = []

    def receiver(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
        heard.append((instance.slot, created, instance.pk is not None))

    post_save.connect(receiver, sender=Signature, dispatch_uid="test_signing_reads")
    try:
        signature = signature_sign(record=_form(facility, marketing_supervisor), slot="prepared",
                                   user=marketing_supervisor, password=password)
    finally:
        post_save.disconnect(dispatch_uid="test_signing_reads", sender=Signature)
    assert heard == [("prepared", True, True)]
    assert Signature.objects.get(pk=signature.pk).seal_intact()


@pytest.mark.django_db
def test_a_person_of_another_facility_is_refused_and_nothing_is_written(
        facility, other_facility, marketing_supervisor, password):
    outsider = make_person(Role.MARKETING_SUPERVISOR, other_facility)
    form = _form(facility, marketing_supervisor)
    with pytest.raises(PermissionDenied, match="not assigned to"):
        signature_sign(record=form, slot="prepared", user=outsider, password=password)
    assert not Signature.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.SIGNED).exists()
