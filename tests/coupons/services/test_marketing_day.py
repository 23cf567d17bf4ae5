"""Marketing's day, § 525.21(d), (j)–(l): distribution, voids, the reconciliation form and what it keeps."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.exceptions import ValidationError

from compliance.services import signature_sign
from coupons import selectors, services
from coupons.models import (
    CouponState,
    LedgerLine,
    ReconciliationForm,
)
from tests.coupons.conftest import PASSWORD, TODAY, approve, make_series, states

pytestmark = pytest.mark.django_db
S = CouponState


def test_distributing_coupons_not_held_by_marketing_is_refused_in_words(program, receive, issue, marketing_staff):
    receive(1, 100)
    issue(1, 10)
    with pytest.raises(ValidationError) as refused:
        services.distribution_record(
            facility=program.facility, series=program.series, spans=[(5, 20)], user=marketing_staff
        )
    assert "MP-0000011–MP-0000020" in str(refused.value) and "in finance stock" in str(refused.value)
    with pytest.raises(ValidationError, match="never received"):
        services.distribution_record(
            facility=program.facility, series=program.series, spans=[(500, 501)], user=marketing_staff
        )


def test_an_unexplained_variance_cannot_be_signed(program, receive, issue, marketing_supervisor):
    receive(1, 100)
    issue(1, 50)
    with pytest.raises(ValidationError, match="Explain the variation"):
        services.reconciliation_complete(
            facility=program.facility,
            gaming_date=TODAY,
            counted_remaining={2500: 49},
            user=marketing_supervisor,
            password=PASSWORD,
        )
    assert not ReconciliationForm.objects.exists()
    form = services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 49},
        user=marketing_supervisor,
        password=PASSWORD,
        variation_explanation="One coupon fell behind the desk; found and voided tomorrow.",
    )
    assert form.figures.get().variance == -1


def _expiring_tonight(program, finance_supervisor, receive, requisition, marketing_supervisor, compliance_officer):
    """Marketing holds MX-0000001–MX-0000020, of a series expiring today, and MP-0000001–MP-0000010."""
    short = make_series(
        program.facility, program.program, finance_supervisor, code="mp25x", prefix="MX", expires_on=TODAY
    )
    approve(program.facility, program.program, compliance_officer, short, kinds=("design",))
    receive(1, 100, series=short)
    receive(1, 100)
    for series, last in ((short, 20), (program.series, 10)):
        services.issuance_record(
            requisition=requisition(last), series=series, issued=[(1, last)], user=finance_supervisor,
            password=PASSWORD, receiver=services.CoSigner(marketing_supervisor, PASSWORD),
        )
    return short


def test_coupons_expiring_tonight_cannot_be_kept_for_the_next_day_525_21_k(
    program, finance_supervisor, receive, requisition, marketing_supervisor, compliance_officer
):
    """§ 525.21(k): marketing may keep coupons "for use during the next gaming day", and "all expired coupons must be
    returned ... on a daily basis": a coupon expiring tonight cannot be used tomorrow, so the day does not close
    with it kept; it goes back first, and the next day has no expired coupon to return into a closed day."""
    short = _expiring_tonight(program, finance_supervisor, receive, requisition, marketing_supervisor,
                              compliance_officer)
    keep = {"facility": program.facility, "gaming_date": TODAY, "user": marketing_supervisor, "password": PASSWORD,
            "disposition": "keep", "kept_in": program.marketing_safe}
    with pytest.raises(ValidationError, match=r"expire at the end of .*3 Nov.*: MX-0000001–MX-0000020 "
                                              r".*Return serials MX-0000001–MX-0000020 .* to finance first"):
        services.reconciliation_complete(counted_remaining={2500: 30}, **keep)
    assert not ReconciliationForm.objects.exists()
    assert [r.span for r in selectors.expiring_held(program.facility, TODAY)] == ["MX-0000001–MX-0000020"]

    services.return_record(facility=program.facility, user=marketing_supervisor, password=PASSWORD,
                           spans={short: [(1, 20)]}, receiver=services.CoSigner(finance_supervisor, PASSWORD))
    form = services.reconciliation_complete(counted_remaining={2500: 10}, **keep)
    assert form.disposition == "keep" and form.figures.get().remaining_expected == 10
    with time_machine.travel("2026-11-04 14:00:00+00:00", tick=True):
        tomorrow = TODAY + timedelta(days=1)
        assert selectors.expired_held(program.facility, tomorrow) == []
        services.reconciliation_complete(facility=program.facility, gaming_date=tomorrow,
                                         counted_remaining={2500: 10}, user=marketing_supervisor, password=PASSWORD,
                                         receiver=services.CoSigner(finance_supervisor, PASSWORD))


def test_returning_the_coupons_left_with_the_form_closes_a_day_with_coupons_expiring_tonight(
    program, finance_supervisor, receive, requisition, marketing_supervisor, compliance_officer
):
    _expiring_tonight(program, finance_supervisor, receive, requisition, marketing_supervisor, compliance_officer)
    form = services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 30}, user=marketing_supervisor,
        password=PASSWORD, disposition="return", receiver=services.CoSigner(finance_supervisor, PASSWORD),
    )
    assert form.returns.get().quantity == 30 and selectors.held_by_marketing(program.facility).count() == 0


def test_kept_coupons_need_an_approved_locked_marketing_area_and_carry_to_the_next_form(
    program, receive, issue, marketing_supervisor, marketing_staff
):
    receive(1, 100)
    issue(1, 30)
    with pytest.raises(ValidationError, match="not a marketing area approved"):
        services.reconciliation_complete(
            facility=program.facility,
            gaming_date=TODAY,
            counted_remaining={2500: 30},
            user=marketing_supervisor,
            password=PASSWORD,
            disposition="keep",
            kept_in=program.vault,
        )
    services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 30},
        user=marketing_supervisor,
        password=PASSWORD,
        disposition="keep",
        kept_in=program.marketing_safe,
    )
    with pytest.raises(ValidationError, match="day is closed"):
        services.distribution_record(
            facility=program.facility, series=program.series, spans=[(1, 1)], user=marketing_staff, gaming_date=TODAY
        )
    tomorrow = TODAY + timedelta(days=1)
    (figure,) = selectors.reconciliation_preview(program.facility, tomorrow).figures
    assert figure.carried_in == 30 and figure.received == 0


def test_the_remaining_coupons_must_be_counted(program, receive, issue, marketing_supervisor):
    receive(1, 100)
    issue(1, 10)
    with pytest.raises(ValidationError, match=r"Count the coupons remaining \(\$25\)"):
        services.reconciliation_complete(
            facility=program.facility,
            gaming_date=TODAY,
            counted_remaining={},
            user=marketing_supervisor,
            password=PASSWORD,
        )


def test_a_marketing_supervisor_cannot_void_coupons_in_finance_stock(
    program, receive, issue, marketing_supervisor, finance_supervisor
):
    receive(1, 100)
    issue(1, 10)
    before = states(program.series)
    with pytest.raises(ValidationError) as refused:
        services.coupons_void(facility=program.facility, series=program.series, spans=[(5, 60)], reason="Torn",
                             user=marketing_supervisor, password=PASSWORD)
    assert "MP-0000011–MP-0000060" in str(refused.value) and "finance department supervisor" in str(refused.value)
    with pytest.raises(ValidationError, match="held by marketing"):
        services.coupons_void(facility=program.facility, series=program.series, spans=[(5, 5)], reason="Torn",
                             user=finance_supervisor, password=PASSWORD)
    assert states(program.series) == before
    assert not LedgerLine.objects.filter(kind="void").exists()
    # Each in its own custody, both are accepted.
    services.coupons_void(facility=program.facility, series=program.series, spans=[(5, 5)], reason="Torn",
                         user=marketing_supervisor, password=PASSWORD)
    services.coupons_void(facility=program.facility, series=program.series, spans=[(60, 60)], reason="Misprint",
                         user=finance_supervisor, password=PASSWORD)
    assert LedgerLine.objects.filter(kind="void").count() == 2


def test_marketing_cannot_distribute_before_signing_the_hand_over(
    program, receive, requisition, finance_supervisor, marketing_supervisor, marketing_staff
):
    receive(1, 100)
    issuance = services.issuance_record(requisition=requisition(10), series=program.series, issued=[(1, 10)],
                                        user=finance_supervisor, password=PASSWORD)
    with pytest.raises(ValidationError, match=f"Issuance #{issuance.pk} .* not been signed as received"):
        services.distribution_record(facility=program.facility, series=program.series, spans=[(1, 5)],
                                     user=marketing_staff)
    signature_sign(record=issuance, slot="received", user=marketing_supervisor, password=PASSWORD)
    services.distribution_record(facility=program.facility, series=program.series, spans=[(1, 5)],
                                 user=marketing_staff)
    assert (1, 5, S.DISTRIBUTED) in states(program.series)


def test_a_coupon_handed_out_at_2_25_belongs_to_the_gaming_day_that_began_the_morning_before(
    program, receive, issue, marketing_staff
):
    receive(1, 100)
    issue(1, 10)
    # 07:25 UTC on 4 Nov = 02:25 in Harrisburg: still the gaming day of 3 Nov (it began at 6:00 on 3 Nov).
    with time_machine.travel("2026-11-04 07:25:00+00:00", tick=False):
        distribution = services.distribution_record(
            facility=program.facility, series=program.series, spans=[(1, 2)], user=marketing_staff
        )
    assert distribution.gaming_date == TODAY


def test_the_gaming_day_follows_the_facilitys_time_zone(program, receive, issue, marketing_staff):
    receive(1, 100)
    issue(1, 10)
    program.facility.time_zone = "America/Los_Angeles"
    program.facility.save()
    # 13:30 UTC on 4 Nov is 08:30 in Harrisburg (4 Nov) but 05:30 in Las Vegas: still 3 Nov there.
    with time_machine.travel("2026-11-04 13:30:00+00:00", tick=False):
        distribution = services.distribution_record(
            facility=program.facility, series=program.series, spans=[(3, 3)], user=marketing_staff
        )
    assert distribution.gaming_date == TODAY
