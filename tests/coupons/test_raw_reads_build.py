"""How compliance.raw_reads builds instances and sends statements (issue 27): an instance of a plain model built
straight into its ``__dict__`` is the instance ``Model.from_db`` builds, a model that does more at construction is
built by ``from_db`` itself, and the reads share one cursor a connection."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models.signals import post_init

from compliance import raw_reads
from compliance.models import Facility, Game, GamingTable, Signature
from coupons.models import (
    CouponProgram,
    CouponRange,
    CouponSeries,
    LedgerLine,
    ProgramApproval,
    RedemptionAnswer,
    ScannerDevice,
)
from coupons.services.answers import redemption_answer
from coupons.services.redemption import Scan
from coupons.services.scanners import scanner_register

pytestmark = pytest.mark.django_db


def _row_of(obj: Any, columns: raw_reads.Columns) -> list[Any]:
    """The row the database gives for ``obj`` in ``columns``' select list."""
    statement = f"SELECT {columns.sql} FROM {obj._meta.db_table} {columns.alias} WHERE {columns.alias}.id = %s"  # noqa: S608
    return list(raw_reads.fetch(statement, [obj.pk])[0])


def _same(built: Any, reference: Any) -> None:
    assert type(built) is type(reference)
    ours, theirs = dict(built.__dict__), dict(reference.__dict__)
    state, their_state = ours.pop("_state"), theirs.pop("_state")
    assert ours == theirs and list(ours) == list(theirs)  # every value, in the same order
    assert (state.adding, state.db, state.fields_cache) == (their_state.adding, their_state.db,
                                                           their_state.fields_cache) == (False, "default", {})


@pytest.mark.parametrize("model", [ScannerDevice, GamingTable, Game, get_user_model(), CouponRange, CouponSeries,
                                   CouponProgram, LedgerLine, ProgramApproval, Signature, RedemptionAnswer])
def test_a_plain_models_instance_is_the_one_from_db_builds(model, program, handed_out, craps_table, shift_manager):
    """Every model the scan's reads build (coupons.selectors.scan_reads, compliance.signing_reads)."""
    handed_out(1, 10)
    device, _ = scanner_register(facility=program.facility, table=craps_table, name="CR-1 scanner",
                                 user=shift_manager)
    answer = redemption_answer(facility=program.facility, user=device.account, device=device, key="k-1",
                               fingerprint="f", scan=Scan(serial="MP-0000001", table=craps_table,
                                                          position="pass_line", chips_cents=2500))
    assert answer.status == 201, answer.body
    columns = raw_reads.Columns(model, "x")
    assert columns._plain
    obj = model.objects.order_by("pk").first()
    assert obj is not None
    row = _row_of(obj, columns)
    built = columns.build(row)
    through_from_db = copy.copy(columns)
    through_from_db._plain = False  # the same converters, then Model.from_db
    _same(built, through_from_db.build(row))
    assert built == obj and built.pk == obj.pk


def test_a_model_that_does_more_when_built_is_built_by_from_db(facility):
    """A facility's logo is an ImageField: its descriptor wraps the value and it listens to post_init."""
    columns = raw_reads.Columns(Facility, "f")
    assert not columns._plain
    built = columns.build(_row_of(facility, columns))
    assert built == facility and built.logo.name == facility.logo.name


def test_a_receiver_of_post_init_sends_a_plain_model_through_from_db(craps_table):
    columns = raw_reads.Columns(GamingTable, "t")
    heard: list[Any] = []

    def listen(sender: Any, instance: Any, **kwargs: Any) -> None:
        heard.append(instance)

    post_init.connect(listen, sender=GamingTable)
    try:
        built = columns.build(_row_of(craps_table, columns))
    finally:
        post_init.disconnect(listen, sender=GamingTable)
    assert heard == [built] and built == craps_table


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite's reads go through Django's own cursor")
def test_the_reads_share_one_cursor_a_connection_and_a_new_connection_gets_its_own(facility):
    db = raw_reads.current_connection()
    db.ensure_connection()
    first = raw_reads._cursor(db)
    assert raw_reads.fetch("SELECT 1", []) == [(1,)]
    assert raw_reads._cursor(db) is first
    assert raw_reads.fetch("SELECT %s::int + 1", [1]) == [(2,)] and raw_reads._cursor(db) is first
    first.close()  # (a closed cursor, e.g. its connection gone) is replaced
    again = raw_reads._cursor(db)
    assert again is not first and not again.closed and again.connection is db.connection
