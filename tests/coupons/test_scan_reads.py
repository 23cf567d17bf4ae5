"""The scan's reads as prepared SQL (coupons.selectors.scan_reads) answer exactly what their ORM twins answer:
the same rows, every column, the same related objects loaded (no further query), on PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, models
from django.test.utils import CaptureQueriesContext

from compliance.actors import acting_as
from compliance.models import Game
from coupons.models import ProgramApproval, RedemptionAnswer
from coupons.selectors import program as program_selectors
from coupons.selectors import redemption as selectors
from coupons.services.answers import redemption_answer
from coupons.services.redemption import Scan
from coupons.services.scanners import scanner_register, token_sha256

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the prepared reads are PostgreSQL's"),
]


def _columns(obj: models.Model | None) -> Any:
    if obj is None:
        return None
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def _both(monkeypatch: Any, read: Any) -> tuple[Any, Any]:
    """``read()`` on the prepared path, then on the ORM path (as SQLite runs it)."""
    prepared = read()
    with monkeypatch.context() as patch:
        patch.setattr(selectors, "prepared_reads", lambda: False)
        patch.setattr(program_selectors, "prepared_reads", lambda: False)
        orm = read()
    return prepared, orm


def _no_query(action: Any) -> Any:
    with CaptureQueriesContext(connection) as captured:
        answer = action()
    assert captured.captured_queries == [], [q["sql"][:80] for q in captured.captured_queries]
    return answer


def test_the_coupons_range_with_its_series_program_lines_and_games(program, handed_out, monkeypatch):
    handed_out(1, 100)
    series = program.series
    series.games.set([Game.objects.get(code="craps"), Game.objects.get(code="blackjack")])
    fast, orm = _both(monkeypatch, lambda: selectors.coupon_ranges_at(program.facility, "mp", 42))
    assert len(fast) == len(orm) == 1
    assert _columns(fast[0]) == _columns(orm[0])
    got = fast[0]
    related = _no_query(lambda: (got.series, got.series.program, got.since, got.opened_by,
                                 list(got.series.games.all())))
    assert [_columns(o) for o in related[:4]] == [_columns(o) for o in (orm[0].series, orm[0].series.program,
                                                                         orm[0].since, orm[0].opened_by)]
    assert [g.code for g in related[4]] == [g.code for g in orm[0].series.games.all()] == ["blackjack", "craps"]
    # Outside every open range, or another prefix: nothing, on both paths.
    for prefix, number in [("MP", 101), ("ZZ", 42), ("MP", 0)]:
        fast, orm = _both(monkeypatch, lambda p=prefix, n=number: selectors.coupon_ranges_at(program.facility, p, n))
        assert fast == orm == []


def test_a_series_without_games_reads_an_empty_list(program, handed_out, monkeypatch):
    handed_out(1, 10)
    program.series.games.clear()
    fast, orm = _both(monkeypatch, lambda: selectors.coupon_ranges_at(program.facility, "MP", 3))
    assert _no_query(lambda: list(fast[0].series.games.all())) == list(orm[0].series.games.all()) == []


def test_the_scanner_with_its_table_game_facilities_and_account(facility, craps_table, shift_manager, monkeypatch):
    device, token = scanner_register(facility=facility, table=craps_table, name="CR-1 scanner", user=shift_manager)
    fast, orm = _both(monkeypatch, lambda: selectors.scanner_by_token_sha256(token_sha256(token)))
    assert _columns(fast) == _columns(orm) and fast.pk == device.pk
    related = _no_query(lambda: (fast.table, fast.table.game, fast.table.facility, fast.facility, fast.account))
    assert [_columns(o) for o in related] == [_columns(o) for o in (orm.table, orm.table.game, orm.table.facility,
                                                                    orm.facility, orm.account)]
    assert _both(monkeypatch, lambda: selectors.scanner_by_token_sha256(token_sha256("not a token"))) == (None, None)


def test_the_facilitys_signed_current_approvals(program, compliance_officer, monkeypatch):
    today = program.series.expires_on - timedelta(days=30)
    fast, orm = _both(monkeypatch, lambda: program_selectors.facility_approvals(program.facility.pk, today))
    assert fast and [_columns(a) for a in fast] == [_columns(a) for a in orm]
    # An unsigned approval is not one; neither is one dated after the day.
    with acting_as(compliance_officer):
        ProgramApproval.objects.create(facility=program.facility, program=program.series.program, kind="design",
                                       series=program.series, approved_on=today, reference="UNSIGNED")
    early = min(a.approved_on for a in orm) - timedelta(days=1)
    for day in (today, early):
        fast, orm = _both(monkeypatch, lambda d=day: program_selectors.facility_approvals(program.facility.pk, d))
        assert [_columns(a) for a in fast] == [_columns(a) for a in orm]
        assert all(a.reference != "UNSIGNED" for a in fast)


def test_the_stored_idempotency_answer(program, handed_out, craps_table, dealer, monkeypatch):
    handed_out(1, 10)
    first = redemption_answer(facility=program.facility, user=dealer, key="scan-1", fingerprint="f",
                              scan=Scan(serial="MP-0000004", table=craps_table, position="pass_line", chips_cents=2500))
    assert first.status == 201
    fast, orm = _both(monkeypatch, lambda: selectors.redemption_answer_for(dealer.pk, "scan-1"))
    assert _columns(fast) == _columns(orm) and fast.body == first.body == orm.body
    assert isinstance(fast, RedemptionAnswer) and fast.body["redemption"]["coupon"] == "MP-0000004"
    assert _both(monkeypatch, lambda: selectors.redemption_answer_for(dealer.pk, "scan-2")) == (None, None)


def test_the_prepared_reads_are_counted_like_the_orms(program, handed_out):
    handed_out(1, 10)
    with CaptureQueriesContext(connection) as captured:
        selectors.coupon_ranges_at(program.facility, "MP", 3)
    assert len(captured.captured_queries) == 1 and "LATERAL" in captured.captured_queries[0]["sql"]
