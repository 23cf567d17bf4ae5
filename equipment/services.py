"""Writes of the equipment logs: tables opened and closed, dice and decks in and out of play,
opening inspections, malfunctions, and the sweep that raises and resolves overdue alerts.

Every rule is applied here, with a message that says what to do and cites the clause.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import CharField, Q, Value
from django.utils import timezone

from compliance.models import GamingTable
from compliance.roles import Capability, require_capability
from compliance.services import signature_sign
from equipment.models import (
    DeckRemoval,
    DeckSet,
    DiceRemoval,
    DiceSet,
    EquipmentAlert,
    EquipmentRequirement,
    Malfunction,
    OpeningInspection,
    RemovalReason,
    TableSession,
)

__all__ = [
    "DUE_SOON",
    "SweepResult",
    "alert_notify",
    "deck_set_change",
    "deck_set_place",
    "deck_set_remove",
    "devices_for",
    "dice_set_change",
    "dice_set_place",
    "dice_set_remove",
    "equipment_sweep",
    "inspection_record",
    "malfunction_record",
    "table_close",
    "table_open",
]

# The sweep warns this long before a change falls due (issue 4: "due within 30 minutes").
DUE_SOON = timedelta(minutes=30)


def _local(dt: datetime) -> str:
    """A time as a floorperson says it: "21:04", "21:04 yesterday" or "21:04 on 3 Nov"."""
    local = timezone.localtime(dt)
    today = timezone.localdate()
    if local.date() == today:
        return f"{local:%H:%M}"
    if local.date() == today - timedelta(days=1):
        return f"{local:%H:%M} yesterday"
    return f"{local:%H:%M} on {local:%-d %b}"


def requirement_for(table: GamingTable) -> EquipmentRequirement:
    requirement = EquipmentRequirement.objects.filter(game_id=table.game_id).first()
    if requirement is None:
        raise ValidationError(
            f"No equipment requirements are recorded for {table.game}; the equipment log is not used."
        )
    return requirement


def _locked_table(table: GamingTable) -> GamingTable:
    return GamingTable.objects.select_for_update().select_related("game").get(pk=table.pk)


def _same_facility(user: Any, table: GamingTable) -> None:
    profile = getattr(user, "profile", None)
    if profile is None or not profile.facilities.filter(pk=table.facility_id).exists():
        raise ValidationError(f"You are not assigned to the facility of table {table.number}.")


def _sign(record: Any, slot: str, user: Any, password: str) -> None:
    signature_sign(record=record, slot=slot, user=user, password=password)


# --- table sessions --------------------------------------------------------------------------------


def _last_closed_at(table: GamingTable) -> datetime | None:
    last = TableSession.objects.filter(table=table, closed_at__isnull=False).order_by("-closed_at").first()
    return last.closed_at if last else None


def _check_dice_for_opening(table: GamingTable, requirement: EquipmentRequirement, at: datetime) -> None:
    dice = DiceSet.objects.filter(table=table, removed_at__isnull=True).first()
    cite = f"§ {requirement.dice_citation}"
    if dice is None:
        if requirement.uses_dice and requirement.dice_required_to_open:
            raise ValidationError(
                f"Table {table.number} cannot open without a set of dice in play ({cite}): put a new set in play."
            )
        return
    if dice.overdue_at(at):
        raise ValidationError(
            f"Table {table.number} cannot open with the dice placed at {_local(dice.placed_at)}: they are past "
            f"their {requirement.dice_max_hours}-hour limit ({cite}). Put a new set in play."
        )
    closed_at = _last_closed_at(table)
    # Reopening needs a set put in play after the table last closed: § 577.4(d) for Three Dice
    # Football; for the other dice games the issue makes it the facility's internal control.
    if requirement.new_dice_on_reopen and closed_at is not None and dice.placed_at < closed_at:
        raise ValidationError(
            f"Table {table.number} cannot reopen with the dice placed at {_local(dice.placed_at)}: "
            f"a new set of dice is used when a table is reopened for gaming (§ 577.4(d); {cite}). "
            "Put a new set in play."
        )


def _check_decks_for_opening(table: GamingTable, requirement: EquipmentRequirement, at: datetime) -> None:
    if not requirement.uses_decks:
        return
    deck = DeckSet.objects.filter(table=table, removed_at__isnull=True).first()
    if deck is None:
        raise ValidationError(
            f"Table {table.number} cannot open without cards inspected by the dealer and verified by the "
            "floorperson (§ 575.4(a)): log the decks put into play."
        )
    if deck.overdue_at(at):
        raise ValidationError(
            f"Table {table.number} cannot open with the cards put in play at {_local(deck.placed_at)}: they are "
            f"past their change time (§ {requirement.deck_citation}). Change the cards."
        )


def _check_inspection_for_opening(table: GamingTable, requirement: EquipmentRequirement, at: datetime) -> None:
    if not requirement.opening_inspection_required:
        return
    # § 539.5(a): "prior to opening": a passing inspection of this gaming day, after the last closing.
    since = timezone.localtime(at).replace(hour=0, minute=0, second=0, microsecond=0)
    closed_at = _last_closed_at(table)
    if closed_at is not None and closed_at > since:
        since = closed_at
    inspection = (
        OpeningInspection.objects.filter(table=table, inspected_at__gte=since, inspected_at__lte=at)
        .order_by("-inspected_at")
        .first()
    )
    if inspection is None or not inspection.passed:
        problem = "failed its last inspection" if inspection else "has not been inspected today"
        raise ValidationError(
            f"Table {table.number} {problem}: the floorperson inspects the electrical device (three values "
            f"entered, every winning combination lit) and any automated shaker (three operations) before "
            f"opening (§ {requirement.inspection_citation})."
        )


@transaction.atomic
def table_open(*, table: GamingTable, user: Any, at: datetime | None = None) -> TableSession:
    """Open a table for gaming once its dice, decks and opening inspection allow it."""
    require_capability(user, Capability.OPEN_CLOSE_TABLES)
    _same_facility(user, table)
    at = at or timezone.now()
    table = _locked_table(table)
    if table.is_open:
        raise ValidationError(f"Table {table.number} is already open.")
    requirement = requirement_for(table)
    _check_inspection_for_opening(table, requirement, at)
    _check_dice_for_opening(table, requirement, at)
    _check_decks_for_opening(table, requirement, at)
    session = TableSession.objects.create(facility_id=table.facility_id, table=table, opened_at=at, opened_by=user)
    table.is_open = True
    table.save()
    return session


@transaction.atomic
def table_close(*, table: GamingTable, user: Any, at: datetime | None = None) -> TableSession | None:
    require_capability(user, Capability.OPEN_CLOSE_TABLES)
    _same_facility(user, table)
    at = at or timezone.now()
    table = _locked_table(table)
    if not table.is_open:
        raise ValidationError(f"Table {table.number} is already closed.")
    session = TableSession.objects.filter(table=table, closed_at__isnull=True).first()
    if session is not None:
        session.closed_at = max(at, session.opened_at)
        session.closed_by = user
        session.save()
    table.is_open = False
    table.save()
    return session


# --- dice ----------------------------------------------------------------------------------------------


def _normal(text: str) -> str:
    return "".join(text.lower().split())


def _resolve_alerts(*, dice_set: DiceSet | None = None, deck_set: DeckSet | None = None, at: datetime) -> None:
    """Resolve the set's open alerts in the transaction that logs the change."""
    alerts = EquipmentAlert.objects.filter(resolved_at__isnull=True)
    alerts = alerts.filter(dice_set=dice_set) if dice_set is not None else alerts.filter(deck_set=deck_set)
    for alert in alerts:
        alert.resolved_at = at
        alert.save()


