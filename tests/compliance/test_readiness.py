"""One answer to "may this table be open and take a wager now" (compliance.readiness), with every chapter's
requirements: each at its boundary, and — for generated table states — the same verdict from the live board, the
table page, Open and the redemption API."""

from __future__ import annotations

import itertools
import json
import re
from datetime import date, timedelta
from typing import Any

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compliance.breaches import breaches_sync
from compliance.models import TableBreach
from compliance.readiness import open_refusal, sources, table_readiness
from compliance.staffing import services as staffing
from equipment import services as equipment
from tests.compliance.readiness_world import World, world_for
from tests.equipment.conftest import T0
from tests.factories import FacilityFactory

pytestmark = pytest.mark.django_db

_CODES = itertools.count(1)


@pytest.fixture(autouse=True)
def _clock() -> Any:
    with time_machine.travel(T0, tick=False):
        yield


@pytest.fixture
def world(facility: Any) -> World:
    return world_for(facility)


def _codes(table: Any, at: Any = None) -> list[str]:
    return [u.code for u in table_readiness(table, at or T0).unmet]


def test_every_chapter_registers_its_part():
    assert set(sources()) >= {"equipment", "staffing", "submissions", "providers"}


def test_a_craps_table_opens_once_its_rules_and_limits_are_in_force(world):
    """Craps has no equipment requirement; it needs an approved Rules Submission in force (§ 521.8(b)) and a
    minimum and maximum wager (§ 521.7(a)) — nothing else of these chapters."""
    craps = world.table("craps", "CR-1")
    assert _codes(craps) == ["limits", "submission"]
    refusal = open_refusal(craps, T0, world.floorperson)
    assert "§ 521.7(a)" in refusal and "§ 521.8(b)" in refusal
    world.approve_rules(T0)
    assert _codes(craps) == ["limits"]
    world.set_limits(craps)
    assert table_readiness(craps, T0).verdict == "ready"
    assert equipment.table_open(table=craps, user=world.floorperson, at=T0)
    assert table_readiness(craps, T0).verdict == "open"


def test_three_dice_football_needs_three_dealers_two_cameras_and_a_floorperson(world):
    tdf = world.tdf_awaiting_its_crew(T0, "LOT-A 1-6")
    state = table_readiness(tdf, T0)
    assert {u.clause for u in state.unmet} == {"577.9(a)", "577.9(b)", "577.9(c)"}
    assert all(u.link and u.who for u in state.unmet)
    world.staff(tdf, T0, dealers=1, stick=True, floor=False)
    world.watch(tdf, "a")
    assert {u.clause for u in table_readiness(tdf, T0).unmet} == {"577.9(a)", "577.9(b)", "577.9(c)"}
    world.staff(tdf, T0, dealers=0, stick=False, floor=True)
    assert {u.clause for u in table_readiness(tdf, T0).unmet} == {"577.9(a)", "577.9(b)"}
    staffing.assignment_add(roster=world.roster, person=world.dealers[1], position="dealer", table=tdf,
                            user=world.manager, starts_at=T0)
    assert {u.clause for u in table_readiness(tdf, T0).unmet} == {"577.9(a)"}
    world.watch(tdf, "b")
    assert table_readiness(tdf, T0).verdict == "ready"
    assert equipment.table_open(table=tdf, user=world.floorperson, at=T0)


def test_a_shift_manager_signature_never_opens_a_table_that_breaks_577_9(world):
    tdf = world.tdf_awaiting_its_crew(T0, "LOT-B 1-6")
    world.staff(tdf, T0, dealers=0, stick=True, floor=False)  # one dealer (the stickperson), no camera
    with pytest.raises(ValidationError, match="no signature waives"), transaction.atomic():
        staffing.override_record(table=tdf, reason="Busy", user=world.manager, password="x")
    with pytest.raises(ValidationError, match=r"577\.9\(a\).*|577\.9\(b\)"):
        equipment.table_open(table=tdf, user=world.manager, at=T0)
    assert all(not u.overridable for u in table_readiness(tdf, T0).unmet)


