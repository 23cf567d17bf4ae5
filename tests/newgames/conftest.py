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