@transaction.atomic
def dice_set_place(
    *,
    table: GamingTable,
    user: Any,
    password: str,
    dealer: Any,
    dealer_password: str,
    identifiers: str,
    dice_count: int,
    colours: str = "",
    placed_because: str = DiceSet.PlacedBecause.SCHEDULED,
    at: datetime | None = None,
) -> DiceSet:
    """Put a set of dice in play: placed by the floorperson in the dealer's presence, both signing.

    § 668a.3(d) has the floorperson place the dice in the shaker in the dealer's presence; the same
    two-person placement is used for every dice game so each set has a witness.
    """
    require_capability(user, Capability.VERIFY_EQUIPMENT)
    _same_facility(user, table)
    at = at or timezone.now()
    table = _locked_table(table)
    requirement = requirement_for(table)
    cite = f"§ {requirement.dice_citation}"
    if not requirement.uses_dice:
        raise ValidationError(f"{table.game} is not played with dice.")
    if dealer is None or dealer.pk == user.pk:
        raise ValidationError(
            "The dice are placed by the floorperson in the presence of a different person, the dealer."
        )
    allowed = requirement.allowed_dice_counts()
    if dice_count not in allowed:
        counts = " or ".join(str(n) for n in sorted(allowed))
        raise ValidationError(f"{table.game} is played with {counts} dice ({cite}); this set has {dice_count}.")
    if requirement.dice_colours and _normal(colours) != _normal(requirement.dice_colours):
        raise ValidationError(
            f"A {table.game} set is {requirement.dice_colours} ({cite}); the colours entered were {colours!r}."
        )
    if not identifiers.strip():
        raise ValidationError("Enter the dice serial numbers or lot.")
    current = DiceSet.objects.filter(table=table, removed_at__isnull=True).first()
    if current is not None:
        raise ValidationError(
            f"Table {table.number} already has the dice placed at {_local(current.placed_at)} in play: "
            "record their removal first (at most one set in play per table)."
        )
    try:
        with transaction.atomic():
            dice = DiceSet.objects.create(
                facility_id=table.facility_id,
                table=table,
                placed_at=at,
                due_at=at + timedelta(hours=requirement.dice_max_hours),
                floorperson=user,
                dealer=dealer,
                identifiers=identifiers.strip(),
                colours=colours.strip(),
                dice_count=dice_count,
                container=requirement.container,
                placed_because=placed_because,
            )
    except IntegrityError:
        raise ValidationError(f"Another set of dice was just put in play at table {table.number}.") from None
    _sign(dice, "floorperson", user, password)
    _sign(dice, "dealer", dealer, dealer_password)
    return dice


