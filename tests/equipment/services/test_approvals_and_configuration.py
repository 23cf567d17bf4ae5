"""The register of approved equipment (§ 539.1(b), (d); § 675a.1(c); § 675a.3(b)(2); § 668a.3(b); § 575.2(c)) and
Asia Poker's configuration (§ 575.5(g)(3), § 575.9(a)(1)), through the readiness service each feeds."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import time_machine
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from compliance.models import Game
from compliance.readiness import table_readiness
from compliance.roles import Role
from equipment import services
from equipment.models import EquipmentApproval
from tests.equipment.conftest import T0
from tests.factories import GamingTableFactory, make_person

pytestmark = pytest.mark.django_db


def _bare_table(facility, game_code, number):
    """A table whose game's devices are not in the register yet (make_table records them)."""
    return GamingTableFactory(facility=facility, game=Game.objects.get(code=game_code), number=number)


def _codes(table, at=T0):
    return [u.code for u in table_readiness(table, at).unmet]


def test_a_sic_bo_table_needs_its_device_and_shaker_approved(facility, inspect, place_dice, floorperson, open_at):
    officer = make_person(Role.COMPLIANCE_OFFICER, facility)
    table = _bare_table(facility, "sic-bo", "SB-9")
    with time_machine.travel(T0, tick=False):
        place_dice(table, T0)
        inspect(table, T0)
        assert {"approval:sic-bo-device", "approval:sic-bo-shaker"} <= set(_codes(table))
        with pytest.raises(ValidationError, match=r"539\.1\(b\)"):
            open_at(table, floorperson, T0)
        services.approval_record(facility=facility, kind="sic-bo-device", device="LightBoard 3",
                                 reference="BGLO-2026-114", approved_on=date(2026, 1, 5), user=officer)
        assert _codes(table) == ["approval:sic-bo-shaker"]
        services.approval_record(facility=facility, kind="sic-bo-shaker", device="AutoShake S2",
                                 reference="BGO-77", approved_on=date(2026, 1, 5), user=officer)
        assert _codes(table) == []
    assert open_at(table, floorperson, T0)


def test_a_withdrawn_approval_flags_the_open_table_at_once(facility, sic_bo, inspect, place_dice, floorperson,
                                                           open_at):
    officer = make_person(Role.COMPLIANCE_OFFICER, facility)
    place_dice(sic_bo, T0)
    inspect(sic_bo, T0)
    open_at(sic_bo, floorperson, T0)
    approval = EquipmentApproval.objects.get(facility=facility, kind="sic-bo-device")
    with time_machine.travel(T0, tick=False):
        services.approval_withdraw(approval=approval, withdrawn_on=T0.date(), reason="Bureau letter 12", user=officer)
        state = table_readiness(sic_bo, T0)
    assert state.in_breach and [u.clause for u in state.unmet] == ["539.1(b)"]


def test_the_register_refuses_what_the_chapters_refuse(facility, floorperson):
    officer = make_person(Role.COMPLIANCE_OFFICER, facility)
    with time_machine.travel(T0, tick=False):
        with pytest.raises(ValidationError, match=r"name or logo.*675a\.3\(b\)\(2\)"), transaction.atomic():
            services.approval_record(facility=facility, kind="hrd-shaker", device="Shaker", reference="R1",
                                     approved_on=date(2026, 1, 1), user=officer)
        with pytest.raises(ValidationError, match=r"lock-out.*675a\.1\(c\)\(2\)"), transaction.atomic():
            services.approval_record(facility=facility, kind="hrd-extra-roll", device="ERS", reference="R2",
                                     approved_on=date(2026, 1, 1), user=officer)
        with pytest.raises(ValidationError, match="after today"), transaction.atomic():
            services.approval_record(facility=facility, kind="ph-shaker", device="PH", reference="R3",
                                     approved_on=T0.date() + timedelta(days=2), bears_logo=True, user=officer)
        with pytest.raises(ValidationError, match="approval reference"), transaction.atomic():
            services.approval_record(facility=facility, kind="ph-shaker", device="PH", reference=" ",
                                     approved_on=date(2026, 1, 1), bears_logo=True, user=officer)
        with pytest.raises(PermissionDenied), transaction.atomic():
            services.approval_record(facility=facility, kind="ph-shaker", device="PH", reference="R4",
                                     approved_on=date(2026, 1, 1), bears_logo=True, user=floorperson)
        made = services.approval_record(facility=facility, kind="ph-shaker", device="PH", reference="R5",
                                        approved_on=date(2026, 1, 1), bears_logo=True, user=officer)
    from compliance.models import RegulatedWriteError

    made.reference = "changed"
    with pytest.raises(RegulatedWriteError):
        made.save()


def test_asia_poker_needs_the_device_of_its_own_method_only(facility, place_decks, floorperson):
    table = _bare_table(facility, "asia-poker", "AP-9")
    from equipment.models import TableDiceMethod

    TableDiceMethod.objects.create(facility=facility, table=table, method="rng",
                                   recorded_by=make_person(Role.SHIFT_MANAGER, facility))
    place_decks(table, T0)
    with time_machine.travel(T0, tick=False):
        assert [c for c in _codes(table) if c.startswith("approval:")] == ["approval:ap-rng"]


def test_hand_dealing_needs_a_shuffler(asia, place_decks):
    with pytest.raises(ValidationError, match=r"575\.9\(a\)\(1\)"):
        place_decks(asia, T0, automated_shuffler=False)
    assert place_decks(asia, T0, automated_shuffler=True)


def test_the_flat_button_needs_an_automated_shuffler_and_shoe(facility, place_decks, shift_manager):
    table = _bare_table(facility, "asia-poker", "AP-F")
    from tests.equipment.conftest import approve_equipment

    approve_equipment(facility, "asia-poker")
    services.dice_method_record(table=table, user=shift_manager, method="flat_button")
    for dealt_from, shuffler in (("hand", True), ("manual_shoe", True), ("automated_shoe", False)):
        with pytest.raises(ValidationError, match=r"575\.5\(g\)\(3\)"):
            place_decks(table, T0, dealt_from=dealt_from, automated_shuffler=shuffler)
    assert place_decks(table, T0, dealt_from="automated_shoe", automated_shuffler=True)


def test_the_flat_button_is_refused_while_cards_in_play_do_not_fit(asia, place_decks, shift_manager):
    place_decks(asia, T0, dealt_from="hand", automated_shuffler=True)
    with pytest.raises(ValidationError, match=r"575\.5\(g\)\(3\)"):
        services.dice_method_record(table=asia, user=shift_manager, method="flat_button")


def test_a_craps_table_opens_with_no_equipment_requirement(facility, floorperson, open_at):
    """Craps, Roulette and Blackjack use no dice or cards of these chapters: no equipment requirement stands in the
    way (the other chapters' requirements are tested together in tests/compliance/test_readiness.py)."""
    for code, number in (("craps", "CR-1"), ("roulette", "RL-1"), ("blackjack", "BJ-1")):
        table = _bare_table(facility, code, number)
        assert table_readiness(table, T0).verdict == "ready"
        assert open_at(table, floorperson, T0)


def test_the_demo_records_every_approval_once(facility):
    from equipment.approval_kinds import KINDS
    from equipment.demo import equipment_demo_seed

    make_person(Role.COMPLIANCE_OFFICER, facility)
    assert equipment_demo_seed(facility) == len(KINDS)
    assert equipment_demo_seed(facility) == 0
