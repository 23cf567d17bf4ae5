"""The ledger page over three years of daily entries: a constant number of queries, true running balances."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from compliance.actors import acting_as
from compliance.keyset import Keyset
from compliance.models import regulated_bulk_create
from coupons import selectors
from coupons.models import CouponReceipt, CouponState, LedgerLine

pytestmark = pytest.mark.django_db
S = CouponState


def _daily_entries(program: Any, receipt: CouponReceipt, days: int, user: Any) -> int:
    """Each day: 100 coupons issued to marketing and 60 of them distributed (two lines a day)."""
    doc_type = ContentType.objects.get_for_model(CouponReceipt)
    start = timezone.now() + timedelta(seconds=1)  # after the receipt that opens the ledger
    lines = []
    for day in range(days):
        first = 1_000_000 + day * 100
        for offset, (kind, from_state, to_state, quantity) in enumerate(
            [("issue", S.IN_STOCK, S.ISSUED, 100), ("distribute", S.ISSUED, S.DISTRIBUTED, 60)]
        ):
            lines.append(
                LedgerLine(
                    facility=program.facility,
                    occurred_at=start + timedelta(days=day, minutes=offset),
                    gaming_date=(start + timedelta(days=day)).date(),
                    kind=kind,
                    series=program.series,
                    denomination_cents=2500,
                    from_state=from_state,
                    to_state=to_state,
                    first_serial=first,
                    last_serial=first + quantity - 1,
                    quantity=quantity,
                    document_type=doc_type,
                    document_id=receipt.pk,
                )
            )
    with acting_as(user):
        regulated_bulk_create(LedgerLine, lines)
    return len(lines)


def _queries(client: Any, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_ledger_page_renders_in_a_constant_number_of_queries(
    program, receive, finance_supervisor, client_for, django_assert_num_queries
):
    receipt = receive(1, 10)  # 2 lines: received, examined into stock
    client = client_for(finance_supervisor)
    url = reverse("coupons:ledger")
    _daily_entries(program, receipt, 5, finance_supervisor)  # 11 entries
    few = _queries(client, url)
    _daily_entries(program, receipt, 3 * 365, finance_supervisor)  # three years of daily entries
    with django_assert_num_queries(few):
        response = client.get(url)
    page = response.context["page"]
    assert len(page) == 50 and page.rows[-1]["id"] == LedgerLine.objects.latest("occurred_at", "id").pk
    filtered = reverse("coupons:ledger") + f"?kind=distribute&older={page.older}"
    assert _queries(client, filtered) == few


def test_running_balances_come_from_the_whole_ledger_even_when_filtered(program, receive, finance_supervisor):
    receipt = receive(1, 10)
    _daily_entries(program, receipt, 30, finance_supervisor)
    page = selectors.ledger_page(program.facility, {"kind": "distribute"}, Keyset(), per_page=50)
    last = page.rows[-1]
    stock, issued, distributed = (
        last["balances"][selectors.LEDGER_STATES.index(s)] for s in (S.IN_STOCK, S.ISSUED, S.DISTRIBUTED)
    )
    assert (stock, issued, distributed) == (10 - 30 * 100, 30 * 40, 30 * 60)
    assert len(page) == 30 and page.older is None