@transaction.atomic
def dice_set_remove(
    *,
    dice_set: DiceSet,
    user: Any,
    password: str,
    reason: str,
    dice_returned: int,
    dice_lost: int = 0,
    note: str = "",
    at: datetime | None = None,
    replacing: bool = False,
) -> DiceRemoval:
    """Take a set out of play, accounting for every die, and resolve its alerts."""
    require_capability(user, Capability.VERIFY_EQUIPMENT)
    table = _locked_table(dice_set.table)
    _same_facility(user, table)
    at = at or timezone.now()
    dice_set = DiceSet.objects.select_for_update().get(pk=dice_set.pk)
    if dice_set.removed_at is not None:
        raise ValidationError(f"These dice were already removed at {_local(dice_set.removed_at)}.")
    if at < dice_set.placed_at:
        raise ValidationError("Dice cannot be removed before they were placed.")
    if reason not in RemovalReason.values:
        raise ValidationError(f"Unknown reason {reason!r}.")
    # § 577.4(d) "removed dice are accounted for": every die is returned or recorded lost.
    if dice_returned + dice_lost != dice_set.dice_count:
        raise ValidationError(
            f"The set had {dice_set.dice_count} dice; {dice_returned} returned and {dice_lost} lost do not account "
            "for all of them."
        )
    if (reason == RemovalReason.DIE_LOST) != (dice_lost > 0):
        raise ValidationError("A lost die is recorded with the reason “die went off the table and was lost”.")
    requirement = requirement_for(table)
    # A lost or unsuitable die forces a new set at once (§ 577.4(d)); an open table never plays
    # without dice, so on an open table the removal must come with its replacement.
    if table.is_open and requirement.dice_required_to_open and not replacing:
        raise ValidationError(
            f"Table {table.number} is open: record the new set in the same change (§ {requirement.dice_citation})."
        )
    removal = DiceRemoval.objects.create(
        facility_id=table.facility_id,
        dice_set=dice_set,
        removed_at=at,
        reason=reason,
        note=note,
        dice_returned=dice_returned,
        dice_lost=dice_lost,
    )
    _sign(removal, "floorperson", user, password)
    dice_set.mark_removed(at)
    _resolve_alerts(dice_set=dice_set, at=at)
    return removal


