"""The redemption written in one statement (compliance.row_batch) leaves exactly the rows the ORM path leaves:
the redemption, the ledger line, the closed range and its replacements, the Idempotency-Key answer, every
history row and every audit event, column by column (ids, serials and instants aside), seals intact."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction

from compliance.actors import acting_as
from compliance.models import AuditEvent
from compliance.row_batch import RowBatch, RowsMoved, reserve_ids
from coupons.models import CouponRange, LedgerLine, Redemption, RedemptionAnswer
from coupons.services import redemption as service
from coupons.services.answers import redemption_answer
from coupons.services.redemption import Scan

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the one-statement write is PostgreSQL's"),
]

# Columns that differ between two redemptions of two coupons by nature, not by path.
VARYING = {"id", "serial", "first_serial", "last_serial", "redeemed_at", "occurred_at", "created_at", "seal",
           "history_id", "history_date", "document_id", "object_id", "object_repr", "redemption_id", "key",
           "request_sha256", "body", "opened_by_id", "since_id", "closed_by_id", "changes"}


def _scan(program: Any, table: Any, dealer: Any, serial: str, key: str) -> Any:
    return redemption_answer(facility=program.facility, user=dealer, key=key, fingerprint=key,
                             scan=Scan(serial=serial, table=table, position="pass_line", chips_cents=2500))


_BASES: list[Any] = [Redemption, LedgerLine, CouponRange, RedemptionAnswer, AuditEvent]
TABLES: list[Any] = [model for base in _BASES
                     for model in (base, getattr(base, "history", None) and base.history.model) if model]


def _written_since(marks: dict[str, int]) -> dict[str, list[str]]:
    """Every row of the tables a redemption writes, added after ``marks``, without the varying columns."""
    written = {}
    for table in TABLES:
        key = table._meta.pk.attname
        rows = table._base_manager.filter(**{f"{key}__gt": marks[table._meta.label]}).order_by(key).values()
        written[table._meta.label] = sorted(repr({k: v for k, v in row.items() if k not in VARYING}) for row in rows)
    return written


def _marks() -> dict[str, int]:
    marks = {}
    for table in TABLES:
        key = table._meta.pk.attname
        marks[table._meta.label] = table._base_manager.order_by(f"-{key}").values_list(key, flat=True).first() or 0
    return marks


def test_both_paths_write_the_same_rows(program, handed_out, craps_table, dealer, monkeypatch):
    handed_out(1, 100)
    before = _marks()
    assert _scan(program, craps_table, dealer, "MP-0000010", "batch-1").status == 201
    batch = _written_since(before)
    monkeypatch.setattr(service, "batch_available", lambda: False)
    middle = _marks()
    assert _scan(program, craps_table, dealer, "MP-0000050", "orm-1").status == 201
    orm = _written_since(middle)
    assert batch == orm
    assert len(batch["compliance.AuditEvent"]) == 1 + 1 + 1 + 3  # redemption, line, range closed, 3 new (the answer: none)
    # The "changed" event of the closed range names the ledger line in words, as the receiver does.
    changed = AuditEvent.objects.filter(model_label="coupons.CouponRange", action="changed", actor=dealer).order_by("pk")
    assert [list(e.changes) for e in changed] == [["closed_by"], ["closed_by"]]
    assert changed[0].changes["closed_by"][1].startswith("Redeemed MP-0000010")
    assert changed[1].changes["closed_by"][1].startswith("Redeemed MP-0000050")


def test_seals_and_history_of_the_batch_hold(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    answer = _scan(program, craps_table, dealer, "MP-0000005", "k-5")
    redemption = Redemption.objects.get(pk=answer.body["redemption"]["id"])
    assert redemption.seal_intact() and redemption.history.get().history_user == dealer
    line = LedgerLine.objects.get(kind="redeem")
    assert line.seal_intact() and line.document_id == redemption.pk
    events = AuditEvent.objects.filter(actor=dealer)
    assert events.count() == 6 and all(e.seal_intact() for e in events)
    assert RedemptionAnswer.objects.get(key="k-5").redemption == redemption


def test_a_range_closed_meanwhile_fails_the_whole_write(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    service.redemption_record(facility=program.facility, user=dealer,
                              scan=Scan(serial="MP-0000003", table=craps_table, position="pass_line",
                                        chips_cents=2500))
    closed = CouponRange.objects.filter(closed_by__isnull=False, series=program.series, state="distributed").first()
    counts = (Redemption.objects.count(), LedgerLine.objects.count(), AuditEvent.objects.count())
    with acting_as(dealer):
        batch = RowBatch(reserve_ids({CouponRange: 1}))
        line = LedgerLine.objects.get(kind="redeem")
        batch.closed(closed, "closed_by", line)
        with pytest.raises(RowsMoved), transaction.atomic():
            batch.send()
    assert (Redemption.objects.count(), LedgerLine.objects.count(), AuditEvent.objects.count()) == counts
