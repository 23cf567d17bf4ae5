"""Asia Poker cards: 4 hours by hand, 8 from a shoe; two decks need a shuffler; the dealer inspects."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.exceptions import ValidationError

from equipment import services
from tests.equipment.conftest import T0, local

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("dealt_from", "in_play", "overdue"),
    [
        ("hand", timedelta(hours=3, minutes=59), False),
        ("hand", timedelta(hours=4, minutes=1), True),
        ("manual_shoe", timedelta(hours=7, minutes=59), False),
        ("automated_shoe", timedelta(hours=8), False),
        ("automated_shoe", timedelta(hours=8, minutes=1), True),
    ],
)
def test_deck_clocks_are_4_hours_by_hand_and_8_from_a_shoe(
    asia, place_decks, floorperson, dealt_from, in_play, overdue, open_at
):
    place_decks(asia, T0, dealt_from=dealt_from)
    open_at(asia, floorperson, T0)
    now = T0 + in_play
    with time_machine.travel(now, tick=False):
        result = services.equipment_sweep(now=now)
    assert [i.kind for i in result.overdue] == (["deck"] if overdue else [])


def test_two_decks_need_a_shuffler_and_different_backs(asia, place_decks):
    with pytest.raises(ValidationError, match=r"575.3\(b\)"):
        place_decks(asia, T0, deck_count=2, back_colours="red / blue", automated_shuffler=False,
                    dealt_from="manual_shoe")
    with pytest.raises(ValidationError, match="different colour"):
        place_decks(asia, T0, deck_count=2, back_colours="red / red", automated_shuffler=True)
    decks = place_decks(
        asia, T0, deck_count=2, back_colours="Red, Blue", automated_shuffler=True, dealt_from="automated_shoe"
    )
    assert decks.back_colours == "red / blue" and decks.due_at == T0 + timedelta(hours=8)


def test_a_second_joker_must_be_torn(asia, place_decks):
    with pytest.raises(ValidationError, match=r"575.4\(b\)"):
        place_decks(asia, T0, jokers_per_deck=2)
    assert place_decks(asia, T0, jokers_per_deck=2, second_joker_torn=True).is_complete


def test_deck_inspection_is_signed_by_dealer_then_verified_by_floorperson(asia, place_decks, dealer, floorperson):
    deck = place_decks(asia, T0)
    meanings = {s.slot: (s.signer_id, s.meaning) for s in deck.signatures.all()}
    assert meanings == {"dealer": (dealer.pk, "inspected"), "floorperson": (floorperson.pk, "verified")}


@pytest.mark.parametrize(
    ("placed", "due_local"),
    [
        (local(2026, 3, 8, 0, 30), local(2026, 3, 8, 5, 30)),  # 4 h real time: 02:00 EST is 03:00 EDT
        (local(2026, 11, 1, 0, 30), local(2026, 11, 1, 3, 30)),  # 01:00–02:00 is lived twice
    ],
    ids=["spring-forward-8-mar", "fall-back-1-nov"],
)
def test_the_hand_dealt_deck_clock_is_4_hours_of_real_time_across_a_clock_change(
    asia, place_decks, floorperson, placed, due_local
):
    with time_machine.travel(placed, tick=False):
        deck = place_decks(asia, placed)
    deck.refresh_from_db()
    assert deck.due_at == due_local and deck.due_at - deck.placed_at == timedelta(hours=4)