_PLACED_BECAUSE = {
    RemovalReason.SCHEDULED: DiceSet.PlacedBecause.SCHEDULED,
    RemovalReason.TABLE_REOPENED: DiceSet.PlacedBecause.OPENING,
    RemovalReason.TABLE_CLOSED: DiceSet.PlacedBecause.OPENING,
}


@transaction.atomic
def dice_set_change(
    *,
    table: GamingTable,
    user: Any,
    password: str,
    dealer: Any,
    dealer_password: str,
    identifiers: str,
    dice_count: int,
    colours: str = "",
    reason: str = RemovalReason.SCHEDULED,
    dice_returned: int | None = None,
    dice_lost: int = 0,
    note: str = "",
    at: datetime | None = None,
) -> DiceSet:
    """Replace the set in play (if any) with a new one in one step: the usual change at the table."""
    at = at or timezone.now()
    current = DiceSet.objects.filter(table=table, removed_at__isnull=True).first()
    placed_because: str = DiceSet.PlacedBecause.OPENING if not table.is_open else DiceSet.PlacedBecause.SCHEDULED
    if current is not None:
        returned = current.dice_count - dice_lost if dice_returned is None else dice_returned
        dice_set_remove(
            dice_set=current,
            user=user,
            password=password,
            reason=reason,
            dice_returned=returned,
            dice_lost=dice_lost,
            note=note,
            at=at,
            replacing=True,
        )
        placed_because = _PLACED_BECAUSE.get(RemovalReason(reason), DiceSet.PlacedBecause.REPLACEMENT)
    return dice_set_place(
        table=table,
        user=user,
        password=password,
        dealer=dealer,
        dealer_password=dealer_password,
        identifiers=identifiers,
        dice_count=dice_count,
        colours=colours,
        placed_because=placed_because,
        at=at,
    )


# --- decks ---------------------------------------------------------------------------------------------


@transaction.atomic
def deck_set_place(
    *,
    table: GamingTable,
    user: Any,
    password: str,
    dealer: Any,
    dealer_password: str,
    deck_count: int,
    back_colours: str,
    dealt_from: str,
    automated_shuffler: bool = False,
    jokers_per_deck: int = 1,
    second_joker_torn: bool = False,
    identifiers: str = "",
    at: datetime | None = None,
) -> DeckSet:
    """Put cards into play: the dealer inspected them and the floorperson verified it (§ 575.4(a))."""
    require_capability(user, Capability.VERIFY_EQUIPMENT)
    _same_facility(user, table)
    at = at or timezone.now()
    table = _locked_table(table)
    requirement = requirement_for(table)
    if not requirement.uses_decks:
        raise ValidationError(f"{table.game} has no deck-change log.")
    if dealer is None or dealer.pk == user.pk:
        raise ValidationError("The dealer inspects the cards and a different person, the floorperson, verifies it.")
    if deck_count not in (1, 2) or deck_count > requirement.max_decks:
        raise ValidationError("Asia Poker is played with one deck, or two with an automated shuffler (§ 575.3).")
    colours = [c.strip().lower() for c in back_colours.replace(",", "/").split("/") if c.strip()]
    if deck_count == 2:
        if not automated_shuffler:
            raise ValidationError("Two decks may be used only with an automated card shuffling device (§ 575.3(b)).")
        if len(colours) != 2 or colours[0] == colours[1]:
            raise ValidationError(
                "With two decks, the backs of one deck are a different colour from the other (§ 575.3(b)(1)): "
                "enter both colours, e.g. red / blue."
            )
    elif not colours:
        raise ValidationError("Enter the back colour of the deck.")
    if jokers_per_deck not in (1, 2):
        raise ValidationError("A deck has one joker, or two of which only one is used (§ 575.3(a)).")
    if jokers_per_deck == 2 and not second_joker_torn:
        raise ValidationError(
            "The deck came with two jokers: tear the second in half and put it back in the deck's box before "
            "play (§ 575.4(b))."
        )
    if dealt_from == DeckSet.DealtFrom.HAND:
        hours = requirement.deck_hand_hours
    elif dealt_from in (DeckSet.DealtFrom.MANUAL_SHOE, DeckSet.DealtFrom.AUTOMATED_SHOE):
        hours = requirement.deck_shoe_hours
    else:
        raise ValidationError(f"Unknown dealing method {dealt_from!r}.")
    if not hours:
        raise ValidationError(f"No deck-change interval is recorded for {table.game}.")
    current = DeckSet.objects.filter(table=table, removed_at__isnull=True).first()
    if current is not None:
        raise ValidationError(
            f"Table {table.number} already has the cards put in play at {_local(current.placed_at)}: record their "
            "removal first."
        )
    try:
        with transaction.atomic():
            deck = DeckSet.objects.create(
                facility_id=table.facility_id,
                table=table,
                placed_at=at,
                # § 575.3(c): at least every 4 hours by hand, every 8 hours from a manual or automated shoe.
                due_at=at + timedelta(hours=hours),
                floorperson=user,
                dealer=dealer,
                deck_count=deck_count,
                back_colours=" / ".join(colours),
                identifiers=identifiers.strip(),
                dealt_from=dealt_from,
                automated_shuffler=automated_shuffler,
                jokers_per_deck=jokers_per_deck,
                second_joker_torn=second_joker_torn,
            )
    except IntegrityError:
        raise ValidationError(f"Other cards were just put in play at table {table.number}.") from None
    _sign(deck, "dealer", dealer, dealer_password)
    _sign(deck, "floorperson", user, password)
    return deck


