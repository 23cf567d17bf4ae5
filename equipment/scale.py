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

from datetime import datetime, timedelta

from compliance.demo import signing_passwords
from compliance.gaming_day import day_bounds
from compliance.models import GamingTable
from compliance.roles import Role
from compliance.scale import ScalePlan, travel
from compliance.scale_turns import beside_writes, entered_beside
from equipment import services
from equipment.approval_kinds import KINDS
from equipment.models import DeckSet, DiceMethod, EquipmentApproval, EquipmentRequirement

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


def _dice(table: GamingTable, requirement: EquipmentRequirement, crew: _Crew, password: str, at: datetime) -> None:
    services.dice_set_change(
        table=table, user=crew.floorperson[table.pk], password=password, dealer=crew.dealer[table.pk],
        dealer_password=password, identifiers=f"{table.number} {at:%y%m%d}", dice_count=requirement.dice_count,
        colours=requirement.dice_colours, dice_returned=None, at=at)


def _decks(table: GamingTable, crew: _Crew, password: str, at: datetime, n: int) -> None:
    services.deck_set_change(
        table=table, user=crew.floorperson[table.pk], password=password, at=at, dealer=crew.dealer[table.pk],
        dealer_password=password, deck_count=2, back_colours="red / blue", dealt_from=DeckSet.DealtFrom.AUTOMATED_SHOE,
        automated_shuffler=True, identifiers=f"{table.number} decks {at:%y%m%d}-{n}")


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
            opens = day_bounds(plan.facility, day)[0]
            # One transaction a day, committed at its end: what runs at commit (the breach sync) runs then.
            with travel(opens + timedelta(hours=23, minutes=55)), beside_writes():
                for table in inspected:
                    at = opens + timedelta(minutes=30)
                    with travel(at):
                        services.inspection_record(table=table, user=crew.floorperson[table.pk], password=password,
                                                   values_entered=[1 + number % 6, 3, 6], combinations_illuminated=True)
                for index, table in enumerate(dice_tables):
                    at = opens + timedelta(minutes=40 + 11 * index % 1200)
                    with travel(at):
                        _dice(table, requirements[table.game_id], crew, password, at)
                for index, table in enumerate(deck_tables):
                    for change in range(24 // DECK_HOURS):
                        at = opens + timedelta(hours=DECK_HOURS * change, minutes=5 + 3 * index)
                        with travel(at):
                            _decks(table, crew, password, at, change)
            logged += len(dice_tables) + len(deck_tables) * (24 // DECK_HOURS) + len(inspected)
            if (number + 1) % 30 == 0:
                plan.say(f"    equipment: {number + 1} of {plan.days} gaming days, {logged:,} records")
    return (f"{logged:,} records: dice changed daily at {len(dice_tables)} tables, decks every {DECK_HOURS} hours at "
            f"{len(deck_tables)}, {len(inspected)} Sic Bo devices inspected each morning")
