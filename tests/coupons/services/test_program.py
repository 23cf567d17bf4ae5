"""The program gates, § 525.21(b), (p): no coupon issued or printed in house before its approvals."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from coupons import selectors, services
from coupons.models import (
    CouponState,
)
from tests.coupons.conftest import PASSWORD, TODAY, approve, make_series

pytestmark = pytest.mark.django_db
S = CouponState


def test_issuing_before_the_program_is_approved_is_refused(
    program, finance_supervisor, receive, requisition, compliance_officer
):
    fresh = make_series(program.facility, program.program, finance_supervisor, code="mp25b", prefix="MB")
    receive(1, 100, series=fresh)
    receive(1, 100)  # the approved series in stock: the requisition can be made (§ 525.21(g)–(h))
    req = requisition(10)
    with pytest.raises(ValidationError, match="Bureau of Gaming Operations"):
        services.issuance_record(
            requisition=req, series=fresh, issued=[(1, 10)], user=finance_supervisor, password=PASSWORD
        )
    approve(program.facility, program.program, compliance_officer, fresh, kinds=("design",))
    services.issuance_record(
        requisition=req, series=fresh, issued=[(1, 10)], user=finance_supervisor, password=PASSWORD
    )


def test_internal_controls_must_be_approved_before_any_coupon_is_issued(
    facility, finance_supervisor, compliance_officer, program, receive, requisition
):
    direct_bet = program.program.__class__.objects.get(code="direct-bet")
    series = make_series(facility, direct_bet, finance_supervisor, code="db25", prefix="DB")
    approve(facility, direct_bet, compliance_officer, series, kinds=("design",))
    refusals = selectors.program_gate_refusals(series, TODAY)
    assert refusals == [
        "The internal controls for the Direct Bet Coupon program have no recorded approval (§ 525.21(b)(2))."
    ]


def test_coupons_printed_in_house_need_their_own_approval(program, finance_supervisor, compliance_officer):
    kwargs = {
        "facility": program.facility,
        "series": program.series,
        "received_on": TODAY,
        "supplier": "Print shop",
        "invoice_number": "RUN-7",
        "invoice_quantity": 100,
        "invoice_first_serial": 1,
        "invoice_last_serial": 100,
        "received": [(1, 100)],
        "location": program.vault,
        "user": finance_supervisor,
        "password": PASSWORD,
        "source": "internal",
    }
    with pytest.raises(ValidationError, match=r"525\.21\(p\)"):
        services.receipt_record(**kwargs)
    approve(program.facility, program.program, compliance_officer, kinds=("internal_printing",))
    assert services.receipt_record(**kwargs).quantity == 100