@transaction.atomic
def deck_set_remove(
    *,
    deck_set: DeckSet,
    user: Any,
    password: str,
    reason: str,
    note: str = "",
    at: datetime | None = None,
    replacing: bool = False,
) -> DeckRemoval:
    require_capability(user, Capability.VERIFY_EQUIPMENT)
    table = _locked_table(deck_set.table)
    _same_facility(user, table)
    at = at or timezone.now()
    deck_set = DeckSet.objects.select_for_update().get(pk=deck_set.pk)
    if deck_set.removed_at is not None:
        raise ValidationError(f"These cards were already removed at {_local(deck_set.removed_at)}.")
    if at < deck_set.placed_at:
        raise ValidationError("Cards cannot be removed before they were put in play.")
    if reason not in RemovalReason.values:
        raise ValidationError(f"Unknown reason {reason!r}.")
    if table.is_open and not replacing:
        raise ValidationError(f"Table {table.number} is open: record the new cards in the same change (§ 575.3(c)).")
    removal = DeckRemoval.objects.create(
        facility_id=table.facility_id, deck_set=deck_set, removed_at=at, reason=reason, note=note
    )
    _sign(removal, "floorperson", user, password)
    deck_set.mark_removed(at)
    _resolve_alerts(deck_set=deck_set, at=at)
    return removal


@transaction.atomic
def deck_set_change(
    *,
    table: GamingTable,
    user: Any,
    password: str,
    reason: str = RemovalReason.SCHEDULED,
    note: str = "",
    at: datetime | None = None,
    **new_deck: Any,
) -> DeckSet:
    at = at or timezone.now()
    current = DeckSet.objects.filter(table=table, removed_at__isnull=True).first()
    if current is not None:
        deck_set_remove(deck_set=current, user=user, password=password, reason=reason, note=note, at=at, replacing=True)
    return deck_set_place(table=table, user=user, password=password, at=at, **new_deck)


# --- inspections and malfunctions -------------------------------------------------------------------


