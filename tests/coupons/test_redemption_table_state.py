"""A coupon is redeemed only at an open table meeting every requirement now: the readiness service's verdict
(compliance.readiness), the same the board and Open give — new refusal codes table_closed and table_not_ready."""

from __future__ import annotations

import pytest

from compliance import readiness
from compliance.readiness import Unmet
from coupons.models import Redemption
from coupons.redemption_rules import REFUSALS, Refusal
from coupons.services.redemption import Scan, redemption_record
from tests.factories import GamingTableFactory

pytestmark = pytest.mark.django_db


def _scan(table, serial="MP-0000001"):
    return Scan(serial=serial, table=table, position="pass_line", chips_cents=2500)


def test_a_closed_table_redeems_nothing(program, handed_out, facility, dealer):
    handed_out(1, 10)
    from compliance.models import Game

    table = GamingTableFactory(facility=facility, number="CR-9", game=Game.objects.get(code="craps"))  # closed
    with pytest.raises(Refusal) as refused:
        redemption_record(facility=facility, scan=_scan(table), user=dealer)
    assert refused.value.refusal_code == "table_closed" and "closed" in refused.value.sentence
    assert REFUSALS["table_closed"].status == 409 and not Redemption.objects.exists()


def test_an_open_table_in_breach_redeems_nothing(program, handed_out, craps_table, facility, dealer, monkeypatch):
    handed_out(1, 10)

    def breach(facility, tables, at):
        return {t.pk: [Unmet("cameras", "577.9(a)", "Table CR-1: no camera covers end A (§ 577.9(a)).", "cameras",
                             "surveillance")] for t in tables}

    monkeypatch.setattr(readiness, "_SOURCES", [readiness._Registered("test", breach)])
    with pytest.raises(Refusal) as refused:
        redemption_record(facility=facility, scan=_scan(craps_table), user=dealer)
    assert refused.value.refusal_code == "table_not_ready" and "577.9(a)" in refused.value.sentence
    assert not Redemption.objects.exists()
    monkeypatch.setattr(readiness, "_SOURCES", [])
    readiness.generation_bump(facility.pk)  # what a write to a record a source reads does (compliance.breaches)
    assert redemption_record(facility=facility, scan=_scan(craps_table), user=dealer).redemption.pk


def test_a_write_a_source_reads_retires_the_cached_verdict_at_once(program, handed_out, facility, dealer):
    """The redemption reuses the table's verdict for a few seconds (it is asked many times a second), but any write
    to a record readiness reads — here the table closing — retires it: the next scan sees the table closed."""
    handed_out(1, 10)
    from compliance.models import Game

    table = GamingTableFactory(is_open=True, facility=facility, number="CR-8", game=Game.objects.get(code="craps"))
    redemption_record(facility=facility, scan=_scan(table), user=dealer)
    table.is_open = False
    table.save()
    with pytest.raises(Refusal) as refused:
        redemption_record(facility=facility, scan=_scan(table, "MP-0000002"), user=dealer)
    assert refused.value.refusal_code == "table_closed"
