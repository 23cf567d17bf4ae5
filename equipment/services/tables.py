"""Opening and closing a table for gaming. What an opening needs is the one readiness service
(``compliance.readiness``: equipment, staffing and cameras, wager limits and the Rules Submission, providers,
approved equipment), which the live board, the table page and the redemption API read too. How an Asia Poker table determines the starting position is recorded here too."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from compliance.actors import acts_as_user
from compliance.models import GamingTable
from compliance.opening_checks import table_changed
from compliance.readiness import open_refusal
from compliance.roles import Capability
from equipment import selectors
from equipment.models import DiceMethod, TableDiceMethod, TableSession
from equipment.services._common import table_for_writing

__all__ = ["dice_method_record", "table_close", "table_open", "table_stop"]


def _open_session(table: GamingTable) -> TableSession | None:
    return TableSession.objects.select_for_update().filter(table=table, closed_at__isnull=True).first()


@transaction.atomic
@acts_as_user
def table_open(*, table: GamingTable, user: Any, at: datetime | None = None) -> TableSession:
    """Open a table for gaming once every requirement of its readiness holds (``compliance.readiness``)."""
    table = table_for_writing(table=table, user=user, capability=Capability.OPEN_CLOSE_TABLES)
    at = at or timezone.now()
    if table.is_open:
        raise ValidationError(f"Table {table.number} is already open.")
    # Every chapter's requirements, from the one readiness service the board and every screen read too.
    refusal = open_refusal(table, at, user)
    if refusal:
        raise ValidationError(refusal)
    stale = _open_session(table)
    if stale is not None:
        # The table was marked closed outside the log: its session ends now, when that is noticed.
        stale.closed_at = max(at, stale.opened_at)
        stale.closed_by = user
        stale.save()
    session = TableSession.objects.create(facility_id=table.facility_id, table=table, opened_at=at, opened_by=user)
    table.is_open = True
    table.save()
    table_changed(table, at)
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
    return table_stop(table=table, user=user, at=at)


def table_stop(*, table: GamingTable, user: Any, at: datetime) -> TableSession:
    """Close a table already locked for this user: also when gaming must cease (§ 539.7(b)), which
    the malfunction service does with the floorperson or above who recorded it."""
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
    table_changed(table, at)
    return session


@transaction.atomic
@acts_as_user
def dice_method_record(*, table: GamingTable, user: Any, method: str, at: datetime | None = None) -> TableDiceMethod:
    """Record how a table determines the starting position for dealing (Asia Poker, § 575.2(c)): the
    shaker with three dice, an approved random number generator or an approved flat button. A table
    management decision (``MANAGE_TABLES``), made while the table is closed; history keeps each change."""
    table = table_for_writing(table=table, user=user, capability=Capability.MANAGE_TABLES)
    requirement = selectors.requirement_for(table)
    if not requirement.dice_method_per_table:
        raise ValidationError(f"{table.game} does not choose a dice method per table.")
    if method not in DiceMethod.values:
        raise ValidationError("Choose the shaker, a random number generator or a flat button (§ 575.2(c)).")
    if table.is_open:
        raise ValidationError(f"Table {table.number} is open: close it before changing how its cards are started.")
    cards = selectors.decks_in_play(table)
    if method == DiceMethod.FLAT_BUTTON and cards is not None and not (
        cards.dealt_from == "automated_shoe" and cards.automated_shuffler
    ):
        raise ValidationError(
            f"Table {table.number} has cards in play {cards.get_dealt_from_display().lower()}"
            f"{' with' if cards.automated_shuffler else ' without'} an automated shuffler: the flat button is used "
            "only with an automated card shuffling device and an automated dealing shoe (§ 575.5(g)(3))."
        )
    current = selectors.dice_method_of(table)
    if current is None:
        current = TableDiceMethod(facility_id=table.facility_id, table=table)
    current.method, current.recorded_at, current.recorded_by = method, at or timezone.now(), user
    current.save()
    return current
