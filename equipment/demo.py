"""Demo data for the equipment logs: the Bureaus' approvals of every device the demo's games need (§ 539.1(b), (d);
§ 675a.1(c); § 675a.3(b)(2); § 668a.3(b); § 575.2(c)), then the floor's morning as the floorpersons would have it:
dice and cards put in play with the dealer present, the Sic Bo opening inspection, and five tables opened through
the services (TDF-1, SB-1, AP-1, CR-1, RL-1); TDF-2 staffed and waiting for its dice; and the dice of PH-1 put in
play 25 hours ago, which may not remain on a table for more than 24 hours, open or closed (§ 668a.3(b)(1)): the
clock the sweep finds overdue."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from compliance.actors import acts_as_system
from compliance.demo import signing_passwords
from compliance.models import Facility, GamingTable
from compliance.roles import Role
from compliance.selectors import people_holding
from equipment import services
from equipment.approval_kinds import KINDS
from equipment.models import DiceMethod, DiceSet, EquipmentApproval, TableSession

__all__ = ["OVERDUE_BY", "equipment_demo_seed", "floor_demo_seed"]

# How long ago PH-1's dice went into play: past their 24 hours (§ 668a.3(b)(1)) by an hour.
OVERDUE_BY = timedelta(hours=25)


@acts_as_system
def equipment_demo_seed(facility: Facility) -> int:
    """Record each device's approval once; returns how many were added."""
    officer = people_holding(facility, [Role.COMPLIANCE_OFFICER]).first()
    if officer is None:
        return 0
    made = 0
    for number, kind in enumerate(KINDS, start=1):
        if EquipmentApproval.objects.filter(facility=facility, kind=kind.code).exists():
            continue
        EquipmentApproval.objects.create(
            facility=facility, kind=kind.code, device=f"Demo {kind.label.split(' (')[0]}", bureau=kind.bureau,
            reference=f"{'BGLO' if 'Laboratory' in kind.bureau else 'BGO'}-2026-{100 + number}",
            approved_on=date(2026, 1, 15), bears_logo=kind.needs_logo, has_lockout=kind.needs_lockout,
            recorded_by=officer)
        made += 1
    return made


def _people(*usernames: str) -> dict[str, Any]:
    return {u.username: u for u in get_user_model().objects.filter(username__in=usernames)}


@transaction.atomic
def floor_demo_seed(*, facility: Facility) -> str | None:
    """The floor's morning (idempotent: nothing once any table of the facility has been opened). Needs the crew the
    staffing demo placed (compliance/staffing/demo.py)."""
    tables = {t.number: t for t in GamingTable.objects.filter(facility=facility).select_related("game")}
    if TableSession.objects.filter(facility_id=facility.pk).exists() or not tables:
        return None
    people = _people("floor", "floor2", "floor3", "shiftmgr", "dealer", "dealer5", "dealer11", "dealer12")
    if len(people) < 8:
        return "nothing added: the demo's floor crew is missing (run `manage.py seed_demo` first)"
    with signing_passwords(people.values()) as password:
        try:
            with transaction.atomic():
                opened = _morning(tables, people, password, timezone.now())
        except ValidationError as refusal:  # a var/ of an older demo whose floor no longer allows this
            return "nothing added: " + " ".join(refusal.messages)
    return f"{len(opened)} tables opened ({', '.join(opened)}), one set of dice overdue (PH-1)"


def _morning(tables: dict[str, GamingTable], people: dict[str, Any], password: str, now: datetime) -> list[str]:
    floor, fiona, frank = people["floor"], people["floor2"], people["floor3"]

    def dice(table: str, floorperson: Any, dealer: Any, count: int, colours: str = "", at: datetime = now) -> None:
        services.dice_set_place(
            table=tables[table], user=floorperson, password=password, dealer=dealer, dealer_password=password,
            identifiers=f"{table} {at:%y%m%d}-{count}", dice_count=count, colours=colours,
            placed_because=DiceSet.PlacedBecause.OPENING, at=at)

    # PH-1's dice, put in play yesterday and left on the closed table past their 24 hours.
    dice("PH-1", frank, people["dealer"], 2, at=now - OVERDUE_BY)
    # TDF-1: a new set of four green and two red dice, the stickperson present (§ 577.4(a), (d)).
    dice("TDF-1", floor, people["dealer5"], 6, "4 green, 2 red")
    # SB-1: the opening inspection by its floorperson (§ 539.5(a)), then three dice in the shaker (§ 539.2).
    services.inspection_record(table=tables["SB-1"], user=fiona, password=password, values_entered=[3, 5, 6],
                               combinations_illuminated=True, note="Demo: every winning combination lit.")
    dice("SB-1", fiona, people["dealer11"], 3)
    # AP-1: the starting position by the approved random number generator (§ 575.2(c)(2)); two decks of different
    # backs from an automated shoe with a shuffler, inspected by the dealer and verified by Fiona (§ 575.3, § 575.4).
    services.dice_method_record(table=tables["AP-1"], user=people["shiftmgr"], method=DiceMethod.RNG)
    services.deck_set_place(table=tables["AP-1"], user=fiona, password=password, dealer=people["dealer12"],
                            dealer_password=password, deck_count=2, back_colours="red / blue",
                            dealt_from="automated_shoe", automated_shuffler=True, identifiers="AP-1 decks R/B")
    opened = []
    for number, floorperson in (("TDF-1", floor), ("SB-1", fiona), ("AP-1", fiona), ("CR-1", frank),
                                ("RL-1", frank)):
        services.table_open(table=tables[number], user=floorperson)
        opened.append(number)
    return opened
