"""New game request fixtures: pictures made on the spot (PNG, JPEG, a small PDF) and a request prepared through
the service."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image, ImageDraw

from compliance.models import Game
from compliance.newgames import services

PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
       b"trailer<</Root 1 0 R>>\n%%EOF\n")


def png(width: int = 240, height: int = 160, colour: str = "darkgreen") -> bytes:
    """A small layout sketch: a felt with three betting circles."""
    image = Image.new("RGB", (width, height), colour)
    draw = ImageDraw.Draw(image)
    for n in range(3):
        x = 30 + n * (width - 60) // 2
        draw.ellipse([x - 18, height // 2 - 18, x + 18, height // 2 + 18], outline="white", width=3)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def jpeg(width: int = 200, height: int = 200) -> bytes:
    """A picture of the equipment: a die."""
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle([20, 20, width - 20, height - 20], outline="black", width=4, fill="firebrick")
    for cx, cy in ((60, 60), (width // 2, height // 2), (width - 60, height - 60)):
        draw.ellipse([cx - 12, cy - 12, cx + 12, cy + 12], fill="white")
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=85)
    return buffer.getvalue()


def request_fields(**changes: Any) -> dict[str, Any]:
    """Every item of § 521.4 for a new side wager of Sic Bo, as a service call takes them."""
    fields: dict[str, Any] = {
        "title": "Sic Bo Lucky Triple",
        "kind": "new_feature",
        "classification": "",
        "game": Game.objects.get(code="sic-bo"),
        "description": "A wager that the three dice show the same number.\n\nIt is placed before the shaker runs "
                       "and paid at the posted odds.",
        "engine_game": "sic-bo",
        "engine_options": {"three-of-a-kind": "180 to 1"},
        "reason": "Patrons at other casinos ask for it.",
        "other_jurisdictions": "Nevada\nNew Jersey",
        "copyright_status": "none",
        "copyright_details": "",
        "trademark_status": "pending",
        "trademark_details": "“Lucky Triple”, application 97/123456, held by Dragon Side Bets LLC",
        "patent_status": "none",
        "patent_details": "",
    }
    return fields | changes


@pytest.fixture
def prepare(facility: Any, compliance_officer: Any) -> Any:
    def make(**changes: Any) -> Any:
        return services.request_prepare(facility=facility, user=compliance_officer, **request_fields(**changes))

    return make


@pytest.fixture
def game_request(prepare: Any) -> Any:
    return prepare()


@pytest.fixture
def ready_request(game_request: Any, compliance_officer: Any) -> Any:
    """A request with a layout sketch, an equipment picture and a PDF of the equipment: ready to sign."""
    services.request_pictures_add(request=game_request, kind="layout", files=[("layout.png", png())],
                                  caption="The layout with the new circle", user=compliance_officer)
    services.request_pictures_add(request=game_request, kind="equipment",
                                  files=[("die.jpg", jpeg()), ("shaker-spec.pdf", PDF)], caption="Dice and shaker",
                                  user=compliance_officer)
    return game_request


STRAIGHT_UP = {"name": "Straight up", "payout_odds": "35 to 1", "probability": "1/38", "true_odds": "37 to 1",
               "house_edge": "2/38", "simple": True, "method": "Enumeration of the 38 pockets of the wheel."}
FIVE_NUMBER = {"name": "Five number", "payout_odds": "6 to 1", "probability": "5/38", "true_odds": "33 to 5",
               "house_edge": "3/38", "simple": True, "method": "Enumeration: 0, 00, 1, 2 and 3 of the 38 pockets."}
RED_SURRENDER = {"name": "Red, half back on 0 and 00", "payout_odds": "1 to 1", "probability": "18/38",
                 "true_odds": "10 to 9", "house_edge": "1/38", "simple": False,
                 "method": "Enumeration of the 38 pockets: 18 red win 1 to 1, 0 and 00 lose half the wager, 18 "
                           "black lose it."}


def stated_fields(**changes: Any) -> dict[str, Any]:
    """Every item of § 521.4 for a new table game the engine does not model (a roulette wheel), with the
    facility's own exact figures of each wager."""
    fields = request_fields(
        title="Keystone Double-Zero Roulette", kind="new_game", classification="new", game=None,
        description="A wheel of 38 pockets, 0, 00 and 1 to 36; the dealer spins the ball and pays the wagers "
                    "covering the pocket it lands in.", other_jurisdictions="none")
    del fields["engine_game"], fields["engine_options"]
    return fields | {"stated_wagers": [STRAIGHT_UP, FIVE_NUMBER, RED_SURRENDER]} | changes


@pytest.fixture
def prepare_stated(facility: Any, compliance_officer: Any) -> Any:
    def make(**changes: Any) -> Any:
        return services.request_prepare(facility=facility, user=compliance_officer, **stated_fields(**changes))

    return make


@pytest.fixture
def stated_request(prepare_stated: Any, compliance_officer: Any) -> Any:
    """A new game the engine does not model, with the facility's figures and a picture of the wheel: ready to
    sign."""
    made = prepare_stated()
    services.request_pictures_add(request=made, kind="equipment", files=[("wheel.jpg", jpeg())],
                                  caption="The wheel", user=compliance_officer)
    services.request_pictures_add(request=made, kind="layout", files=[("layout.png", png())],
                                  caption="The layout", user=compliance_officer)
    return made
