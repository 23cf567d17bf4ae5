"""A generated day's equipment logs (``equipment.scale``) written in bulk, each row as the services write it.

The floor's day is a list of :class:`FloorChange` in the order the floorpersons make them: each Sic Bo device's
opening inspection, each dice table's change of set, each Asia Poker table's change of decks. Either each goes
through its service (:meth:`FloorChange.through_services`, the clock at its moment: ``--floor-through-services``),
or the whole day is given to :func:`written_in_bulk`, which tells a :class:`compliance.bulk_records.RecordBatch`
what each service does, in its order, and writes it in a few statements a model:

* a dice change (``equipment.services.dice.dice_set_change``): the set in play removed — the removal (every die
  returned), the floorperson's signature on it, the set's ``removed_at`` (unsigned, § 577.4(d)) — then the new set,
  its entry in the register of dice, the floorperson's signature and the dealer's (§ 668a.3(d));
* a change of decks (``deck_set_change``): the removal and its signature, the decks' ``removed_at``, the new decks,
  the dealer's signature (inspected) then the floorperson's (verified, § 575.4(a));
* an opening inspection (``inspection_record``, § 539.5(a)): the record and the floorperson's signature;
* any equipment alert still open on a set taken out of play resolved at that moment (``removal_finish``).

The values are computed by the services' own functions where they compute them (the due time by
``equipment.clocks.after``, the back colours and the change interval by the deck service's, the register key by
``equipment.identifiers.dice_key``). What the services check before writing (the person's role, roster and
password, the table's devices) is not checked again here: the generator's plan is one the services accept, and
``tests/equipment/test_scale_bulk.py`` writes the same days both ways and compares every row, history row,
signature and audit event. The database checks every row as it checks a service's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from compliance.bulk_records import RecordBatch
from compliance.models import GamingTable
from compliance.scale import travel
from equipment import services
from equipment.clocks import after
from equipment.identifiers import dice_key
from equipment.models import (
    DeckRemoval,
    DeckSet,
    DiceRegisterEntry,
    DiceRemoval,
    DiceSet,
    EquipmentAlert,
    EquipmentRequirement,
    OpeningInspection,
    RemovalReason,
)
from equipment.services.decks import _back_colours, _change_hours

__all__ = ["FloorChange", "written_in_bulk"]

DICE, DECKS, INSPECTION = "dice", "decks", "inspection"


@dataclass(frozen=True)
class FloorChange:
    """One record of the floor's day: ``kind`` at ``table`` at ``at`` by its floorperson (and dealer); ``values``
    what the form is filled with (a dice set: identifiers, count, colours; decks: their count, backs, identifiers,
    how they are dealt; an inspection: the three values entered)."""

    kind: str
    table: GamingTable
    requirement: EquipmentRequirement
    at: datetime
    floorperson: Any
    dealer: Any = None
    values: dict[str, Any] = field(default_factory=dict)

    def through_services(self, password: str) -> None:
        """The record written by its service, the clock at its moment."""
        with travel(self.at):
            if self.kind == DICE:
                services.dice_set_change(
                    table=self.table, user=self.floorperson, password=password, dealer=self.dealer,
                    dealer_password=password, dice_returned=None, at=self.at, **self.values)
            elif self.kind == DECKS:
                services.deck_set_change(
                    table=self.table, user=self.floorperson, password=password, at=self.at, dealer=self.dealer,
                    dealer_password=password, **self.values)
            else:
                services.inspection_record(table=self.table, user=self.floorperson, password=password,
                                           combinations_illuminated=True, **self.values)


@dataclass
class _InPlay:
    """The sets in play at the day's tables, read once (locked, as each service locks the one it removes), then
    kept as the day's changes replace them."""

    dice: dict[int, DiceSet]
    decks: dict[int, DeckSet]
    alerts: dict[tuple[str, int], list[EquipmentAlert]]

    @classmethod
    def read(cls, changes: Sequence[FloorChange]) -> _InPlay:
        dice_tables = {c.table.pk for c in changes if c.kind == DICE}
        deck_tables = {c.table.pk for c in changes if c.kind == DECKS}
        dice = {s.table_id: s for s in DiceSet.objects.select_for_update(of=("self",)).select_related("table")
                .filter(table_id__in=dice_tables, removed_at__isnull=True)}
        decks = {s.table_id: s for s in DeckSet.objects.select_for_update(of=("self",)).select_related("table")
                 .filter(table_id__in=deck_tables, removed_at__isnull=True)}
        alerts: dict[tuple[str, int], list[EquipmentAlert]] = {}
        for alert in EquipmentAlert.objects.filter(resolved_at__isnull=True).filter(
                dice_set__in=[s.pk for s in dice.values()]) | EquipmentAlert.objects.filter(
                resolved_at__isnull=True, deck_set__in=[s.pk for s in decks.values()]):
            key = (DICE, alert.dice_set_id) if alert.dice_set_id else (DECKS, alert.deck_set_id)
            alerts.setdefault(key, []).append(alert)
        return cls(dice, decks, alerts)


