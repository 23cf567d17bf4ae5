"""Electronic signatures: re-authentication, roles, the two-person rule, immutability."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, ProgrammingError, connection, transaction

from compliance.models import RegulatedWriteError, Signature, SignedRecordError
from compliance.services import signature_sign
from compliance.testing import behind_the_applications_back
from tests.factories import make_person
from tests.testapp.models import ExaminationForm, TwoPersonForm

pytestmark = pytest.mark.django_db


@pytest.fixture
def form(facility: Any, marketing_supervisor: Any, as_user: Any) -> TwoPersonForm:
    with as_user(marketing_supervisor):
        return TwoPersonForm.objects.create(facility=facility, note="Saturday promotion", quantity=500)


def test_signing_records_name_credential_role_meaning_time_and_hash(form, marketing_supervisor, password):
    signature = signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)

    profile = marketing_supervisor.profile
    assert signature.printed_name == profile.full_name
    assert signature.credential_number == profile.credential_number
    assert signature.role == "marketing_supervisor"
    assert signature.meaning == "requisitioned"
    assert signature.department == "Marketing"
    assert signature.content_hash == form.content_hash() and len(signature.content_hash) == 64
    assert profile.credential_number in signature.printed
    assert signature.matches_record()


def test_signing_with_a_wrong_password_is_refused_and_saves_nothing(form, marketing_supervisor):
    with pytest.raises(ValidationError, match="password is not correct"):
        signature_sign(record=form, slot="prepared", user=marketing_supervisor, password="not my password")
    assert not Signature.objects.exists()


def test_signing_in_a_role_the_slot_does_not_accept_is_refused(form, finance_supervisor, password):
    with pytest.raises(PermissionDenied, match="marketing supervisor"):
        signature_sign(record=form, slot="prepared", user=finance_supervisor, password=password)


def test_the_same_person_cannot_give_both_signatures(form, marketing_supervisor, password):
    signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    with pytest.raises(ValidationError, match="different person"):
        signature_sign(record=form, slot="authorized", user=marketing_supervisor, password=password)
    assert Signature.objects.count() == 1


def test_the_database_refuses_a_second_signature_by_the_same_person(form, marketing_supervisor, password):
    first = signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    twin = Signature(
        facility=first.facility,
        content_type=first.content_type,
        object_id=first.object_id,
        slot="authorized",
        meaning="authorized",
        signer=marketing_supervisor,
        printed_name="x",
        credential_number="y",
        department="Marketing",
        role="marketing_supervisor",
        content_hash=first.content_hash,
        distinct_person=True,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        twin.save()


def test_a_slot_is_signed_once(form, marketing_supervisor, second_marketing_supervisor, password):
    signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    with pytest.raises(ValidationError, match="already given"):
        signature_sign(record=form, slot="prepared", user=second_marketing_supervisor, password=password)


def test_record_is_incomplete_until_every_signature_is_given(form, marketing_supervisor, finance_supervisor, password):
    assert [r.slot for r in form.missing_signatures] == ["prepared", "authorized"]
    signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    assert not TwoPersonForm.objects.get(pk=form.pk).is_complete
    signature_sign(record=form, slot="authorized", user=finance_supervisor, password=password)
    assert TwoPersonForm.objects.get(pk=form.pk).is_complete


def test_department_slots_need_one_finance_and_one_marketing_member(
    facility, finance_staff, marketing_staff, password, as_user
):
    with as_user(finance_staff):
        exam = ExaminationForm.objects.create(facility=facility, note="box of 5,000")
    with pytest.raises(PermissionDenied, match="marketing department"):
        signature_sign(record=exam, slot="marketing", user=finance_staff, password=password)
    signature_sign(record=exam, slot="finance", user=finance_staff, password=password)
    signature_sign(record=exam, slot="marketing", user=marketing_staff, password=password)
    assert exam.is_complete


def test_a_signed_record_cannot_be_edited_in_place(form, marketing_supervisor, password):
    signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    form.refresh_from_db()
    form.quantity = 999
    with pytest.raises(SignedRecordError, match="record a correction"):
        form.save()
    assert TwoPersonForm.objects.get(pk=form.pk).quantity == 500


def test_signatures_are_never_edited_or_deleted(form, marketing_supervisor, password):
    signature = signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    signature.printed_name = "Someone Else"
    with pytest.raises(SignedRecordError):
        signature.save()
    with pytest.raises(SignedRecordError):
        signature.delete()
    with pytest.raises(RegulatedWriteError):
        Signature.objects.filter(pk=signature.pk).update(printed_name="Someone Else")
    with pytest.raises(RegulatedWriteError):
        Signature.objects.filter(pk=signature.pk).delete()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the append-only trigger is PostgreSQL's")
def test_the_database_refuses_raw_sql_changes_to_a_signature(form, marketing_supervisor, password):
    signature = signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    change = "UPDATE compliance_signature SET printed_name = 'X' WHERE id = %s"
    delete = "DELETE FROM compliance_signature WHERE id = %s"
    for statement in (change, delete):  # the application's role holds no UPDATE or DELETE on it
        with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic(), connection.cursor() as c:
            c.execute(statement, [signature.pk])
        # and the trigger refuses even the owner
        with pytest.raises(IntegrityError, match="append-only"):
            behind_the_applications_back(statement, [signature.pk], triggers_off=False)


def test_the_board_inspector_cannot_sign(form, inspector, password):
    with pytest.raises(PermissionDenied, match="read-only"):
        signature_sign(record=form, slot="prepared", user=inspector, password=password)


def test_an_inactive_person_cannot_sign(form, marketing_supervisor, password):
    profile = marketing_supervisor.profile
    profile.active = False
    profile.save()
    with pytest.raises(PermissionDenied, match="active"):
        signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)


def test_a_person_cannot_sign_another_facilitys_record(form, other_facility, password):
    outsider = make_person(form.signature_requirements[0].roles.__iter__().__next__(), other_facility)
    with pytest.raises(PermissionDenied, match="not assigned"):
        signature_sign(record=form, slot="prepared", user=outsider, password=password)


def test_a_signature_detects_a_record_changed_behind_its_back(form, marketing_supervisor, password):
    signature = signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    # the owner, past the triggers
    behind_the_applications_back("UPDATE testapp_twopersonform SET quantity = 1 WHERE id = %s", [form.pk])
    signature = Signature.objects.get(pk=signature.pk)
    assert not signature.matches_record()


def test_only_fields_outside_the_signed_content_may_change_after_signing(form, marketing_supervisor, password):
    signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    form.quantity = 1
    with pytest.raises(SignedRecordError, match="quantity"):
        form.save_unsigned_fields("quantity")
    assert TwoPersonForm.objects.get(pk=form.pk).quantity == 500


def test_a_co_signers_refusals_name_them_not_the_person_at_the_screen(form, finance_supervisor, password):
    name = finance_supervisor.profile.full_name
    with pytest.raises(ValidationError, match=f"{name}'s password is not correct"):
        signature_sign(record=form, slot="authorized", user=finance_supervisor, password="typo", co_signer=True)
    with pytest.raises(PermissionDenied, match=f"{name} is finance supervisor"):
        signature_sign(record=form, slot="prepared", user=finance_supervisor, password=password, co_signer=True)
