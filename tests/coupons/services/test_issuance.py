"""Requisition and issuance, § 525.21(g)–(h): authorized, examined, within the requisition, co-signed."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from compliance.roles import Role
from compliance.services import signature_sign
from coupons import services
from coupons.models import (
    CouponState,
    LedgerLine,
)
from tests.coupons.conftest import PASSWORD, TODAY, states
from tests.factories import make_person

pytestmark = pytest.mark.django_db
S = CouponState


def test_issuing_unexamined_coupons_is_refused(program, receive, requisition, finance_supervisor):
    receive(1, 100, examined=False)
    receive(101, 200)  # some stock, so the requisition can be made (§ 525.21(g)–(h))
    with pytest.raises(ValidationError, match="not complete"):
        services.issuance_record(
            requisition=requisition(10),
            series=program.series,
            issued=[(1, 10)],
            user=finance_supervisor,
            password=PASSWORD,
        )


def test_issuing_against_an_unauthorized_requisition_is_refused(program, receive, requisition, finance_supervisor):
    receive(1, 100)
    with pytest.raises(ValidationError, match="not authorized"):
        services.issuance_record(
            requisition=requisition(10, authorize=False),
            series=program.series,
            issued=[(1, 10)],
            user=finance_supervisor,
            password=PASSWORD,
        )


def test_issuing_more_than_requisitioned_is_refused(program, receive, requisition, finance_supervisor):
    receive(1, 100)
    with pytest.raises(ValidationError, match="leaves 10 coupons"):
        services.issuance_record(
            requisition=requisition(10),
            series=program.series,
            issued=[(1, 11)],
            user=finance_supervisor,
            password=PASSWORD,
        )


def test_the_same_person_cannot_requisition_and_authorize(program, facility, receive):
    receive(1, 100)
    both = make_person(Role.MARKETING_SUPERVISOR, facility)
    # A marketing supervisor cannot be given the finance supervisor's role at all (one department each) ...
    with pytest.raises(ValidationError, match="held by a member of the finance department"), transaction.atomic():
        both.groups.add(Group.objects.get(name="finance_supervisor"))
    # ... and one who holds it anyway (written around the guard) still cannot authorize their own requisition.
    type(both).groups.through.objects.bulk_create(
        [type(both).groups.through(user_id=both.pk, group_id=Group.objects.get(name="finance_supervisor").pk)]
    )
    both._compliance_roles = None
    req = services.requisition_prepare(
        facility=facility,
        program=program.program,
        denomination_cents=2500,
        quantity=5,
        needed_for=TODAY,
        user=both,
        password=PASSWORD,
    )
    with pytest.raises(PermissionDenied, match="member of the finance department; you are in the Marketing department"):
        signature_sign(record=req, slot="authorized", user=both, password=PASSWORD)


def test_a_wrong_password_saves_nothing(program, receive, requisition, finance_supervisor):
    receive(1, 100)
    req = requisition(10)
    with pytest.raises(ValidationError, match="password"):
        services.issuance_record(
            requisition=req, series=program.series, issued=[(1, 10)], user=finance_supervisor, password="wrong"
        )
    assert states(program.series) == [(1, 100, S.IN_STOCK)]


def test_a_corrected_requisition_is_not_issued_twice(
    program, receive, requisition, finance_supervisor, marketing_supervisor
):
    from compliance.services import record_correct

    receive(1, 1000)
    original = requisition(100)
    services.issuance_record(requisition=original, series=program.series, issued=[(1, 100)],
                             user=finance_supervisor, password=PASSWORD)
    correction = record_correct(original=original, reason="Needs 120", user=marketing_supervisor,
                                changes={"quantity": 120})
    signature_sign(record=correction, slot="requisitioned", user=marketing_supervisor, password=PASSWORD)
    signature_sign(record=correction, slot="authorized", user=finance_supervisor, password=PASSWORD)
    with pytest.raises(ValidationError, match="leaves 20 coupons to issue; you entered 120"):
        services.issuance_record(requisition=correction, series=program.series, issued=[(101, 220)],
                                 user=finance_supervisor, password=PASSWORD)
    original.refresh_from_db()
    with pytest.raises(ValidationError, match=f"was corrected by requisition #{correction.pk}"):
        services.issuance_record(requisition=original, series=program.series, issued=[(101, 101)],
                                 user=finance_supervisor, password=PASSWORD)
    services.issuance_record(requisition=correction, series=program.series, issued=[(101, 120)],
                             user=finance_supervisor, password=PASSWORD)
    assert sum(LedgerLine.objects.filter(kind="issue").values_list("quantity", flat=True)) == 120


def test_a_co_signers_wrong_password_names_the_co_signer(
    program, receive, requisition, finance_supervisor, marketing_supervisor
):
    from coupons.models import CouponIssuance

    receive(1, 100)
    name = marketing_supervisor.profile.full_name
    with pytest.raises(ValidationError) as refused:
        services.issuance_record(
            requisition=requisition(10), series=program.series, issued=[(1, 10)], user=finance_supervisor,
            password=PASSWORD, receiver=services.CoSigner(marketing_supervisor, "not-their-password"),
        )
    assert f"{name}'s password is not correct" in str(refused.value)
    assert "your own password" not in str(refused.value).lower()
    assert not CouponIssuance.objects.exists()
    with pytest.raises(ValidationError, match=f"{finance_supervisor.profile.full_name} cannot sign as the marketing"):
        services.issuance_record(
            requisition=requisition(10), series=program.series, issued=[(1, 10)], user=finance_supervisor,
            password=PASSWORD, receiver=services.CoSigner(finance_supervisor, PASSWORD),
        )


def test_coupons_reach_marketing_only_with_the_issuing_supervisors_signature(
    program, receive, requisition, finance_supervisor
):
    receive(1, 100)
    with pytest.raises(ValidationError, match=r"§ 525.21\(h\)\(3\)"):
        services.issuance_record(requisition=requisition(10), series=program.series, issued=[(1, 10)],
                                 user=finance_supervisor, password=None)
    assert states(program.series) == [(1, 100, "in_stock")]