def _provider_on(world: World, table: Any, approved_on: date) -> Any:
    from compliance.providers import services as providers

    officer, facility = world.officer, world.facility
    provider = providers.provider_register(facility=facility, name="SideBet Co", board_file_number="GSP-1",
                                           user=officer)
    offering = providers.offering_add(facility=facility, provider=provider, game=table.game, name="Lucky Bonus",
                                      lab_approved_on=approved_on, user=officer)
    providers.offering_use_approve(facility=facility, offering=offering, approved_on=approved_on, reference="ED-1",
                                   user=officer)
    certification = providers.certification_record(facility=facility, provider=provider, approved_on=approved_on,
                                                   user=officer)
    providers.table_offering_assign(table=table, offering=offering, user=officer)
    return certification


def test_a_certification_lapsing_flags_the_open_table_and_prevents_reopening(world):
    """§ 528.7(4) checked continuously: the day after the term ends with no renewal received, the open table
    carrying the provider's wager is in breach, and it cannot reopen once closed."""
    craps = world.table("craps", "CR-1")
    world.approve_rules(T0)
    world.set_limits(craps)
    _provider_on(world, craps, date(2022, 3, 3))  # expires 3 Mar 2026, the gaming day after T0's
    equipment.table_open(table=craps, user=world.floorperson, at=T0)
    assert table_readiness(craps, T0).verdict == "open"
    lapsed = T0 + timedelta(days=2)
    with time_machine.travel(lapsed, tick=False):
        state = table_readiness(craps, lapsed)
        assert state.in_breach and [u.code.split(":")[0] for u in state.unmet] == ["provider"]
        assert breaches_sync(world.facility, lapsed)
        assert TableBreach.objects.get().clause.startswith("528")
        equipment.table_close(table=craps, user=world.floorperson, at=lapsed)
        with pytest.raises(ValidationError, match="528"):
            equipment.table_open(table=craps, user=world.floorperson, at=lapsed + timedelta(minutes=1))


def test_a_late_but_received_renewal_keeps_the_certification_in_effect(world):
    """§ 528.4(c) as written: a completed renewal the Board received keeps the certification in effect until the
    Board decides, even filed later than the 60 days of § 528.4(b) (flagged late, not lapsed)."""
    from compliance.providers import services as providers

    craps = world.table("craps", "CR-1")
    world.approve_rules(T0)
    world.set_limits(craps)
    certification = _provider_on(world, craps, date(2022, 3, 3))
    providers.renewal_file(facility=world.facility, certification=certification, filed_on=T0.date(),
                           user=world.officer)  # one day before the expiry: late under (b)
    later = T0 + timedelta(days=40)
    with time_machine.travel(later, tick=False):
        assert not [c for c in _codes(craps, later) if c.startswith("provider")]


# --- the same verdict on every surface ------------------------------------------------------------------------


def _surfaces(world: World, table: Any, client_for: Any) -> dict[str, str]:
    """The verdict as each surface gives it: "takes wagers", "ready", "not ready" or "breach"."""
    found: dict[str, str] = {}
    board = client_for(world.floorperson).get("/equipment/board/rows/").content.decode()
    verdicts = [v for v in ("breach", "not-ready", "ready", "open") if f'data-verdict="{v}"' in board]
    assert len(verdicts) == 1, board
    found["board"] = {"breach": "breach", "not-ready": "not ready", "ready": "ready", "open": "takes wagers"}[
        verdicts[0]]
    page = client_for(world.floorperson).get(f"/equipment/tables/{table.pk}/").content.decode()
    found["table page"] = ("breach" if "Open in breach" in page else "takes wagers" if "Open: every requirement met"
                           in page else "ready" if "Ready to open" in page else "not ready")
    limits = client_for(world.floorperson).get("/submissions/limits/").content.decode()
    verdicts = [v for v in ("breach", "not-ready", "ready", "open") if f'data-verdict="{v}"' in limits]
    assert len(verdicts) == 1, limits
    found["wager limits page"] = {"breach": "breach", "not-ready": "not ready", "ready": "ready",
                                  "open": "takes wagers"}[verdicts[0]]
    if not table.is_open:
        try:
            with transaction.atomic():
                equipment.table_open(table=table, user=world.floorperson, at=T0)
                transaction.set_rollback(True)
            found["open"] = "ready"
        except ValidationError:
            found["open"] = "not ready"
    response = client_for(world.dealers[2]).post(
        "/api/v1/coupons/redemptions/", data=json.dumps({"serial": "ZZ-0000001", "position": "pass_line",
                                                          "chips": "25.00", "table": table.number}),
        content_type="application/json")
    code = response.json()["error"]["code"]
    found["redemption API"] = {"table_closed": "closed", "table_not_ready": "breach"}.get(code, "takes wagers")
    return found


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(game=st.sampled_from(["craps", "three-dice-football"]), rules=st.booleans(), limits=st.booleans(),
       dealers=st.integers(0, 2), stick=st.booleans(), floor=st.booleans(), cameras=st.sampled_from(["", "a", "ab"]),
       marked_open=st.booleans())
