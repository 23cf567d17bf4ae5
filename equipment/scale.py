"""The equipment logs' part of a generated year (``manage.py generate_casino``, :mod:`compliance.scale`).

Through the services, the clock set to each moment, as the floorpersons would have logged them: the Bureaus'
approvals of the devices a month before the year (§ 539.1, § 675a.1(c), § 668a.3(b), § 575.2(c)); then every
gaming day, at each table of a dice game a new set of dice put in play by its floorperson with the dealer present,
the set in play removed in the same step (a scheduled change: dice stay at most 24 hours, § 668a.3(b)(1),
§ 675a.3(b)(1), § 577.4(d)), each table at its own hour; at each Asia Poker table its decks changed every 8 hours
from the automated shoe (§ 575.3(c)); the Sic Bo device's opening inspection each morning (§ 539.5(a)). Every
placement and removal is signed by both people, as the forms are.
"""

from __future__ import annotations

from datetime import date, timedelta

from compliance.demo import signing_passwords
from compliance.gaming_day import day_bounds
from compliance.models import GamingTable
from compliance.roles import Role
from compliance.scale import ScalePlan, travel
from compliance.scale_turns import beside_writes, entered_beside
from equipment import services
from equipment.approval_kinds import KINDS
from equipment.models import DeckSet, DiceMethod, EquipmentApproval, EquipmentRequirement
from equipment.scale_bulk import DECKS, DICE, INSPECTION, FloorChange, written_in_bulk

__all__ = ["equipment_scale_seed"]

DECK_HOURS = 8  # an automated shoe's decks, § 575.3(c)


def _approvals(plan: ScalePlan) -> None:
    officer = plan.people[Role.COMPLIANCE_OFFICER]
    approved_on = plan.first_day - timedelta(days=30)
    for number, kind in enumerate(KINDS, start=1):
        EquipmentApproval.objects.create(
            facility=plan.facility, kind=kind.code, device=f"{kind.label.split(' (')[0]}", bureau=kind.bureau,
            reference=f"{'BGLO' if 'Laboratory' in kind.bureau else 'BGO'}-{approved_on:%Y}-{500 + number}",
            approved_on=approved_on, bears_logo=kind.needs_logo, has_lockout=kind.needs_lockout, recorded_by=officer)


class _Crew:
    """Each table's floorperson (the one the roster places over it) and dealer."""

    def __init__(self, plan: ScalePlan, tables: list[GamingTable]) -> None:
        floor, dealers = plan.people["floorpersons"], plan.people["dealers"]
        assigned = plan.shared.get("floorperson_of", {})  # the roster's (compliance/staffing/scale.py)
        self.floorperson = {t.pk: assigned.get(t.pk, floor[n % len(floor)]) for n, t in enumerate(tables)}
        self.dealer = {t.pk: dealers[n % len(dealers)] for n, t in enumerate(tables)}


def _day(plan: ScalePlan, day: date, number: int, crew: _Crew, requirements: dict[int, EquipmentRequirement],
         inspected: list[GamingTable], dice_tables: list[GamingTable], deck_tables: list[GamingTable]
         ) -> list[FloorChange]:
    """The day's records, in the order they are written: the inspections at 06:30, each table's dice at its own
    minute, each Asia Poker table's decks every 8 hours."""
    opens = day_bounds(plan.facility, day)[0]
    changes = [FloorChange(INSPECTION, t, requirements[t.game_id], opens + timedelta(minutes=30),
                           crew.floorperson[t.pk], values={"values_entered": [1 + number % 6, 3, 6]})
               for t in inspected]
    for index, table in enumerate(dice_tables):
        at = opens + timedelta(minutes=40 + 11 * index % 1200)
        requirement = requirements[table.game_id]
        changes.append(FloorChange(DICE, table, requirement, at, crew.floorperson[table.pk], crew.dealer[table.pk],
                                   {"identifiers": f"{table.number} {at:%y%m%d}", "dice_count": requirement.dice_count,
                                    "colours": requirement.dice_colours}))
    for index, table in enumerate(deck_tables):
        for change in range(24 // DECK_HOURS):
            at = opens + timedelta(hours=DECK_HOURS * change, minutes=5 + 3 * index)
            changes.append(FloorChange(DECKS, table, requirements[table.game_id], at, crew.floorperson[table.pk],
                                       crew.dealer[table.pk], {
                                           "deck_count": 2, "back_colours": "red / blue",
                                           "dealt_from": DeckSet.DealtFrom.AUTOMATED_SHOE, "automated_shuffler": True,
                                           "identifiers": f"{table.number} decks {at:%y%m%d}-{change}"}))
    return changes


def equipment_scale_seed(*, plan: ScalePlan) -> str:
    tables = list(GamingTable.objects.filter(facility=plan.facility).select_related("game").order_by("number"))
    requirements = {r.game_id: r for r in EquipmentRequirement.objects.all()}
    dice_tables = [t for t in tables if t.game_id in requirements and requirements[t.game_id].dice_count
                   and not requirements[t.game_id].dice_method_per_table]
    deck_tables = [t for t in tables if t.game_id in requirements and requirements[t.game_id].uses_decks]
    inspected = [t for t in tables if t.game_id in requirements and requirements[t.game_id].opening_inspection_required]
    crew = _Crew(plan, tables)
    people = {*crew.floorperson.values(), *crew.dealer.values(), plan.people[Role.SHIFT_MANAGER]}
    logged = 0
    with entered_beside(signing_passwords(people)) as password:
        start = day_bounds(plan.facility, plan.first_day)[0]
        with travel(start - timedelta(days=30)), beside_writes():
            _approvals(plan)
        with travel(start), beside_writes():
            for table in deck_tables:  # the starting position by the approved random number generator
                services.dice_method_record(table=table, user=plan.people[Role.SHIFT_MANAGER], method=DiceMethod.RNG)
        for number, day in enumerate(plan.each_day()):
            changes = _day(plan, day, number, crew, requirements, inspected, dice_tables, deck_tables)
            # One transaction a day, committed at its end: what runs at commit (the breach sync) runs then.
            with travel(day_bounds(plan.facility, day)[0] + timedelta(hours=23, minutes=55)), beside_writes():
                if plan.floor_through_services:
                    for change in changes:
                        change.through_services(password)
                else:
                    written_in_bulk(changes)
            logged += len(changes)
            if (number + 1) % 30 == 0:
                plan.say(f"    equipment: {number + 1} of {plan.days} gaming days, {logged:,} records")
    return (f"{logged:,} records: dice changed daily at {len(dice_tables)} tables, decks every {DECK_HOURS} hours at "
            f"{len(deck_tables)}, {len(inspected)} Sic Bo devices inspected each morning")
