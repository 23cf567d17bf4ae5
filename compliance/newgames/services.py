"""Writes of the request to offer a new table game or feature (§ 521.4): a compliance officer prepares it (with
the engine's figures, or the facility's own for a game or wager the engine does not model), adds the sketches and
pictures of the layout and the equipment, and signs it. Every refusal says in words which item
of § 521.4 is missing or wrong, and nothing is saved."""

from __future__ import annotations

import hashlib
import io
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from PIL import Image

from compliance.actors import acts_as_user
from compliance.models import Facility, Game, Signature
from compliance.newgames import selectors
from compliance.newgames.models import (
    STATED_BY,
    Classification,
    NewGameRequest,
    PictureKind,
    Protection,
    RequestKind,
    RequestPicture,
    RequestPictureContent,
)
from compliance.newgames.rules import (
    MAX_PICTURES,
    MAX_PIXELS,
    JurisdictionsError,
    clean_file_name,
    file_kind,
    jurisdictions_from,
    upload_refusal,
)
from compliance.newgames.stated import MAX_WAGERS
from compliance.roles import Capability
from compliance.service_checks import require_at_facility
from compliance.services import record_sign

__all__ = ["MAX_LONG_TEXT", "request_pictures_add", "request_prepare", "request_sign"]

MAX_LONG_TEXT = 50_000  # characters of a description or a reason: some twenty pages
MAX_DETAILS = 5_000
MAX_CAPTION = 300
_PROTECTED = {"copyright": "copyrights", "trademark": "trademarks", "patent": "patents"}


def _allowed(user: Any, facility: Facility) -> None:
    require_at_facility(user, facility, Capability.PREPARE_GAME_REQUESTS)


def _text(value: Any, limit: int, missing: str, what: str) -> str:
    text = str(value or "").strip()
    if not text and missing:
        raise ValidationError(missing)
    if len(text) > limit:
        raise ValidationError(f"The {what} is {len(text):,} characters long; it is at most {limit:,}.")
    return text


def _kind_and_game(kind: str, classification: str, game: Game | None) -> None:
    if kind not in RequestKind.values:
        raise ValidationError("Say whether the request is for a new table game or for a new wager or feature of an "
                              "authorized table game.")
    if kind == RequestKind.NEW_GAME:
        if classification not in Classification.values:
            raise ValidationError("For a new table game, say whether it is a variation of an authorized game, a "
                                  "composite of authorized games or a new game (§ 521.4(1)(i)).")
        if game is not None:
            raise ValidationError("A new table game belongs to no authorized game: leave the authorized game empty "
                                  "and name the games it varies or combines in the description.")
        return
    if game is None:
        raise ValidationError("Choose the authorized table game the new wager or feature is part of.")
    if classification:
        raise ValidationError("Variation, composite or new game (§ 521.4(1)(i)) is said of a new table game only: "
                              "leave it empty for a new wager or feature.")


def _protections(statements: dict[str, tuple[str, str]]) -> dict[str, str]:
    """§ 521.4(4): for copyrights, trademarks and patents, issued, pending or none, with the details."""
    fields: dict[str, str] = {}
    for what, (status, details) in statements.items():
        plural = _PROTECTED[what]
        if status not in Protection.values:
            raise ValidationError(f"Say whether the game, its name or its equipment is covered by {plural}: issued, "
                                  f"pending or none (§ 521.4(4)).")
        missing = "" if status == Protection.NONE else (
            f"Give the details of the {plural} {status}: what is covered (the game, its name or which equipment), "
            f"the number or application and the holder (§ 521.4(4)).")
        fields[f"{what}_status"] = status
        fields[f"{what}_details"] = _text(details, MAX_DETAILS, missing, f"statement of {plural}")
    return fields


