"""Dice in and out of play: placed by the floorperson with the dealer as witness, both signing;
registered, so a set once put in play is never put in play again; removed with every die accounted
for; changed in one step at the table."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from compliance.actors import acts_as_user
from compliance.models import GamingTable
from compliance.roles import Capability
from compliance.services import CoSigner, record_cosign, record_sign
from compliance.table_variation import plays_six_dice
from equipment import selectors
from equipment.clocks import after, local_words
from equipment.floor import check_floorperson
from equipment.identifiers import dice_key
from equipment.models import DiceRegisterEntry, DiceRemoval, DiceSet, EquipmentRequirement, RemovalReason
from equipment.services._common import (
    RemovalWords,
    check_gaming_not_stopped,
    removal_checks,
    removal_finish,
    table_for_writing,
)

__all__ = ["dice_set_change", "dice_set_place", "dice_set_remove"]

_DICE = RemovalWords(things="dice", placed="were placed", new="the new set")

_PLACED_BECAUSE = {
    RemovalReason.SCHEDULED: DiceSet.PlacedBecause.SCHEDULED,
    RemovalReason.TABLE_REOPENED: DiceSet.PlacedBecause.OPENING,
    RemovalReason.TABLE_CLOSED: DiceSet.PlacedBecause.OPENING,
}


def _normal(text: str) -> str:
    return "".join(text.lower().split())


# --- placing ---------------------------------------------------------------------------------------------


def _check_dice_game_and_witness(table: GamingTable, requirement: EquipmentRequirement, user: Any, dealer: Any) -> None:
    if not requirement.uses_dice:
        raise ValidationError(f"{table.game} is not played with dice.")
    check_floorperson(user, duty="placing the dice in play", citation="668a.3(d)")
    if dealer is None or dealer.pk == user.pk:
        raise ValidationError(
            "The dice are placed by the floorperson in the presence of a different person, the dealer."
        )


def _check_dice_set(
    table: GamingTable, requirement: EquipmentRequirement, dice_count: int, colours: str, identifiers: str
) -> None:
    """The game's number and colours of dice (§ 577.4(a), § 675a.3(a), ...), and the set identified."""
    cite = f"§ {requirement.dice_citation}"
    allowed = requirement.allowed_dice_counts()
    if requirement.variation_dice_count:
        # The variation (High Roll Dice's six dice, § 675a.6(a)) only where the approved Rules Submission in force
        # offers it and the table is set to it; every other table plays the game's own number (§ 521.8(b)).
        six = plays_six_dice(table)
        allowed = {requirement.variation_dice_count if six else requirement.dice_count}
        if dice_count not in allowed:
            raise ValidationError(
                f"Table {table.number} plays {'the six-dice variation' if six else 'the standard game'} under the "
                f"approved Rules Submission (§ 521.8(b), § 675a.6(a)): a set of {next(iter(allowed))} dice; this "
                f"set has {dice_count}.")
    if dice_count not in allowed:
        counts = " or ".join(str(n) for n in sorted(allowed))
        raise ValidationError(f"{table.game} is played with {counts} dice ({cite}); this set has {dice_count}.")
    if requirement.dice_colours and _normal(colours) != _normal(requirement.dice_colours):
        raise ValidationError(
            f"A {table.game} set is {requirement.dice_colours} ({cite}); the colours entered were {colours!r}."
        )
    if not identifiers.strip():
        raise ValidationError("Enter the dice serial numbers or lot.")


def _check_no_dice_in_play(table: GamingTable) -> None:
    current = selectors.dice_in_play(table)
    if current is not None:
        raise ValidationError(
            f"Table {table.number} already has the dice placed at {local_words(current.placed_at, table.facility)} "
            "in play: record their removal first (at most one set in play per table)."
        )


def _reuse_words(table: GamingTable, entry: DiceRegisterEntry, identifiers: str) -> str:
    """Why a set already registered is not new: where it was put in play, when and why it left play."""
    used = entry.dice_set
    when = lambda dt: local_words(dt, table.facility)  # noqa: E731
    where = f"put in play at table {used.table.number} at {when(used.placed_at)}"
    removal = used.removal
    if removal is None:
        gone = "and are still in play there"
    else:
        gone = f"and removed at {when(removal.removed_at)} ({removal.get_reason_display().lower()})"
        if removal.reason in (RemovalReason.TAMPERING, RemovalReason.DAMAGED):
            gone += ": dice removed for tampering or damage never return to play"
    return (
        f"The dice {identifiers.strip()!r} are not a new set: {entry.identifiers!r} were {where} {gone}. A set "
        "once put in play is never put in play again at any table of the facility (§ 577.4(d); § 675a.3(b)(1), "
        "§ 668a.3(b)(1), § 539.2(b), § 575.2(c)(1)(i)). Put a new set in play, with its own serial numbers."
    )


def _register(table: GamingTable, dice: DiceSet) -> None:
    """Enter the set in the register; the database refuses a second use of the same identifiers."""
    key = dice_key(dice.identifiers)
    entry = selectors.dice_registered(table.facility_id, key)
    if entry is not None:
        raise ValidationError(_reuse_words(table, entry, dice.identifiers))
    try:
        with transaction.atomic():
            DiceRegisterEntry.objects.create(
                facility_id=table.facility_id, key=key, identifiers=dice.identifiers, dice_set=dice,
                registered_at=dice.placed_at,
            )  # fmt: skip
    except IntegrityError:
        raise ValidationError(
            f"The dice {dice.identifiers!r} were just put in play at another table: put a new set in play."
        ) from None


