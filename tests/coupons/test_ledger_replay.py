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