def _stated_figures(facility: Facility, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The facility's own figures of each wager (a game or wager the engine does not model), read and checked
    exactly, as kept with the request; or every refusal in words."""
    if len(rows) > MAX_WAGERS:
        raise ValidationError(f"State at most {MAX_WAGERS} wagers in one request.")
    stated, refusals = selectors.stated_check(rows, facility.name)
    if stated is None:
        raise ValidationError(refusals)
    return {STATED_BY: stated.stated_by, "wagers": [w.as_json() for w in stated.wagers]}


def _figures(kind: str, game: Game | None, engine_game: str, options: dict[str, str]) -> tuple[dict[str, str], Any]:
    """The options as the engine applied them and its analysis as JSON, or the refusal in words."""
    refusal = selectors.engine_refusal(kind=kind, game=game, slug=engine_game)
    if refusal:
        raise ValidationError(refusal)
    found = selectors.analyse(engine_game, options)
    if found.analysis is None:
        raise ValidationError(found.refusal)
    return dict(found.analysis.options), found.analysis.as_json()


def _figures_of_request(facility: Facility, kind: str, game: Game | None, engine_game: str,
                        engine_options: dict[str, str] | None,
                        stated_wagers: Sequence[Mapping[str, Any]] | None) -> tuple[dict[str, str], Any]:
    """The engine's figures for its game and options, or the facility's own: never both."""
    if stated_wagers is None:
        return _figures(kind, game, str(engine_game or ""), {str(k): str(v) for k, v in (engine_options or {}).items()})
    if engine_game or engine_options:
        raise ValidationError("A request carries the figures the engine computes for a game it models, or the "
                              "facility's own figures for a game or wager it does not model, never both.")
    return {}, _stated_figures(facility, stated_wagers)


@transaction.atomic
@acts_as_user
def request_prepare(
    *, facility: Facility, title: str, kind: str, classification: str = "", game: Game | None = None,
    description: str, engine_game: str = "", engine_options: dict[str, str] | None = None,
    stated_wagers: Sequence[Mapping[str, Any]] | None = None, reason: str,
    other_jurisdictions: str, copyright_status: str, copyright_details: str = "", trademark_status: str,
    trademark_details: str = "", patent_status: str, patent_details: str = "", user: Any,
) -> NewGameRequest:
    """A new request, unsigned: pictures are added next, then the compliance officer signs it. Its figures
    (§ 521.4(1)(ii)) are the engine's for ``engine_game`` and its options, or, for a game or wager the engine does
    not model, ``stated_wagers``: the facility's own exact figures of each wager with its method of computation
    (``name``, ``payout_odds``, ``probability``, ``true_odds``, ``house_edge``, ``simple``, ``method``)."""
    _allowed(user, facility)
    title = _text(title, 200, "Give the request a title: the name of the game, wager or feature.", "title")
    _kind_and_game(kind, classification, game)
    description = _text(description, MAX_LONG_TEXT, "Describe the game or feature in detail, with the rules of play "
                        "and wagering that would be used (§ 521.4(1)).", "description")
    options, figures = _figures_of_request(facility, kind, game, engine_game, engine_options, stated_wagers)
    reason = _text(reason, MAX_LONG_TEXT, "Say why the new table game or feature is being proposed (§ 521.4(2)).",
                   "reason")
    try:
        jurisdictions = jurisdictions_from(other_jurisdictions)
    except JurisdictionsError as error:
        raise ValidationError(str(error)) from None
    protections = _protections({"copyright": (copyright_status, copyright_details),
                                "trademark": (trademark_status, trademark_details),
                                "patent": (patent_status, patent_details)})
    return NewGameRequest.objects.create(
        facility=facility, title=title, kind=kind, classification=classification if kind == RequestKind.NEW_GAME
        else "", game=game, description=description, engine_game=str(engine_game or ""), engine_options=options,
        figures=figures, reason=reason, other_jurisdictions=jurisdictions, **protections)


def _image_refusal(name: str, data: bytes) -> str:
    """A PNG or JPEG is drawn into the request's PDF: it must open as an image of at most 40 megapixels."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                image.verify()
    except Exception:
        return f"{name} begins like an image but cannot be read as one. Nothing was saved."
    if width * height > MAX_PIXELS:
        return (f"{name} is {width:,} × {height:,} pixels: an image is at most {MAX_PIXELS // 1_000_000} million "
                f"pixels. Nothing was saved.")
    return ""


def _checked(files: Sequence[tuple[str, bytes]]) -> list[tuple[str, bytes, str]]:
    """(name, bytes, content type) of each file, or every refusal at once."""
    refusals: list[str] = []
    checked: list[tuple[str, bytes, str]] = []
    for raw_name, data in files:
        name = clean_file_name(raw_name)
        refusal = upload_refusal(name, len(data), data[:16])
        kind = file_kind(data[:16])
        if not refusal and kind is not None and kind.is_image:
            refusal = _image_refusal(name, data)
        if refusal:
            refusals.append(refusal)
        elif kind is not None:
            checked.append((name, data, kind.content_type))
    if refusals:
        raise ValidationError(refusals)
    return checked


@transaction.atomic
@acts_as_user
def request_pictures_add(*, request: NewGameRequest, kind: str, files: Sequence[tuple[str, bytes]], caption: str = "",
                         user: Any) -> list[RequestPicture]:
    """Sketches or pictures of the layout (§ 521.4(1)(iii)) or of the equipment (§ 521.4(1)(iv)): PNG, JPEG or
    PDF by their content, at most 5 MB each and 10 a request. One file refused saves none of them."""
    _allowed(user, request.facility)
    request = NewGameRequest.objects.select_for_update().get(pk=request.pk)
    if request.is_signed():
        raise ValidationError(f"{request.title} is signed: no picture is added once it is signed.")
    if kind not in PictureKind.values:
        raise ValidationError("Say whether the files show the game layout or the equipment.")
    if not files:
        raise ValidationError("Choose at least one file.")
    caption = _text(caption, MAX_CAPTION, "", "caption")
    held = RequestPicture.objects.filter(request=request).count()
    if held + len(files) > MAX_PICTURES:
        raise ValidationError(f"A request holds at most {MAX_PICTURES} sketches, pictures or documents; this one "
                              f"holds {held} and {len(files)} were chosen. Nothing was saved.")
    added = []
    for name, data, content_type in _checked(files):
        picture = RequestPicture.objects.create(request=request, kind=kind, caption=caption, name=name,
                                                content_type=content_type, size=len(data),
                                                sha256=hashlib.sha256(data).hexdigest())
        RequestPictureContent.objects.create(picture=picture, data=data)
        added.append(picture)
    return added


@transaction.atomic
@acts_as_user
def request_sign(*, request: NewGameRequest, password: str, user: Any) -> Signature:
    """The compliance officer's signature, once every item of § 521.4 is there: it covers the figures and the
    pictures' SHA-256 and freezes the request."""
    _allowed(user, request.facility)
    request = NewGameRequest.objects.select_for_update().get(pk=request.pk)
    refusals = selectors.filing_refusals(request)
    if refusals:
        raise ValidationError(refusals)
    signature = record_sign(record=request, slot="prepared", user=user, password=password)
    assert signature is not None
    return signature
