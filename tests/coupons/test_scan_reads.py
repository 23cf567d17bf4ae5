"""The scan's reads as SQL (coupons.selectors.scan_reads) answer exactly what the ORM answers: the same rows,
every column, the same related objects loaded (no further query), on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, models
from django.db.models import OuterRef, Subquery
from django.test.utils import CaptureQueriesContext

from compliance.actors import acting_as
from compliance.models import Game
from coupons.models import CouponRange, CouponSeries, ProgramApproval, RedemptionAnswer, ScannerDevice
from coupons.selectors import program as program_selectors
from coupons.selectors import redemption as selectors
from coupons.services.answers import redemption_answer
from coupons.services.redemption import Scan
from coupons.services.scanners import scanner_register, token_sha256

pytestmark = pytest.mark.django_db


def _columns(obj: models.Model | None) -> Any:
    if obj is None:
        return None
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


# What the ORM answers for each read: the oracle the SQL is held to.
def _orm_ranges(facility: Any, prefix: str, number: int) -> list[CouponRange]:
    nearest = (CouponRange.objects.filter(series=OuterRef("pk"), closed_by__isnull=True, first_serial__lte=number)
               .order_by("-first_serial").values("pk")[:1])
    candidates = (CouponSeries.objects.filter(facility=facility, serial_prefix__iexact=prefix)
                  .annotate(nearest=Subquery(nearest)).values("nearest"))
    return list(CouponRange.objects.filter(pk__in=candidates, last_serial__gte=number)
                .select_related("series", "series__program", "since", "opened_by")
                .prefetch_related("series__games")[:5])


def _orm_scanner(digest: str) -> ScannerDevice | None:
    return (ScannerDevice.objects.filter(token_sha256=digest)
            .select_related("table__game", "table__facility", "facility", "account").first())


def _orm_approvals(facility_id: int, on_date: Any) -> list[ProgramApproval]:
    return list(ProgramApproval.objects.filter(facility_id=facility_id, approved_on__lte=on_date,
                                               signatures__slot="recorded", corrected_by__isnull=True)
                .order_by("approved_on", "pk"))


def _orm_answer(account_id: int, key: str) -> RedemptionAnswer | None:
    return RedemptionAnswer.objects.filter(account_id=account_id, key=key).order_by("pk").first()


def _both(read: Any, oracle: Any) -> tuple[Any, Any]:
    """``read()`` (the SQL), then ``oracle()`` (the ORM's answer)."""
    return read(), oracle()


def _no_query(action: Any) -> Any:
    with CaptureQueriesContext(connection) as captured:
        answer = action()
    assert captured.captured_queries == [], [q["sql"][:80] for q in captured.captured_queries]
    return answer


def test_the_coupons_range_with_its_series_program_lines_and_games(program, handed_out):
    handed_out(1, 100)
    series = program.series
    series.games.set([Game.objects.get(code="craps"), Game.objects.get(code="blackjack")])
    fast, orm = _both(lambda: selectors.coupon_ranges_at(program.facility, "mp", 42),
                      lambda: _orm_ranges(program.facility, "mp", 42))
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
        fast, orm = _both(lambda p=prefix, n=number: selectors.coupon_ranges_at(program.facility, p, n),
                          lambda p=prefix, n=number: _orm_ranges(program.facility, p, n))
        assert fast == orm == []


def test_a_series_without_games_reads_an_empty_list(program, handed_out):
    handed_out(1, 10)
    program.series.games.clear()
    fast, orm = _both(lambda: selectors.coupon_ranges_at(program.facility, "MP", 3),
                      lambda: _orm_ranges(program.facility, "MP", 3))
    assert _no_query(lambda: list(fast[0].series.games.all())) == list(orm[0].series.games.all()) == []


def test_the_scanner_with_its_table_game_facilities_and_account(facility, craps_table, shift_manager):
    device, token = scanner_register(facility=facility, table=craps_table, name="CR-1 scanner", user=shift_manager)
    fast, orm = _both(lambda: selectors.scanner_by_token_sha256(token_sha256(token)),
                      lambda: _orm_scanner(token_sha256(token)))
    assert _columns(fast) == _columns(orm) and fast.pk == device.pk
    related = _no_query(lambda: (fast.table, fast.table.game, fast.table.facility, fast.facility, fast.account))
    assert [_columns(o) for o in related] == [_columns(o) for o in (orm.table, orm.table.game, orm.table.facility,
                                                                    orm.facility, orm.account)]
    assert _both(lambda: selectors.scanner_by_token_sha256(token_sha256("not a token")),
                 lambda: _orm_scanner(token_sha256("not a token"))) == (None, None)


def test_the_facilitys_signed_current_approvals(program, compliance_officer):
    today = program.series.expires_on - timedelta(days=30)
    fast, orm = _both(lambda: program_selectors.facility_approvals(program.facility.pk, today),
                      lambda: _orm_approvals(program.facility.pk, today))
    assert fast and [_columns(a) for a in fast] == [_columns(a) for a in orm]
    # An unsigned approval is not one; neither is one dated after the day.
    with acting_as(compliance_officer):
        ProgramApproval.objects.create(facility=program.facility, program=program.series.program, kind="design",
                                       series=program.series, approved_on=today, reference="UNSIGNED")
    early = min(a.approved_on for a in orm) - timedelta(days=1)
    for day in (today, early):
        fast, orm = _both(lambda d=day: program_selectors.facility_approvals(program.facility.pk, d),
                          lambda d=day: _orm_approvals(program.facility.pk, d))
        assert [_columns(a) for a in fast] == [_columns(a) for a in orm]
        assert all(a.reference != "UNSIGNED" for a in fast)


def test_the_ranges_and_approvals_read_together_answer_what_each_read_answers(program, handed_out,
                                                                              compliance_officer):
    """The scan's one statement before it writes (issue 27): the range holding the coupon, its series' games and
    the facility's approvals, each exactly as the ORM reads it, in one query; no range, no approval, or neither."""
    handed_out(1, 100)
    program.series.games.set([Game.objects.get(code="craps")])
    today = program.series.expires_on - timedelta(days=30)
    with acting_as(compliance_officer):  # unsigned: not an approval (§ 525.21(b))
        ProgramApproval.objects.create(facility=program.facility, program=program.series.program, kind="design",
                                       series=program.series, approved_on=today, reference="UNSIGNED")
    early = min(a.approved_on for a in _orm_approvals(program.facility.pk, today)) - timedelta(days=1)
    for prefix, number, day in [("mp", 42, today), ("MP", 101, today), ("ZZ", 42, today), ("MP", 42, early),
                                ("MP", 0, early)]:
        with CaptureQueriesContext(connection) as captured:
            ranges, approvals = selectors.coupon_ranges_and_approvals_at(program.facility, prefix, number, day)
        assert len(captured.captured_queries) == 1
        orm_ranges, orm_approvals = _orm_ranges(program.facility, prefix, number), _orm_approvals(program.facility.pk, day)
        assert [_columns(r) for r in ranges] == [_columns(r) for r in orm_ranges]
        assert [_columns(a) for a in approvals] == [_columns(a) for a in orm_approvals]
        assert all(a.reference != "UNSIGNED" for a in approvals)
        for got, orm in zip(ranges, orm_ranges, strict=True):
            related = _no_query(lambda g=got: (g.series, g.series.program, g.since, g.opened_by,
                                               list(g.series.games.all())))
            assert [_columns(o) for o in related[:4]] == [_columns(o) for o in (orm.series, orm.series.program,
                                                                                 orm.since, orm.opened_by)]
            assert [g.code for g in related[4]] == ["craps"]
    assert selectors.coupon_ranges_and_approvals_at(program.facility, "MP", 42, today)[1]
    assert selectors.coupon_ranges_and_approvals_at(program.facility, "MP", 42, early)[1] == []


def test_the_stored_idempotency_answer(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    first = redemption_answer(facility=program.facility, user=dealer, key="scan-1", fingerprint="f",
                              scan=Scan(serial="MP-0000004", table=craps_table, position="pass_line", chips_cents=2500))
    assert first.status == 201
    fast, orm = _both(lambda: selectors.redemption_answer_for(dealer.pk, "scan-1"), lambda: _orm_answer(dealer.pk, "scan-1"))
    assert _columns(fast) == _columns(orm) and fast.body == first.body == orm.body
    assert isinstance(fast, RedemptionAnswer) and fast.body["redemption"]["coupon"] == "MP-0000004"
    assert _both(lambda: selectors.redemption_answer_for(dealer.pk, "scan-2"),
                 lambda: _orm_answer(dealer.pk, "scan-2")) == (None, None)


def test_the_prepared_reads_are_counted_like_the_orms(program, handed_out):
    handed_out(1, 10)
    with CaptureQueriesContext(connection) as captured:
        selectors.coupon_ranges_at(program.facility, "MP", 3)
    assert len(captured.captured_queries) == 1 and "ORDER BY r0.first_serial DESC" in captured.captured_queries[0]["sql"]
