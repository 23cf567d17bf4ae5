"""Opening and closing a table: the reopening rule (§ 577.4(d)), dice and cards needed to open."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.exceptions import ValidationError

from equipment import services
from equipment.models import TableSession
from tests.equipment.conftest import T0, local

pytestmark = pytest.mark.django_db


def test_a_table_cannot_open_without_dice(tdf, floorperson, open_at):
    with pytest.raises(ValidationError, match="without a set of dice"):
        open_at(tdf, floorperson, T0)


def test_reopening_with_the_previous_set_is_refused(sic_bo, place_dice, inspect, floorperson, open_at):
    place_dice(sic_bo, T0)
    inspect(sic_bo, T0)
    open_at(sic_bo, floorperson, T0 + timedelta(minutes=1))
    services.table_close(table=sic_bo, user=floorperson, at=T0 + timedelta(hours=2))
    next_morning = local(2026, 3, 3, 9, 0)
    inspect(sic_bo, next_morning)
    with time_machine.travel(next_morning, tick=False), pytest.raises(ValidationError) as refused:
        services.table_open(table=sic_bo, user=floorperson, at=next_morning)
    message = refused.value.messages[0]
    assert "Table SB-1 cannot reopen with the dice placed at 21:04 yesterday" in message
    assert "§ 539.2(b)" in message and "put a new set in play" in message.lower()

    place_dice(sic_bo, next_morning, reason="table_reopened")
    session = open_at(sic_bo, floorperson, next_morning + timedelta(minutes=2))
    sic_bo.refresh_from_db()
    assert sic_bo.is_open and session.closed_at is None
    assert TableSession.objects.filter(table=sic_bo).count() == 2


def test_asia_poker_opens_without_dice_but_not_without_cards(asia, place_decks, floorperson, open_at):
    with pytest.raises(ValidationError, match=r"575.4\(a\)"):
        open_at(asia, floorperson, T0)
    place_decks(asia, T0)
    open_at(asia, floorperson, T0 + timedelta(minutes=1))


def test_a_table_marked_open_outside_the_log_records_its_closing_and_cannot_reopen_with_the_same_dice(
    tdf, place_dice, floorperson, open_at
):
    place_dice(tdf, T0)
    tdf.is_open = True  # e.g. in the admin: no session was opened
    tdf.save()
    session = services.table_close(table=tdf, user=floorperson, at=T0 + timedelta(hours=2))
    assert session.opening_unrecorded and session.closed_at == T0 + timedelta(hours=2)
    assert TableSession.objects.filter(table=tdf, closed_at__isnull=False).count() == 1
    with pytest.raises(ValidationError, match=r"cannot reopen with the dice placed at .*577\.4\(d\)"):
        open_at(tdf, floorperson, T0 + timedelta(hours=3))
    place_dice(tdf, T0 + timedelta(hours=3), reason="table_reopened", identifiers="LOT-B")
    open_at(tdf, floorperson, T0 + timedelta(hours=3, minutes=1))


def test_a_table_marked_closed_outside_the_log_cannot_reopen_with_the_same_dice(tdf, place_dice, floorperson, open_at):
    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    tdf.refresh_from_db()
    tdf.is_open = False  # e.g. in the admin: the session was never closed
    tdf.save()
    with pytest.raises(ValidationError, match=r"cannot reopen with the dice placed at .*577\.4\(d\)"):
        open_at(tdf, floorperson, T0 + timedelta(hours=3))
    place_dice(tdf, T0 + timedelta(hours=3), reason="table_reopened", identifiers="LOT-B")
    session = open_at(tdf, floorperson, T0 + timedelta(hours=3, minutes=1))
    assert TableSession.objects.filter(table=tdf, closed_at__isnull=True).get() == session
    assert TableSession.objects.filter(table=tdf).count() == 2