@transaction.atomic
def inspection_record(
    *,
    table: GamingTable,
    user: Any,
    password: str,
    values_entered: Sequence[int],
    combinations_illuminated: bool,
    automated_shaker_in_use: bool = False,
    shaker_operations: int = 0,
    shaker_tossed_properly: bool = False,
    note: str = "",
    at: datetime | None = None,
) -> OpeningInspection:
    """Record the floorperson's opening inspection (§ 539.5(a)); a failed one is recorded too."""
    require_capability(user, Capability.VERIFY_EQUIPMENT)
    _same_facility(user, table)
    at = at or timezone.now()
    requirement = requirement_for(table)
    if not requirement.opening_inspection_required:
        raise ValidationError(f"{table.game} has no opening inspection of an electrical device.")
    if table.is_open:
        raise ValidationError(f"Table {table.number} is open; the inspection is made before opening (§ 539.5(a)).")
    values = list(values_entered)
    # § 539.5(a)(1): "at a minimum ... entering three numeric values": three die values, 1 to 6.
    if len(values) != 3 or any(not 1 <= v <= 6 for v in values):
        raise ValidationError("Enter the three die values (1 to 6) entered into the electrical device (§ 539.5(a)(1)).")
    # § 539.5(a)(2): the automated shaker, if one is in use, is operated at least three times.
    shaker_ok = not automated_shaker_in_use or (shaker_operations >= 3 and shaker_tossed_properly)
    passed = bool(combinations_illuminated) and shaker_ok
    inspection = OpeningInspection.objects.create(
        facility_id=table.facility_id,
        table=table,
        inspected_at=at,
        values_entered="-".join(str(v) for v in values),
        combinations_illuminated=combinations_illuminated,
        automated_shaker_in_use=automated_shaker_in_use,
        shaker_operations=shaker_operations if automated_shaker_in_use else 0,
        shaker_tossed_properly=shaker_tossed_properly if automated_shaker_in_use else False,
        passed=passed,
        note=note,
    )
    _sign(inspection, "floorperson", user, password)
    return inspection


def devices_for(requirement: EquipmentRequirement) -> set[str]:
    devices: set[str] = set()
    if requirement.opening_inspection_required:
        devices |= {Malfunction.Device.SIC_BO_DISPLAY, Malfunction.Device.SIC_BO_SHAKER}
    if requirement.uses_decks:
        devices |= {Malfunction.Device.CARD_SHUFFLER, Malfunction.Device.DEALING_SHOE}
    return devices


@transaction.atomic
def malfunction_record(
    *,
    table: GamingTable,
    user: Any,
    password: str,
    device: str,
    description: str,
    round_outcome: str,
    out_of_order: bool = False,
    at: datetime | None = None,
) -> Malfunction:
    """Record a device malfunction and what happened to the round, as the clause requires."""
    require_capability(user, Capability.VERIFY_EQUIPMENT)
    _same_facility(user, table)
    at = at or timezone.now()
    requirement = requirement_for(table)
    if device not in devices_for(requirement):
        raise ValidationError(f"{table.game} has no {Malfunction.Device(device).label.lower()}.")
    expected, clause = Malfunction.OUTCOMES[device]
    if round_outcome != expected:
        raise ValidationError(
            f"When the {Malfunction.Device(device).label.lower()} malfunctions, § {clause} requires: "
            f"{Malfunction.RoundOutcome(expected).label.lower()}."
        )
    if not description.strip():
        raise ValidationError("Describe what happened.")
    malfunction = Malfunction.objects.create(
        facility_id=table.facility_id,
        table=table,
        occurred_at=at,
        device=device,
        description=description.strip(),
        round_outcome=round_outcome,
        out_of_order=out_of_order,
    )
    _sign(malfunction, "floorperson", user, password)
    return malfunction


# --- the sweep -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DueItem:
    kind: str  # "dice" or "deck"
    pk: int
    table_id: int
    table_number: str
    facility_id: int
    due_at: datetime

    def overdue(self, now: datetime) -> bool:
        return now > self.due_at


@dataclass
class SweepResult:
    due: list[DueItem] = field(default_factory=list)
    overdue: list[DueItem] = field(default_factory=list)
    raised: list[int] = field(default_factory=list)  # ids of alerts raised by this run


def due_in_play(now: datetime, *, facility_id: int | None = None) -> list[DueItem]:
    """Every set in play at an open table that is due within 30 minutes or overdue: ONE query.

    A UNION of the dice and deck logs, each filtered on the indexed ``due_at`` of sets still in
    play (partial index ``*_due_in_play_idx``) and joined to the open tables.
    """
    horizon = now + DUE_SOON
    columns = ("kind", "pk", "table_id", "table__number", "facility_id", "due_at")

    def part(model: type[DiceSet] | type[DeckSet], kind: str) -> Any:
        qs = model.objects.filter(removed_at__isnull=True, table__is_open=True, due_at__lte=horizon)
        if facility_id is not None:
            qs = qs.filter(facility_id=facility_id)
        return qs.annotate(kind=Value(kind, output_field=CharField())).values_list(*columns).order_by()

    rows = part(DiceSet, "dice").union(part(DeckSet, "deck"), all=True)
    items = [DueItem(*row) for row in rows]
    return sorted(items, key=lambda i: (i.due_at, i.table_number))


