"""Writes of the equipment logs: tables opened and closed, dice and decks in and out of play,
opening inspections, malfunctions, and the sweep that raises and resolves overdue alerts.

Every rule is applied here, with a message that says what to do and cites the clause.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import CharField, Q, Value
from django.utils import timezone

from compliance.models import GamingTable, regulated_bulk_create
from compliance.roles import Capability, require_capability, roles_of
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

# § 539.5(a) says only "prior to opening". Reading (docs/equipment.md): a passing inspection made
# after the table last closed and at most this long before the opening; the gaming day's midnight
# plays no part, so 23:50 opens a table at 00:10.
INSPECTION_VALID_FOR = timedelta(hours=4)


def after(at: datetime, duration: timedelta) -> datetime:
    """``at`` plus a span of real time: arithmetic on an aware local datetime adds wall-clock time,
    which is an hour off across a daylight-saving change (a 24-hour limit is 24 hours of real time)."""
    return at.astimezone(UTC) + duration


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


def _sign(record: Any, slot: str, user: Any, password: str, *, co_signer: bool = False) -> None:
    signature_sign(record=record, slot=slot, user=user, password=password, co_signer=co_signer)


# --- table sessions --------------------------------------------------------------------------------


def _last_closed_at(table: GamingTable) -> datetime | None:
    last = TableSession.objects.filter(table=table, closed_at__isnull=False).order_by("-closed_at").first()
    return last.closed_at if last else None


def _last_opened_at(table: GamingTable) -> datetime | None:
    last = TableSession.objects.filter(table=table).order_by("-opened_at").first()
    return last.opened_at if last else None


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
    # Reopening needs a set put in play after the table last closed: § 577.4(d) for Three Dice
    # Football; for the other dice games the issue makes it the facility's internal control. A set
    # placed before the table's last opening has been through an opening and, the table being closed
    # now, through a closing too, whether or not that closing was recorded.
    closed_at, opened_at = _last_closed_at(table), _last_opened_at(table)
    used_before = (closed_at is not None and dice.placed_at < closed_at) or (
        opened_at is not None and dice.placed_at <= opened_at
    )
    if requirement.new_dice_on_reopen and used_before:
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
    # § 539.5(a): "prior to opening": a passing inspection made after the table last closed and
    # within INSPECTION_VALID_FOR before the opening (midnight does not matter: 23:50 opens 00:10).
    since = at.astimezone(UTC) - INSPECTION_VALID_FOR
    closed_at = _last_closed_at(table)
    if closed_at is not None and closed_at > since:
        since = closed_at
    inspection = (
        OpeningInspection.objects.filter(table=table, inspected_at__gte=since, inspected_at__lte=at)
        .order_by("-inspected_at")
        .first()
    )
    if inspection is None or not inspection.passed:
        hours = int(INSPECTION_VALID_FOR.total_seconds() // 3600)
        problem = (
            "failed its last inspection"
            if inspection
            else f"has not been inspected since it last closed and within {hours} hours before opening"
        )
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
    stale = TableSession.objects.select_for_update().filter(table=table, closed_at__isnull=True).first()
    if stale is not None:
        # The table was marked closed outside the log: its session ends now, when that is noticed.
        stale.closed_at = max(at, stale.opened_at)
        stale.closed_by = user
        stale.save()
    session = TableSession.objects.create(facility_id=table.facility_id, table=table, opened_at=at, opened_by=user)
    table.is_open = True
    table.save()
    return session


def _marked_open(table: GamingTable, at: datetime) -> tuple[datetime, int | None]:
    """When (and by whom) the table was last marked open, from its history; ``at`` if unknown."""
    history = table.history.filter(history_date__lte=at)
    last_closed = history.filter(is_open=False).order_by("-history_date", "-history_id").first()
    opened = history.filter(is_open=True)
    if last_closed is not None:
        opened = opened.filter(history_date__gt=last_closed.history_date)
    row = opened.order_by("history_date", "history_id").first()
    return (row.history_date, row.history_user_id) if row is not None else (at, None)


@transaction.atomic
def table_close(*, table: GamingTable, user: Any, at: datetime | None = None) -> TableSession:
    """Close a table; the closing is always recorded, so the reopening rule (§ 577.4(d)) applies.

    A table marked open outside the log (no open session) gets its session written now, flagged
    ``opening_unrecorded``, its opening taken from the table's history: otherwise it could close
    without a record and reopen with the same dice.
    """
    require_capability(user, Capability.OPEN_CLOSE_TABLES)
    _same_facility(user, table)
    at = at or timezone.now()
    table = _locked_table(table)
    if not table.is_open:
        raise ValidationError(f"Table {table.number} is already closed.")
    session = TableSession.objects.select_for_update().filter(table=table, closed_at__isnull=True).first()
    if session is None:
        opened_at, opened_by_id = _marked_open(table, at)
        session = TableSession(
            facility_id=table.facility_id,
            table=table,
            opened_at=opened_at,
            opened_by_id=opened_by_id or user.pk,
            opening_unrecorded=True,
        )
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
                due_at=after(at, timedelta(hours=requirement.dice_max_hours)),
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
    _sign(dice, "dealer", dealer, dealer_password, co_signer=True)
    return dice


def _check_dice_lost(dice_set: DiceSet, dice_lost: int) -> None:
    if not 0 <= dice_lost <= dice_set.dice_count:
        raise ValidationError(
            f"Dice lost must be between 0 and {dice_set.dice_count}, the number of dice in the set in play; "
            f"{dice_lost} was entered."
        )


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
    _check_dice_lost(dice_set, dice_lost)
    if dice_returned < 0:
        raise ValidationError("The number of dice returned cannot be negative.")
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
        _check_dice_lost(current, dice_lost)
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
                due_at=after(at, timedelta(hours=hours)),
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
    _sign(deck, "dealer", dealer, dealer_password, co_signer=True)
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
    signer = OpeningInspection.requirement("floorperson")
    if signer is not None and signer.roles and not roles_of(user) & signer.roles:
        # Said on the form, before anything is written, rather than a refused signature (403).
        raise ValidationError(
            "The opening inspection is made and signed by the floorperson assigned to the table "
            f"(§ {requirement.inspection_citation}); ask the floorperson to record it."
        )
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


_CARD_DEVICES = {Malfunction.Device.CARD_SHUFFLER, Malfunction.Device.DEALING_SHOE}


def _uses_device(deck: DeckSet | None, device: str, new: dict[str, Any] | None = None) -> bool:
    """Whether cards (in play, or about to be) depend on the shoe or the shuffler."""
    if device == Malfunction.Device.DEALING_SHOE:
        dealt_from = new.get("dealt_from") if new is not None else deck and deck.dealt_from
        return dealt_from == DeckSet.DealtFrom.AUTOMATED_SHOE
    shuffler = new.get("automated_shuffler", False) if new is not None else deck and deck.automated_shuffler
    deck_count = new.get("deck_count", 1) if new is not None else 1
    return bool(shuffler) or deck_count > 1


def _change_cards_off_device(
    *, table: GamingTable, user: Any, password: str, device: str, at: datetime, new: dict[str, Any] | None
) -> None:
    deck = DeckSet.objects.filter(table=table, removed_at__isnull=True).first()
    if deck is None or not _uses_device(deck, device):
        return
    label = Malfunction.Device(device).label.lower()
    if new is None:
        raise ValidationError(
            f"The {label} is out of order (§ 575.13(n)), and the cards in play at table {table.number} (put in play "
            f"at {_local(deck.placed_at)}) depend on it. Change the cards in the same step: one deck dealt by hand, "
            "changed within 4 hours (§ 575.3(c)(1)); two decks need a working shuffler (§ 575.3(b)). Or change "
            "the cards first (reason “Shoe or shuffler out of order”), then record the malfunction."
        )
    if _uses_device(None, device, new):
        raise ValidationError(
            f"The {label} is out of order (§ 575.13(n)): the new cards are dealt by hand, one deck, "
            "without it (§ 575.3(b), (c)(1))."
        )
    deck_set_change(table=table, user=user, password=password, reason=RemovalReason.DEVICE_OUT_OF_ORDER, at=at, **new)


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
    replacement: dict[str, Any] | None = None,
) -> Malfunction:
    """Record a device malfunction and what happened to the round, as the clause requires.

    A dealing shoe or card shuffler signed out of order (§ 575.13(n)) ends the play that depended on
    it. Reading (docs/equipment.md): the cards in play leave play in the same step and new cards are
    put in play without the device (``replacement``: the arguments of :func:`deck_set_place`), so
    cards dealt by hand run on the 4-hour clock of § 575.3(c)(1) from their placement, and two-deck
    play, which needs a working shuffler (§ 575.3(b)), ends. Without a replacement it is refused, the
    message saying what to do; cards already changed to play without the device need nothing more.
    """
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
    if out_of_order and device in _CARD_DEVICES:
        _change_cards_off_device(table=table, user=user, password=password, device=device, at=at, new=replacement)
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
    healed: int = 0  # open alerts of sets already out of play, resolved by this run


def due_in_play(now: datetime, *, facility_id: int | None = None) -> list[DueItem]:
    """Every set in play whose clock is running and due within 30 minutes or overdue: ONE query.

    A UNION of the dice and deck logs, each filtered on the indexed ``due_at`` of sets still in
    play (partial index ``*_due_in_play_idx``). A clock runs while the table is open; a dice clock
    also runs while it is closed for the games whose clause says the dice "may not remain on a
    table" longer than the limit (``clock_runs_while_closed``: § 675a.3(b)(1), § 668a.3(b)(1),
    § 575.2(c)(1)(i)); § 577.4(d) and § 539.2(b) count time open for gaming only.
    """
    horizon = after(now, DUE_SOON)
    columns = ("kind", "pk", "table_id", "table__number", "facility_id", "due_at")
    dice_running = Q(table__is_open=True) | Q(table__game__equipment_requirement__clock_runs_while_closed=True)

    def part(model: type[DiceSet] | type[DeckSet], kind: str, running: Q) -> Any:
        qs = model.objects.filter(running, removed_at__isnull=True, due_at__lte=horizon)
        if facility_id is not None:
            qs = qs.filter(facility_id=facility_id)
        return qs.annotate(kind=Value(kind, output_field=CharField())).values_list(*columns).order_by()

    rows = part(DiceSet, "dice", dice_running).union(part(DeckSet, "deck", Q(table__is_open=True)), all=True)
    items = [DueItem(*row) for row in rows]
    return sorted(items, key=lambda i: (i.due_at, i.table_number))


def _lock_free_tables(ids: set[int]) -> set[int]:
    """Lock the tables of the overdue sets, skipping those a service is writing to right now."""
    if not ids:
        return set()
    return set(
        GamingTable.objects.select_for_update(skip_locked=True, no_key=True)
        .filter(pk__in=ids)
        .values_list("pk", flat=True)
    )


def _still_in_play(model: type[DiceSet] | type[DeckSet], ids: list[int]) -> set[int]:
    """Lock the sets and keep those still in play.

    The due list was read before the lock: a removal committed since then shows here (the locked
    read sees the latest committed row), and a set whose removal is under way is skipped; the next
    sweep sees it either way.
    """
    if not ids:
        return set()
    return set(
        model.objects.select_for_update(skip_locked=True)
        .filter(pk__in=ids, removed_at__isnull=True)
        .values_list("pk", flat=True)
    )


def _heal_alerts(now: datetime) -> int:
    """Resolve open alerts whose set has left play (self-healing; nothing to do the second time)."""
    healed = 0
    stale = (
        EquipmentAlert.objects.filter(resolved_at__isnull=True)
        .filter(Q(dice_set__removed_at__isnull=False) | Q(deck_set__removed_at__isnull=False))
        .select_related("dice_set", "deck_set", "table")
    )
    for alert in stale:
        equipment = alert.equipment
        alert.resolved_at = equipment.removed_at if equipment is not None and equipment.removed_at else now
        alert.save()
        healed += 1
    return healed


@transaction.atomic
def equipment_sweep(*, now: datetime | None = None) -> SweepResult:
    """Raise one alert per overdue set, resolve alerts of sets gone, notify: idempotent.

    Running twice raises nothing new: the overdue sets are locked and re-checked, then an existing
    alert for the set and kind is found, not duplicated. Alerts are resolved by the removal services
    in the transaction that logs the change, and any left open (a removal that raced a sweep) are
    resolved here. Every open alert not yet notified is queued for e-mail, so a failed send is retried.
    """
    now = now or timezone.now()
    items = due_in_play(now)
    result = SweepResult(due=items, overdue=[i for i in items if i.overdue(now)])
    # Lock in the order the services do (table, then set), else a change under way deadlocks with us.
    tables = _lock_free_tables({i.table_id for i in result.overdue})
    result.overdue = [i for i in result.overdue if i.table_id in tables]
    in_play = {
        "dice": _still_in_play(DiceSet, [i.pk for i in result.overdue if i.kind == "dice"]),
        "deck": _still_in_play(DeckSet, [i.pk for i in result.overdue if i.kind == "deck"]),
    }
    result.overdue = [i for i in result.overdue if i.pk in in_play[i.kind]]
    existing = set(
        EquipmentAlert.objects.filter(
            Q(dice_set_id__in=in_play["dice"]) | Q(deck_set_id__in=in_play["deck"]), kind=EquipmentAlert.Kind.OVERDUE
        ).values_list("dice_set_id", "deck_set_id")
    )
    new_alerts = [
        EquipmentAlert(
            kind=EquipmentAlert.Kind.OVERDUE,
            dice_set_id=item.pk if item.kind == "dice" else None,
            deck_set_id=item.pk if item.kind == "deck" else None,
            facility_id=item.facility_id,
            table_id=item.table_id,
            due_at=item.due_at,
            raised_at=now,
        )
        for item in result.overdue
        if ((item.pk, None) if item.kind == "dice" else (None, item.pk)) not in existing
    ]
    if new_alerts:
        # One INSERT (with its history rows) for the lot; the locks above keep two sweeps apart.
        result.raised = [alert.pk for alert in regulated_bulk_create(EquipmentAlert, new_alerts)]
    result.healed = _heal_alerts(now)
    unnotified = list(
        EquipmentAlert.objects.filter(resolved_at__isnull=True, notified_at__isnull=True).values_list("pk", flat=True)
    )
    if unnotified:
        from equipment.tasks import notify_equipment_alerts

        transaction.on_commit(lambda: notify_equipment_alerts.delay(unnotified))
    return result


@transaction.atomic
def alert_notify(*, alert_ids: Sequence[int]) -> int:
    """E-mail the floorpersons and shift managers of each alert's facility; returns e-mails sent.

    One e-mail per facility. The alerts are locked (two queued runs do not both send) and marked
    notified only once the mail went out: a failed send leaves them for the next sweep to queue.
    """
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.mail import send_mail

    from compliance.roles import Role

    alerts = list(
        EquipmentAlert.objects.filter(pk__in=alert_ids, resolved_at__isnull=True, notified_at__isnull=True)
        .select_for_update(skip_locked=True, of=("self",))
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
