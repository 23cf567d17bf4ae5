"""The coupon models: a movement document is corrected by a new movement, never by a copy."""

from __future__ import annotations

import pytest

from coupons.models import (
    CouponState,
)

pytestmark = pytest.mark.django_db
S = CouponState


def test_a_movement_document_is_corrected_by_a_new_movement_not_a_copy(program, receive, finance_supervisor):
    from compliance.models import RegulatedWriteError
    from compliance.services import record_correct

    receipt = receive(1, 10)
    with pytest.raises(RegulatedWriteError, match="by a new movement"):
        record_correct(original=receipt, reason="typo", user=finance_supervisor, changes={"supplier": "Other"})
