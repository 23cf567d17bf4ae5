"""Opening and closing a table for gaming, and the checks an opening makes: dice, cards and the
Sic Bo opening inspection."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from compliance.actors import acts_as_user
from compliance.models import GamingTable
from compliance.roles import Capability
from equipment import selectors
from equipment.clocks import INSPECTION_VALID_FOR, local_words
from equipment.models import EquipmentRequirement, TableSession
from equipment.services._common import table_for_writing

__all__ = ["table_close", "table_open"]


def _check_dice_for_opening(table: GamingTable, requirement: EquipmentRequirement, at: datetime) -> None:
    dice = selectors.dice_in_play(table)
    cite = f"§ {requirement.dice_citation}"
    if dice is None:
        if requirement.uses_dice and requirement.dice_required_to_open:
            raise ValidationError(
                f"Table {table.number} cannot open without a set of dice in play ({cite}): put a new set in play."
            )
        return
    if dice.overdue_at(at):
        raise ValidationError(
            f"Table {table.number} cannot open with the dice placed at {local_words(dice.placed_at)}: they are past "
            f"their {requirement.dice_max_hours}-hour limit ({cite}). Put a new set in play."
        )
    # Reopening needs a set put in play after the table last closed: § 577.4(d) for Three Dice
    # Football; for the other dice games the issue makes it the facility's internal control. A set
    # placed before the table's last opening has been through an opening and, the table being closed
    # now, through a closing too, whether or not that closing was recorded.
    closed_at, opened_at = selectors.last_closed_at(table), selectors.last_opened_at(table)
    used_before = (closed_at is not None and dice.placed_at < closed_at) or (
        opened_at is not None and dice.placed_at <= opened_at
    )
    if requirement.new_dice_on_reopen and used_before:
        raise ValidationError(
            f"Table {table.number} cannot reopen with the dice placed at {local_words(dice.placed_at)}: "
            f"a new set of dice is used when a table is reopened for gaming (§ 577.4(d); {cite}). "
            "Put a new set in play."
        )


def _check_decks_for_opening(table: GamingTable, requirement: EquipmentRequirement, at: datetime) -> None:
    if not requirement.uses_decks:
        return
    deck = selectors.decks_in_play(table)
    if deck is None:
        raise ValidationError(
            f"Table {table.number} cannot open without cards inspected by the dealer and verified by the "
            "floorperson (§ 575.4(a)): log the decks put into play."
        )
    if deck.overdue_at(at):
        raise ValidationError(
            f"Table {table.number} cannot open with the cards put in play at {local_words(deck.placed_at)}: they "
            f"are past their change time (§ {requirement.deck_citation}). Change the cards."
        )


def _check_inspection_for_opening(table: GamingTable, requirement: EquipmentRequirement, at: datetime) -> None:
    if not requirement.opening_inspection_required:
        return
    # § 539.5(a): "prior to opening": a passing inspection made after the table last closed and
    # within INSPECTION_VALID_FOR before the opening (midnight does not matter: 23:50 opens 00:10).
    since = at.astimezone(UTC) - INSPECTION_VALID_FOR
    closed_at = selectors.last_closed_at(table)
    if closed_at is not None and closed_at > since:
        since = closed_at
    inspection = selectors.latest_inspection(table, since, at)
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


def _open_session(table: GamingTable) -> TableSession | None:
    return TableSession.objects.select_for_update().filter(table=table, closed_at__isnull=True).first()


@transaction.atomic
@acts_as_user
def table_open(*, table: GamingTable, user: Any, at: datetime | None = None) -> TableSession:
    """Open a table for gaming once its dice, decks and opening inspection allow it."""
    table = table_for_writing(table=table, user=user, capability=Capability.OPEN_CLOSE_TABLES)
    at = at or timezone.now()
    if table.is_open:
        raise ValidationError(f"Table {table.number} is already open.")
    requirement = selectors.requirement_for(table)
    _check_inspection_for_opening(table, requirement, at)
    _check_dice_for_opening(table, requirement, at)
    _check_decks_for_opening(table, requirement, at)
    stale = _open_session(table)
    if stale is not None:
        # The table was marked closed outside the log: its session ends now, when that is noticed.
        stale.closed_at = max(at, stale.opened_at)
        stale.closed_by = user
        stale.save()
    session = TableSession.objects.create(facility_id=table.facility_id, table=table, opened_at=at, opened_by=user)
    table.is_open = True
    table.save()
    return session


@transaction.atomic
@acts_as_user
def table_close(*, table: GamingTable, user: Any, at: datetime | None = None) -> TableSession:
    """Close a table; the closing is always recorded, so the reopening rule (§ 577.4(d)) applies.

    A table marked open outside the log (no open session) gets its session written now, flagged
    ``opening_unrecorded``, its opening taken from the table's history: otherwise it could close
    without a record and reopen with the same dice.
    """
    table = table_for_writing(table=table, user=user, capability=Capability.OPEN_CLOSE_TABLES)
    at = at or timezone.now()
    if not table.is_open:
        raise ValidationError(f"Table {table.number} is already closed.")
    session = _open_session(table)
    if session is None:
        opened_at, opened_by_id = selectors.marked_open(table, at)
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
