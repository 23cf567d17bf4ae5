"""Equipment fixtures: tables of each dice game at the persona facility, and helpers to log sets."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from compliance.models import Game
from equipment import services
from tests.factories import PASSWORD, GamingTableFactory

NY = ZoneInfo("America/New_York")


def local(*args: int) -> datetime:
    """An aware datetime in the facility's time zone."""
    return datetime(*args, tzinfo=NY)  # type: ignore[arg-type,misc]


def make_table(facility: Any, game_code: str, number: str) -> Any:
    return GamingTableFactory(facility=facility, game=Game.objects.get(code=game_code), number=number)


@pytest.fixture
def sic_bo(facility: Any) -> Any:
    return make_table(facility, "sic-bo", "SB-1")


@pytest.fixture
def tdf(facility: Any) -> Any:
    return make_table(facility, "three-dice-football", "TDF-1")


@pytest.fixture
def props(facility: Any) -> Any:
    return make_table(facility, "props-and-hops", "PH-1")


@pytest.fixture
def asia(facility: Any) -> Any:
    return make_table(facility, "asia-poker", "AP-1")


@pytest.fixture
def place_dice(floorperson: Any, dealer: Any) -> Any:
    """``place_dice(table, at)``: the floorperson puts the game's standard set in play."""

    def place(table: Any, at: datetime, **kwargs: Any) -> Any:
        requirement = services.requirement_for(table)
        values: dict[str, Any] = {
            "table": table,
            "user": floorperson,
            "password": PASSWORD,
            "dealer": dealer,
            "dealer_password": PASSWORD,
            "identifiers": "LOT-A 001-006",
            "dice_count": requirement.dice_count,
            "colours": requirement.dice_colours,
            "at": at,
        }
        values.update(kwargs)
        return services.dice_set_change(**values)

    return place


@pytest.fixture
def place_decks(floorperson: Any, dealer: Any) -> Any:
    def place(table: Any, at: datetime, **kwargs: Any) -> Any:
        values: dict[str, Any] = {
            "table": table,
            "user": floorperson,
            "password": PASSWORD,
            "dealer": dealer,
            "dealer_password": PASSWORD,
            "deck_count": 1,
            "back_colours": "red",
            "dealt_from": "hand",
            "at": at,
        }
        values.update(kwargs)
        return services.deck_set_change(**values)

    return place


@pytest.fixture
def inspect(floorperson: Any) -> Any:
    def run(table: Any, at: datetime, **kwargs: Any) -> Any:
        values: dict[str, Any] = {
            "table": table,
            "user": floorperson,
            "password": PASSWORD,
            "values_entered": [1, 4, 4],
            "combinations_illuminated": True,
            "at": at,
        }
        values.update(kwargs)
        return services.inspection_record(**values)

    return run
