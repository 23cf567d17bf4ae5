"""Never twice, with real threads on PostgreSQL: the same coupon scanned at two tables at the same moment
is honoured exactly once, every time; a scanner's retry racing its own first request gets one answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.db.models import Sum

from coupons import services
from coupons.models import CouponState, LedgerLine, Redemption
from coupons.services.answers import redemption_answer
from coupons.services.redemption import Scan
from tests.coupons.conftest import states
from tests.factories import GamingTableFactory
from tests.threads import at_once

pytestmark = [
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the race is decided by PostgreSQL's constraint"),
]

ROUNDS = 25


def test_the_same_coupon_at_two_tables_at_once_is_honoured_once(program, handed_out, dealer, facility):
    from compliance.models import Game

    handed_out(1, ROUNDS)
    craps = Game.objects.get(code="craps")
    tables = [GamingTableFactory(is_open=True, facility=facility, game=craps, number=f"CR-{n}") for n in (1, 2)]

    def scan_at(table: Any, serial: int, key: str = "") -> Callable[[], Any]:
        return lambda: redemption_answer(
            facility=facility, user=dealer, key=key, fingerprint="same",
            scan=Scan(serial=f"MP-{serial:07d}", table=table, position="pass_line", chips_cents=2500))

    for serial in range(1, ROUNDS + 1):
        answers = at_once(scan_at(tables[0], serial), scan_at(tables[1], serial))
        assert sorted(a.status for a in answers) == [201, 409], answers
        refused = next(a for a in answers if a.status == 409)
        assert refused.body["error"]["code"] == "already_redeemed"
    assert Redemption.objects.count() == ROUNDS
    services.redemptions_post(facility=facility)  # the ledger's moves, posted after the scans in runs of serials
    assert LedgerLine.objects.filter(kind=LedgerLine.Kind.REDEEM).aggregate(n=Sum("quantity"))["n"] == ROUNDS
    assert states(program.series) == [(1, ROUNDS, CouponState.REDEEMED)] or all(
        state == CouponState.REDEEMED for _, _, state in states(program.series))


def test_two_tables_redeeming_neighbouring_coupons_of_one_range_both_succeed(program, handed_out, dealer, facility):
    """Each redemption splits the range both coupons sit in; the one that waited reads it again."""
    from compliance.models import Game

    handed_out(1, 2 * ROUNDS)
    craps = Game.objects.get(code="craps")
    tables = [GamingTableFactory(is_open=True, facility=facility, game=craps, number=f"CR-{n}") for n in (3, 4)]

    def scan_at(table: Any, serial: int) -> Callable[[], Any]:
        return lambda: redemption_answer(
            facility=facility, user=dealer,
            scan=Scan(serial=f"MP-{serial:07d}", table=table, position="pass_line", chips_cents=2500))

    for first in range(1, 2 * ROUNDS, 2):
        answers = at_once(scan_at(tables[0], first), scan_at(tables[1], first + 1))
        assert [a.status for a in answers] == [201, 201], answers
    assert Redemption.objects.count() == 2 * ROUNDS
    services.redemptions_post(facility=facility)
    assert all(state == CouponState.REDEEMED for _, _, state in states(program.series))


def test_a_retry_racing_its_first_request_gets_the_first_answer(program, handed_out, dealer, facility):
    from compliance.models import Game

    handed_out(1, 10)
    table = GamingTableFactory(is_open=True, facility=facility, game=Game.objects.get(code="craps"), number="CR-9")
    scan = Scan(serial="MP-0000003", table=table, position="pass_line", chips_cents=2500)

    def send() -> Any:
        return redemption_answer(facility=facility, user=dealer, scan=scan, key="scan-42", fingerprint="f")

    first, retry = at_once(send, send)
    assert first.status == retry.status == 201, (first, retry)
    assert first.body == retry.body and (first.replayed or retry.replayed)
    assert Redemption.objects.count() == 1
