"""Malfunctions: the round as the clause requires; a shoe or shuffler out of order (§ 575.13(n))."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from equipment import services
from equipment.models import DeckRemoval, DeckSet, Malfunction
from tests.equipment.conftest import T0, record_malfunction
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_a_malfunction_records_what_the_clause_requires_of_the_round(sic_bo, asia, floorperson):
    with pytest.raises(ValidationError, match=r"539.7\(c\)"):
        services.malfunction_record(
            table=sic_bo,
            user=floorperson,
            password=PASSWORD,
            device="sic_bo_shaker",
            description="Jammed",
            round_outcome="settled_ceased",
        )
    record = services.malfunction_record(
        table=sic_bo,
        user=floorperson,
        password=PASSWORD,
        device="sic_bo_shaker",
        description="Jammed",
        round_outcome="void_returned",
        out_of_order=True,
    )
    assert record.is_complete
    with pytest.raises(ValidationError, match="has no"):
        services.malfunction_record(
            table=sic_bo,
            user=floorperson,
            password=PASSWORD,
            device="dealing_shoe",
            description="x",
            round_outcome="void_reshuffled",
        )
    shoe = services.malfunction_record(
        table=asia,
        user=floorperson,
        password=PASSWORD,
        device="dealing_shoe",
        description="Stopped dealing",
        round_outcome="void_reshuffled",
        out_of_order=True,
    )
    assert shoe.get_round_outcome_display().startswith("Round void")
    assert Malfunction.objects.count() == 2


def _shoe_out_of_order(table: Any, user: Any, at: Any, **kwargs: Any) -> Any:
    return record_malfunction(table, user, "dealing_shoe", at, out_of_order=True, **kwargs)


def test_a_shoe_out_of_order_needs_the_change_to_hand_dealing_in_the_same_step(
    asia, place_decks, floorperson, dealer, open_at
):
    shoe_deck = place_decks(asia, T0, dealt_from="automated_shoe")
    open_at(asia, floorperson, T0)
    at = T0 + timedelta(hours=2)
    with pytest.raises(ValidationError, match=r"575\.13\(n\).*dealt by hand.*575\.9\(a\)\(1\).*575\.3\(c\)\(1\)"):
        _shoe_out_of_order(asia, floorperson, at)
    hand = {"dealer": dealer, "dealer_password": PASSWORD, "deck_count": 1, "back_colours": "blue",
            "automated_shuffler": True}  # the shuffler still works: by hand with it (§ 575.9(a)(1))
    with pytest.raises(ValidationError, match="dealt by"):
        _shoe_out_of_order(asia, floorperson, at, replacement={**hand, "dealt_from": "automated_shoe"})
    assert not Malfunction.objects.exists()
    record = _shoe_out_of_order(asia, floorperson, at, replacement={**hand, "dealt_from": "hand"})
    assert record.is_complete
    assert DeckRemoval.objects.get(deck_set=shoe_deck).reason == "device_out_of_order"
    new = DeckSet.objects.get(removed_at__isnull=True)
    assert new.dealt_from == "hand" and new.due_at == at + timedelta(hours=4)


def test_a_shuffler_out_of_order_ends_two_deck_play(asia, place_decks, floorperson, dealer):
    place_decks(asia, T0, deck_count=2, back_colours="red / blue", automated_shuffler=True)
    with pytest.raises(ValidationError, match=r"575\.3\(b\)"):
        services.malfunction_record(
            table=asia, user=floorperson, password=PASSWORD, device="card_shuffler", description="Jammed",
            round_outcome="reshuffled", out_of_order=True, at=T0 + timedelta(hours=1),
        )  # fmt: skip
    with pytest.raises(ValidationError, match="one deck"):
        services.malfunction_record(
            table=asia, user=floorperson, password=PASSWORD, device="card_shuffler", description="Jammed",
            round_outcome="reshuffled", out_of_order=True, at=T0 + timedelta(hours=1),
            replacement={"dealer": dealer, "dealer_password": PASSWORD, "deck_count": 2, "back_colours": "red / blue",
                         "dealt_from": "hand", "automated_shuffler": True},
        )  # fmt: skip
    # A shuffler that jams but is not signed out of order needs no change of cards.
    services.malfunction_record(
        table=asia, user=floorperson, password=PASSWORD, device="card_shuffler", description="Jammed once",
        round_outcome="reshuffled", at=T0 + timedelta(hours=1),
    )  # fmt: skip