def test_the_board_open_the_table_page_the_limits_page_and_the_redemption_api_agree(client_for, game, rules, limits, dealers, stick,
                                                                    floor, cameras, marked_open):
    facility = FacilityFactory(code=f"prop{next(_CODES)}")
    world = world_for(facility)
    table = world.table(game, "T-1")
    if rules:
        world.approve_rules(T0)
    if limits:
        world.set_limits(table)
    if game == "three-dice-football":
        world.new_dice(table, T0, f"LOT-P{next(_CODES)} 1-6")
    world.start_roster(T0)
    world.staff(table, T0, dealers=dealers, stick=stick, floor=floor)
    world.watch(table, cameras)
    if marked_open:  # a table open whose requirements may since have stopped holding
        table.is_open = True
        table.save()
    state = table_readiness(table, T0)
    seen = _surfaces(world, table, client_for)
    expected = {"ready": "ready", "not-ready": "not ready", "open": "takes wagers", "breach": "breach"}[state.verdict]
    assert seen["board"] == seen["table page"] == seen["wager limits page"] == expected, seen
    if "open" in seen:
        assert seen["open"] == expected, seen
    api_expected = "takes wagers" if state.takes_wagers else "breach" if state.is_open else "closed"
    assert seen["redemption API"] == api_expected, seen


def test_only_the_floorperson_assigned_to_the_table_signs_its_inspection_and_cards(world):
    """§ 539.5(a) "the floorperson assigned to the Sic Bo table shall inspect"; § 575.4(a) "The floorperson assigned
    to the table shall verify the inspection": another floorperson is refused until placed over the table."""
    from tests.factories import PASSWORD

    sic_bo = world.table("sic-bo", "SB-1")
    asia = world.table("asia-poker", "AP-1")
    from equipment.models import TableDiceMethod

    TableDiceMethod.objects.create(facility=world.facility, table=asia, method="rng", recorded_by=world.manager)
    world.start_roster(T0)

    def inspect() -> Any:
        return equipment.inspection_record(table=sic_bo, user=world.floorperson, password=PASSWORD,
                                           values_entered=[1, 4, 4], combinations_illuminated=True, at=T0)

    def cards() -> Any:
        return equipment.deck_set_change(table=asia, user=world.floorperson, password=PASSWORD,
                                         dealer=world.dealers[0], dealer_password=PASSWORD, deck_count=1,
                                         back_colours="red", dealt_from="hand", automated_shuffler=True, at=T0)

    for attempt, clause in ((inspect, "539.5(a)"), (cards, "575.4(a)")):
        with pytest.raises(ValidationError, match=rf"not the floorperson assigned.*§ {re.escape(clause)}"), \
                transaction.atomic():
            attempt()
    for table in (sic_bo, asia):
        staffing.assignment_add(roster=world.roster, person=world.floorperson, position="floorperson", table=table,
                                user=world.manager, starts_at=T0)
    assert inspect().passed and cards().pk


def test_one_table_asked_now_keeps_the_verdict_of_every_table_of_its_facility(world):
    """The redemption API asks on every scan (compliance.readiness.table_readiness_now): one table found wanting
    computes the whole facility's verdicts at once, so the next table's scan reads its own from the cache."""
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from compliance.readiness import generation_bump, table_readiness_now

    first, second = world.table("craps", "CR-1"), world.table("craps", "CR-2")
    cache.clear()
    assert table_readiness_now(first) == table_readiness(first, table_readiness_now(first).at)
    with CaptureQueriesContext(connection) as captured:
        kept = table_readiness_now(second)
    assert captured.captured_queries == [] and kept == table_readiness(second, kept.at)
    generation_bump(second.facility_id)  # a write a source reads: every verdict of the facility computed again
    with CaptureQueriesContext(connection) as captured:
        table_readiness_now(second)
    assert captured.captured_queries
