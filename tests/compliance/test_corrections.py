"""A signed record is corrected by a new linked record with a reason; both stay visible."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from compliance.models import AuditEvent
from compliance.services import record_correct, signature_sign
from tests.testapp.models import TwoPersonForm

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_form(facility, marketing_supervisor, password):
    form = TwoPersonForm.objects.create(facility=facility, note="Saturday", quantity=500)
    signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    return form


def test_correcting_a_signed_record_creates_a_linked_record_and_keeps_the_original(signed_form, marketing_supervisor):
    correction = record_correct(
        original=signed_form, reason="Quantity miscounted", user=marketing_supervisor, changes={"quantity": 450}
    )
    original = TwoPersonForm.objects.get(pk=signed_form.pk)
    assert original.quantity == 500 and original.is_superseded
    assert correction.corrects == original and correction.quantity == 450
    assert correction.correction_reason == "Quantity miscounted"
    assert not correction.is_signed()  # the correction needs its own signatures
    assert TwoPersonForm.objects.count() == 2
    event = AuditEvent.objects.get(action="corrected")
    assert event.object_id == str(original.pk) and event.reason == "Quantity miscounted"


def test_a_correction_needs_a_reason(signed_form, marketing_supervisor):
    with pytest.raises(ValidationError, match="why"):
        record_correct(original=signed_form, reason="  ", user=marketing_supervisor, changes={"quantity": 1})


def test_a_record_is_corrected_once_then_its_correction_is_corrected(signed_form, marketing_supervisor, password):
    first = record_correct(original=signed_form, reason="typo", user=marketing_supervisor, changes={"quantity": 1})
    with pytest.raises(ValidationError, match="already corrected"):
        record_correct(original=signed_form, reason="again", user=marketing_supervisor, changes={"quantity": 2})
    signature_sign(record=first, slot="prepared", user=marketing_supervisor, password=password)
    second = record_correct(original=first, reason="again", user=marketing_supervisor, changes={"quantity": 2})
    assert second.corrects == first


def test_an_unsigned_record_is_edited_not_corrected(facility, marketing_supervisor):
    draft = TwoPersonForm.objects.create(facility=facility, note="draft")
    with pytest.raises(ValidationError, match="not signed"):
        record_correct(original=draft, reason="x", user=marketing_supervisor, changes={"note": "y"})


def test_only_roles_that_may_correct_can_correct(signed_form, dealer, inspector):
    for user in (dealer, inspector):
        with pytest.raises(PermissionDenied):
            record_correct(original=signed_form, reason="x", user=user, changes={"quantity": 1})
