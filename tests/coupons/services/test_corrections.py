"""Taking back a movement keyed by mistake, § 525.21(j)(6)–(7): reversed while the day is open, corrected
against the signed form with a finance supervisor's approval once it is closed; the original stays."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from compliance.services import signature_sign
from coupons import selectors, services
from coupons.models import CouponDistribution, CouponReversal, FormCorrection, LedgerLine
from coupons.services.redemption import Scan, redemption_record
from tests.coupons.conftest import PASSWORD, TODAY, states

pytestmark = pytest.mark.django_db
TOMORROW = TODAY + timedelta(days=1)


def _distribute(program: Any, user: Any, first: int, last: int) -> CouponDistribution:
    return services.distribution_record(facility=program.facility, series=program.series, spans=[(first, last)],
                                        user=user)


def test_a_distribution_keyed_by_mistake_is_reversed_the_same_day_and_the_original_stays(
    program, receive, issue, marketing_staff, marketing_supervisor, finance_supervisor
):
    receive(1, 100)
    issue(1, 20)
    mistake = _distribute(program, marketing_staff, 1, 5)
    with pytest.raises(PermissionDenied):
        services.movement_reverse(facility=program.facility, document=mistake, reason="keyed twice",
                                  user=marketing_staff, password=PASSWORD)
    with pytest.raises(ValidationError, match="Say why"):
        services.movement_reverse(facility=program.facility, document=mistake, reason=" ",
                                  user=marketing_supervisor, password=PASSWORD)
    reversal = services.movement_reverse(facility=program.facility, document=mistake, reason="keyed twice",
                                         user=marketing_supervisor, password=PASSWORD)
    assert reversal.quantity == 5 and reversal.is_complete and reversal.gaming_date == TODAY
    assert states(program.series)[:2] == [(1, 5, "issued"), (6, 20, "issued")]
    assert CouponDistribution.objects.filter(pk=mistake.pk).exists()  # the original stays
    assert LedgerLine.objects.filter(kind="reverse", reason="keyed twice").count() == 1
    (figure,) = selectors.day_figures(program.facility, TODAY)
    assert (figure.distributed, figure.remaining) == (0, 20)  # the day nets the mistake out
    with pytest.raises(ValidationError, match="already reversed"):
        services.movement_reverse(facility=program.facility, document=mistake, reason="again",
                                  user=marketing_supervisor, password=PASSWORD)
    form = services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 20}, user=marketing_supervisor,
        password=PASSWORD, receiver=services.CoSigner(finance_supervisor, PASSWORD),
    )
    assert form.figures.get().distributed == 0


def test_after_the_form_only_a_correction_linked_to_it_and_approved_by_finance_moves_the_coupons(
    program, receive, issue, marketing_staff, marketing_supervisor, finance_supervisor, client_for, inspector
):
    receive(1, 100)
    issue(1, 20)
    mistake = _distribute(program, marketing_staff, 1, 5)
    form = services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 15}, user=marketing_supervisor,
        password=PASSWORD, disposition="keep", kept_in=program.marketing_safe,
    )
    with pytest.raises(ValidationError, match="that marketing day is closed"):
        services.movement_reverse(facility=program.facility, document=mistake, reason="keyed twice",
                                  user=marketing_supervisor, password=PASSWORD)
    with time_machine.travel("2026-11-04 14:00:00+00:00", tick=True):
        correction = services.form_correction_request(facility=program.facility, document=mistake,
                                                      reason="keyed twice", user=marketing_supervisor,
                                                      password=PASSWORD)
        assert correction.form == form and correction.applied_on is None
        assert states(program.series)[0] == (1, 5, "distributed")  # nothing moves before finance approves
        signature_sign(record=correction, slot="approved", user=finance_supervisor, password=PASSWORD)
        correction.refresh_from_db()
        assert correction.applied_on == TOMORROW and correction.is_complete
        assert correction.signatures.get(slot="approved").matches_record()
        assert states(program.series)[:2] == [(1, 5, "issued"), (6, 20, "issued")]
        (tomorrow,) = selectors.day_figures(program.facility, TOMORROW)
        assert (tomorrow.carried_in, tomorrow.received, tomorrow.remaining) == (15, 5, 20)
    # The signed form is unchanged, and shows its correction to everyone, the inspector included.
    form.refresh_from_db()
    assert form.figures.get().distributed == 5
    page = client_for(inspector).get(reverse("coupons:reconciliation", args=[TODAY.isoformat()])).content.decode()
    assert "Corrections after signing" in page and "keyed twice" in page
    assert FormCorrection.objects.count() == 1 and not CouponReversal.objects.exists()


def test_a_redeemed_coupon_cannot_be_taken_back(program, receive, issue, marketing_staff, marketing_supervisor,
                                                dealer, craps_table):
    receive(1, 100)
    issue(1, 20)
    mistake = _distribute(program, marketing_staff, 1, 5)
    redemption_record(facility=program.facility, user=dealer,
                      scan=Scan(serial="MP-0000003", table=craps_table, position="pass_line", chips_cents=2500))
    with pytest.raises(ValidationError, match="are redeemed"):
        services.movement_reverse(facility=program.facility, document=mistake, reason="keyed twice",
                                  user=marketing_supervisor, password=PASSWORD)


def test_the_ledger_offers_take_back_to_the_marketing_supervisor_only(
    program, receive, issue, marketing_staff, marketing_supervisor, finance_supervisor, client_for
):
    receive(1, 100)
    issue(1, 20)
    mistake = _distribute(program, marketing_staff, 1, 5)
    undo = reverse("coupons:document-undo", args=[LedgerLine.objects.get(kind="distribute").document_type_id,
                                                  mistake.pk])
    assert undo in client_for(marketing_supervisor).get(reverse("coupons:ledger")).content.decode()
    assert undo not in client_for(finance_supervisor).get(reverse("coupons:ledger")).content.decode()
    response = client_for(marketing_supervisor).post(undo, {"reason": "keyed twice", "password": PASSWORD})
    assert response.status_code == 302 and CouponReversal.objects.get().quantity == 5
