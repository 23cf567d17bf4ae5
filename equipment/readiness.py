"""The equipment's part of a table's readiness (``compliance.readiness``): dice and cards in play and within their
time, the opening inspection, a device that stopped gaming back in service, Asia Poker's configuration, and an
approval in force for every device the game's chapter requires approved. Two queries for any number of tables.

A game with no equipment requirement (Craps, Roulette, Blackjack: no dice or cards of these chapters) has none
here: it opens when the other chapters' requirements hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.urls import reverse

from compliance.gaming_day import gaming_day
from compliance.models import Facility, GamingTable
from compliance.readiness import Unmet
from equipment import selectors
from equipment.approval_kinds import kinds_for
from equipment.clocks import local_words
from equipment.opening import Need, opening_needs, while_open_needs

__all__ = ["equipment_unmet"]

_WHO = {
    "device": "a floorperson (back in service) and the dealer",
    "inspection": "the floorperson assigned to the table",
    "method": "a shift manager",
    "configuration": "a floorperson",
    "dice": "a floorperson with the dealer",
    "cards": "the dealer with the floorperson assigned to the table",
}


def _unmet(need: Need, table: GamingTable) -> Unmet:
    links = {"method": "equipment:dice-method", "dice": "equipment:dice-change", "cards": "equipment:deck-change",
             "inspection": "equipment:inspection-create", "configuration": "equipment:deck-change"}
    link = reverse(links.get(need.code, "equipment:table"), args=[table.pk])
    return Unmet(f"equipment:{need.code}", need.clause, need.words, need.short,
                 _WHO.get(need.code, "a floorperson"), link)


def equipment_unmet(facility: Facility, tables: Sequence[GamingTable], at: datetime) -> dict[int, list[Unmet]]:
    found: dict[int, list[Unmet]] = {t.pk: [] for t in tables}
    approvals = selectors.approvals_in_force(facility, gaming_day(facility, at))
    for table, facts in selectors.tables_with_facts([t.pk for t in tables], at):
        requirement = getattr(table.game, "equipment_requirement", None)
        if requirement is not None:
            def when(moment: datetime) -> str:
                return local_words(moment, facility)
            needs = (while_open_needs if table.is_open else opening_needs)(requirement, facts, at, when)
            found[table.pk] += [_unmet(need, table) for need in needs]
        for kind in kinds_for(table.game.code, facts.dice_method):
            approval = approvals.get(kind.code)
            problem = ""
            if approval is None:
                problem = f"no approval by the {kind.bureau} is in force for the {kind.label.lower()}"
            elif kind.needs_logo and not approval.bears_logo:
                problem = f"the approved {kind.label.lower()} ({approval.device}) is not recorded as bearing the name " \
                          f"or logo of the certificate holder"
            elif kind.needs_lockout and not approval.has_lockout:
                problem = f"the approved {kind.label.lower()} ({approval.device}) is not recorded with its lock-out"
            if problem:
                found[table.pk].append(Unmet(
                    f"approval:{kind.code}", kind.clause,
                    f"Table {table.number}: {problem} (§ {kind.clause}). Record the approval in the register of "
                    f"approved equipment before the table is used.",
                    "approved " + kind.label.split(" (")[0].lower(), "the compliance officer",
                    reverse("equipment:approvals")))
    return found