@transaction.atomic
def equipment_sweep(*, now: datetime | None = None) -> SweepResult:
    """Raise one alert per overdue set (idempotent under the unique constraint), then notify.

    Running twice raises nothing new: an existing alert for the set and kind is found, not duplicated.
    Alerts are resolved by the removal services in the transaction that logs the change.
    """
    now = now or timezone.now()
    items = due_in_play(now)
    result = SweepResult(due=items, overdue=[i for i in items if i.overdue(now)])
    if not result.overdue:
        return result
    dice_ids = [i.pk for i in result.overdue if i.kind == "dice"]
    deck_ids = [i.pk for i in result.overdue if i.kind == "deck"]
    existing = set(
        EquipmentAlert.objects.filter(
            Q(dice_set_id__in=dice_ids) | Q(deck_set_id__in=deck_ids), kind=EquipmentAlert.Kind.OVERDUE
        ).values_list("dice_set_id", "deck_set_id")
    )
    for item in result.overdue:
        key = (item.pk, None) if item.kind == "dice" else (None, item.pk)
        if key in existing:
            continue
        target = {"dice_set_id": item.pk} if item.kind == "dice" else {"deck_set_id": item.pk}
        alert, created = EquipmentAlert.objects.get_or_create(
            kind=EquipmentAlert.Kind.OVERDUE,
            **target,
            defaults={
                "facility_id": item.facility_id,
                "table_id": item.table_id,
                "due_at": item.due_at,
                "raised_at": now,
            },
        )
        if created:
            result.raised.append(alert.pk)
    if result.raised:
        from equipment.tasks import notify_equipment_alerts

        raised = list(result.raised)
        transaction.on_commit(lambda: notify_equipment_alerts.delay(raised))
    return result


def alert_notify(*, alert_ids: Sequence[int]) -> int:
    """E-mail the floorpersons and shift managers of each alert's facility; returns e-mails sent."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.mail import send_mail

    from compliance.roles import Role

    alerts = list(
        EquipmentAlert.objects.filter(pk__in=alert_ids, resolved_at__isnull=True, notified_at__isnull=True)
        .select_related("facility", "table")
        .order_by("facility_id", "due_at")
    )
    by_facility: dict[int, list[EquipmentAlert]] = {}
    for alert in alerts:
        by_facility.setdefault(alert.facility_id, []).append(alert)
    sent = 0
    user_model = get_user_model()
    for facility_alerts in by_facility.values():
        facility = facility_alerts[0].facility
        recipients = sorted(
            set(
                user_model.objects.filter(
                    is_active=True,
                    profile__active=True,
                    profile__facilities=facility,
                    groups__name__in=[Role.FLOORPERSON, Role.SHIFT_MANAGER],
                )
                .exclude(email="")
                .values_list("email", flat=True)
            )
            | ({facility.notification_email} if facility.notification_email else set())
        )
        lines = [
            f"{alert} — overdue by {_duration(timezone.now() - alert.due_at)}. Change the equipment and log it."
            for alert in facility_alerts
        ]
        if recipients:
            send_mail(
                subject=f"[{facility.name}] Equipment change overdue at {len(facility_alerts)} table(s)",
                message="\n".join(lines) + "\n\n58 Pa. Code § 577.4(d), § 675a.3(b)(1), § 668a.3(b)(1), "
                "§ 539.2(b), § 575.2(c)(1)(i), § 575.3(c).\n",
                from_email=settings.DEFAULT_FROM_EMAIL,
                recipient_list=recipients,
            )
            sent += 1
        now = timezone.now()
        for alert in facility_alerts:
            alert.notified_at = now
            alert.save()
    return sent


def _duration(delta: timedelta) -> str:
    minutes = max(0, int(delta.total_seconds() // 60))
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"
