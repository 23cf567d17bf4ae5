"""The verification replays the sealed ledger against each serial's current state (coupons' verify check)."""

from __future__ import annotations

import pytest
from django.db import connection

from compliance.chain import chain_link_all, chain_verify
from compliance.testing import behind_the_applications_back
from coupons.models import CouponRange

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(connection.vendor != "postgresql", reason="tampering as the owner")]


def _state_findings() -> list[str]:
    chain_link_all()
    return [line for line in chain_verify().findings if line.startswith("STATE")]


def test_an_untouched_ledger_replays_to_the_current_state(program, receive, issue):
    receive(1, 100)
    issue(1, 10)
    assert _state_findings() == []


def test_a_range_rewritten_behind_the_ledgers_back_is_named_by_serials_and_both_states(program, receive, issue):
    receive(1, 100)
    issue(1, 10)
    row = CouponRange.objects.get(series=program.series, closed_by__isnull=True, first_serial=11)
    behind_the_applications_back("UPDATE coupons_couponrange SET state = 'distributed' WHERE id = %s", [row.pk])
    (finding,) = _state_findings()
    assert program.series.span(11, 100) in finding
    assert "the sealed ledger has them in finance stock" in finding
    assert "the current state distributed" in finding


def test_serials_that_were_never_received_given_a_current_state_are_named(program, receive):
    receive(1, 100)
    row = CouponRange.objects.get(series=program.series, closed_by__isnull=True)
    behind_the_applications_back(
        "INSERT INTO coupons_couponrange (facility_id, series_id, first_serial, last_serial, state, location_id, "
        "opened_by_id, since_id) VALUES (%s, %s, 500, 600, 'distributed', NULL, %s, %s)",
        [row.facility_id, row.series_id, row.opened_by_id, row.opened_by_id])
    findings = _state_findings()
    assert any(program.series.span(500, 600) in line and "the sealed ledger has them in no state" in line
               for line in findings), findings


def test_the_series_to_replay_are_asked_for_once_each_not_once_a_redemption(program, handed_out, craps_table,
                                                                             dealer):
    """The models' own orderings (a redemption's newest first, a ledger line's by time) would have DISTINCT select
    their columns too, answering a row a redemption: at 151 gaming days 8.3 million rows, 1.3 GB and 40 s of every
    verification. The database answers each series once."""
    from coupons.selectors.ledger_replay import touched_series
    from coupons.services.redemption import Scan, redemption_record

    handed_out(1, 30)
    for serial in range(1, 21):
        redemption_record(facility=program.facility, user=dealer,
                          scan=Scan(serial=f"MP-{serial:07d}", table=craps_table, position="pass_line",
                                    chips_cents=2500))
    moved, redeemed = touched_series(None)
    assert list(moved) == [program.series.pk]
    assert list(redeemed) == [program.series.pk]
    assert _state_findings() == []