def _removed(batch: RecordBatch, in_play: _InPlay, change: FloorChange, current: Any, removal: Any) -> None:
    """``removal_finish``: the removal signed by the floorperson, the set out of play, its alerts resolved."""
    batch.create(removal, actor=change.floorperson, at=change.at)
    batch.sign(removal, "floorperson", signer=change.floorperson, at=change.at)
    batch.change(current, actor=change.floorperson, at=change.at, removed_at=change.at)
    for alert in in_play.alerts.get((change.kind, current.pk), []):
        batch.change(alert, actor=change.floorperson, at=change.at, resolved_at=change.at)


def _dice(batch: RecordBatch, in_play: _InPlay, change: FloorChange) -> None:
    table, requirement, values = change.table, change.requirement, change.values
    current = in_play.dice.get(table.pk)
    placed_because = DiceSet.PlacedBecause.OPENING if not table.is_open else DiceSet.PlacedBecause.SCHEDULED
    if current is not None:
        removal = DiceRemoval(facility_id=table.facility_id, dice_set=current, removed_at=change.at,
                              reason=RemovalReason.SCHEDULED, note="", dice_returned=current.dice_count, dice_lost=0)
        _removed(batch, in_play, change, current, removal)
        placed_because = DiceSet.PlacedBecause.SCHEDULED  # dice_set_change's _PLACED_BECAUSE of a scheduled change
    identifiers = values["identifiers"].strip()
    dice = DiceSet(facility_id=table.facility_id, table=table, placed_at=change.at,
                   due_at=after(change.at, timedelta(hours=requirement.dice_max_hours)), floorperson=change.floorperson,
                   dealer=change.dealer, identifiers=identifiers, colours=values["colours"].strip(),
                   dice_count=values["dice_count"], container=requirement.container, placed_because=placed_because)
    batch.create(dice, actor=change.floorperson, at=change.at)
    batch.create(DiceRegisterEntry(facility_id=table.facility_id, key=dice_key(identifiers), identifiers=identifiers,
                                   dice_set=dice, registered_at=change.at), actor=change.floorperson, at=change.at)
    batch.sign(dice, "floorperson", signer=change.floorperson, at=change.at)
    batch.sign(dice, "dealer", signer=change.dealer, at=change.at)
    in_play.dice[table.pk] = dice


def _decks(batch: RecordBatch, in_play: _InPlay, change: FloorChange) -> None:
    table, requirement, values = change.table, change.requirement, change.values
    current = in_play.decks.get(table.pk)
    if current is not None:
        removal = DeckRemoval(facility_id=table.facility_id, deck_set=current, removed_at=change.at,
                              reason=RemovalReason.SCHEDULED, note="")
        _removed(batch, in_play, change, current, removal)
    shuffler = values.get("automated_shuffler", False)
    colours = _back_colours(requirement, values["deck_count"], values["back_colours"], shuffler)
    hours = _change_hours(table, requirement, values["dealt_from"])
    decks = DeckSet(facility_id=table.facility_id, table=table, placed_at=change.at,
                    due_at=after(change.at, timedelta(hours=hours)), floorperson=change.floorperson,
                    dealer=change.dealer, deck_count=values["deck_count"], back_colours=" / ".join(colours),
                    identifiers=values.get("identifiers", "").strip(), dealt_from=values["dealt_from"],
                    automated_shuffler=shuffler, jokers_per_deck=values.get("jokers_per_deck", 1),
                    second_joker_torn=values.get("second_joker_torn", False))
    batch.create(decks, actor=change.floorperson, at=change.at)
    batch.sign(decks, "dealer", signer=change.dealer, at=change.at)
    batch.sign(decks, "floorperson", signer=change.floorperson, at=change.at)
    in_play.decks[table.pk] = decks


def _inspection(batch: RecordBatch, change: FloorChange) -> None:
    table, values = change.table, [int(v) for v in change.values["values_entered"]]
    inspection = OpeningInspection(
        facility_id=table.facility_id, table=table, inspected_at=change.at,
        values_entered="-".join(str(v) for v in values), combinations_illuminated=True, automated_shaker_in_use=False,
        shaker_operations=0, shaker_tossed_properly=False, passed=True, note="")
    batch.create(inspection, actor=change.floorperson, at=change.at)
    batch.sign(inspection, "floorperson", signer=change.floorperson, at=change.at)


def written_in_bulk(changes: Sequence[FloorChange]) -> None:
    """The day's ``changes``, in their order, written as their services write them (in the caller's transaction)."""
    in_play = _InPlay.read(changes)
    batch = RecordBatch()
    for change in changes:
        if change.kind == DICE:
            _dice(batch, in_play, change)
        elif change.kind == DECKS:
            _decks(batch, in_play, change)
        else:
            _inspection(batch, change)
    batch.write()