def _place(
    *,
    table: GamingTable,
    requirement: EquipmentRequirement,
    user: Any,
    password: str,
    dealer: Any,
    dealer_password: str,
    identifiers: str,
    dice_count: int,
    colours: str,
    placed_because: str,
    at: datetime,
) -> DiceSet:
    """Place a set at a table already locked for this user."""
    _check_dice_game_and_witness(table, requirement, user, dealer)
    check_gaming_not_stopped(table, "the dice change")
    _check_dice_set(table, requirement, dice_count, colours, identifiers)
    _check_no_dice_in_play(table)
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
    _register(table, dice)
    record_sign(record=dice, slot="floorperson", user=user, password=password)
    record_cosign(record=dice, slot="dealer", co_signer=CoSigner(dealer, dealer_password))
    return dice


@transaction.atomic
@acts_as_user
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
    table = table_for_writing(table=table, user=user, capability=Capability.VERIFY_EQUIPMENT)
    at = at or timezone.now()
    return _place(
        table=table,
        requirement=selectors.requirement_for(table),
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


# --- removing --------------------------------------------------------------------------------------------


def _check_dice_lost(dice_set: DiceSet, dice_lost: int) -> None:
    if not 0 <= dice_lost <= dice_set.dice_count:
        raise ValidationError(
            f"Dice lost must be between 0 and {dice_set.dice_count}, the number of dice in the set in play; "
            f"{dice_lost} was entered."
        )


def _check_accounted_for(dice_set: DiceSet, reason: str, dice_returned: int, dice_lost: int) -> None:
    """§ 577.4(d) "removed dice are accounted for": every die is returned or recorded lost."""
    _check_dice_lost(dice_set, dice_lost)
    if dice_returned < 0:
        raise ValidationError("The number of dice returned cannot be negative.")
    if dice_returned + dice_lost != dice_set.dice_count:
        raise ValidationError(
            f"The set had {dice_set.dice_count} dice; {dice_returned} returned and {dice_lost} lost do not account "
            "for all of them."
        )
    if (reason == RemovalReason.DIE_LOST) != (dice_lost > 0):
        raise ValidationError("A lost die is recorded with the reason “die went off the table and was lost”.")


def _open_table_citation(requirement: EquipmentRequirement) -> str | None:
    """A lost or unsuitable die forces a new set at once (§ 577.4(d)); an open table never plays
    without dice, so on an open table the removal must come with its replacement."""
    return requirement.dice_citation if requirement.dice_required_to_open else None


def _remove(
    *,
    table: GamingTable,
    dice_set: DiceSet,
    user: Any,
    password: str,
    reason: str,
    dice_returned: int,
    dice_lost: int,
    note: str,
    at: datetime,
    replacing: bool,
    requirement: EquipmentRequirement | None,
) -> DiceRemoval:
    """Remove a set at a table already locked for this user (``requirement`` read when needed)."""
    check_floorperson(user, duty="removing the dice", citation="577.4(d)")
    dice_set = removal_checks(
        table=table,
        in_play=dice_set,
        reason=reason,
        at=at,
        replacing=replacing,
        words=_DICE,
        check=lambda locked: _check_accounted_for(locked, reason, dice_returned, dice_lost),
        open_table_citation=lambda t: _open_table_citation(requirement or selectors.requirement_for(t)),
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
    removal_finish(removal=removal, in_play=dice_set, user=user, password=password, at=at)
    return removal


@transaction.atomic
@acts_as_user
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
    table = table_for_writing(table=dice_set.table, user=user, capability=Capability.VERIFY_EQUIPMENT)
    return _remove(
        table=table,
        dice_set=dice_set,
        user=user,
        password=password,
        reason=reason,
        dice_returned=dice_returned,
        dice_lost=dice_lost,
        note=note,
        at=at or timezone.now(),
        replacing=replacing,
        requirement=None,
    )


# --- the change at the table -------------------------------------------------------------------------------


@transaction.atomic
@acts_as_user
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
    """Replace the set in play (if any) with a new one in one step: the usual change at the table.

    The table is checked, locked and its requirement read once, for the removal and the placement."""
    placed_because: str = DiceSet.PlacedBecause.OPENING if not table.is_open else DiceSet.PlacedBecause.SCHEDULED
    table = table_for_writing(table=table, user=user, capability=Capability.VERIFY_EQUIPMENT)
    at = at or timezone.now()
    requirement = selectors.requirement_for(table)
    current = selectors.dice_in_play(table)
    check_gaming_not_stopped(table, "the dice change")
    if current is not None:
        _check_dice_lost(current, dice_lost)
        _remove(
            table=table,
            dice_set=current,
            user=user,
            password=password,
            reason=reason,
            dice_returned=current.dice_count - dice_lost if dice_returned is None else dice_returned,
            dice_lost=dice_lost,
            note=note,
            at=at,
            replacing=True,
            requirement=requirement,
        )
        placed_because = _PLACED_BECAUSE.get(RemovalReason(reason), DiceSet.PlacedBecause.REPLACEMENT)
    return _place(
        table=table,
        requirement=requirement,
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
