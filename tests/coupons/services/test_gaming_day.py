"""The whole gaming day through the services, § 525.21: every step in order, each attributed to its person."""

from __future__ import annotations

import pytest

from compliance.models import Game
from compliance.services import signature_sign
from coupons import selectors, services
from coupons.models import (
    CouponRange,
    CouponState,
    ExceptionReport,
)
from coupons.services.drop_count import drop_count_record
from tests.coupons.conftest import PASSWORD, TODAY, states
from tests.factories import GamingTableFactory

pytestmark = pytest.mark.django_db
S = CouponState


def test_the_whole_gaming_day(
    program,
    receive,
    requisition,
    finance_supervisor,
    finance_staff,
    marketing_staff,
    marketing_supervisor,
    dealer,
    django_capture_on_commit_callbacks,
):
    series = program.series
    receipt = receive(100001, 200000)
    assert receipt.is_complete and receipt.quantity == 100_000 and not receipt.deviation

    req = requisition(500)
    issuance = services.issuance_record(
        requisition=req,
        series=series,
        issued=[(100001, 100498)],
        user=finance_supervisor,
        password=PASSWORD,
        voids=[([(100499, 100500)], "Misprinted: value smudged")],
        receiver=services.CoSigner(marketing_supervisor, PASSWORD),
    )
    assert issuance.is_complete and issuance.quantity == 498 and issuance.voided_quantity == 2

    services.distribution_record(
        facility=program.facility, series=series, spans=[(100001, 100100)], user=marketing_staff
    )
    services.distribution_record(
        facility=program.facility, series=series, spans=[(100101, 100101)], user=marketing_staff
    )  # one scan
    services.coupons_void(
        facility=program.facility,
        series=series,
        spans=[(100102, 100102)],
        reason="Torn",
        user=marketing_supervisor,
        password=PASSWORD,
    )

    preview = selectors.reconciliation_preview(program.facility, TODAY)
    (figure,) = preview.figures
    assert (figure.to_distribute, figure.distributed, figure.voided, figure.remaining) == (498, 101, 1, 396)

    form = services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 396},
        user=marketing_supervisor,
        password=PASSWORD,
        receiver=services.CoSigner(finance_supervisor, PASSWORD),
    )
    assert form.is_complete
    (ret,) = form.returns.all()
    assert ret.quantity == 396 and ret.is_complete

    # 50 coupons come back in the craps table's drop box, none scanned at the table: the count cancels them.
    table = GamingTableFactory(is_open=True, facility=program.facility, number="CR-7", game=Game.objects.get(code="craps"))
    count = drop_count_record(facility=program.facility, table=table, gaming_date=TODAY,
                              scanned=[series.serial(n) for n in range(100001, 100051)], user=finance_staff)
    signature_sign(record=count, slot="counted", user=finance_staff, password=PASSWORD)

    with django_capture_on_commit_callbacks(execute=True):
        processing = services.finance_day_process(
            facility=program.facility,
            gaming_date=TODAY,
            counted={2500: {"returned": 396, "voided": 3, "redeemed": 50}},
            user=finance_staff,
            password=PASSWORD,
            restock_location=program.vault,
        )
    assert processing.variance == 0 and not ExceptionReport.objects.exists()
    assert (
        processing.given_to_marketing
        == processing.returned + processing.voided + processing.distributed + processing.carried_forward
    )
    assert states(series) == [
        (100001, 100050, S.CANCELLED),
        (100051, 100100, S.DISTRIBUTED),
        (100101, 100101, S.DISTRIBUTED),
        (100102, 100102, S.CANCELLED),
        (100103, 100498, S.IN_STOCK),
        (100499, 100500, S.CANCELLED),
        (100501, 200000, S.IN_STOCK),
    ]
    # A serial's full path, oldest first.
    path = [line.kind for line in selectors.serial_path(series, 100001)]
    assert path == ["receive", "examine", "issue", "distribute", "redeem", "cancel"]
    totals = selectors.state_totals(program.facility)
    assert totals[2500][S.IN_STOCK] == 99_896 and totals[2500][S.CANCELLED] == 53


def test_every_row_a_service_writes_is_attributed_to_its_user(program, receive, issue, finance_supervisor):
    from compliance.models import AuditEvent

    receive(1, 10)
    issue(1, 5)
    ranges = AuditEvent.objects.filter(model_label__in=["coupons.CouponRange", "coupons.LedgerLine"])
    assert ranges.exists() and not ranges.filter(actor__isnull=True).exists()
    assert CouponRange.history.filter(history_user__isnull=True).count() == 0
