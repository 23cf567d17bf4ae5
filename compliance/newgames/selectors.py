"""Reads of the requests to offer a new table game or feature (§ 521.4): the facility's requests, their pictures,
the exact figures of each wager (from the engine, or as the facility states them for a game or wager the engine
does not model), and what still stands between a request and its signature."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet

from compliance.games.documents import figure_rows
from compliance.games.math.core import Analysis, GameMath, OptionError
from compliance.games.math.registry import game as engine_game
from compliance.games.math.registry import games as engine_games
from compliance.models import Facility, Game
from compliance.newgames.models import (
    STATED_BY,
    NewGameRequest,
    PictureKind,
    RequestKind,
    RequestPicture,
    RequestPictureContent,
)
from compliance.newgames.rules import engine_fits
from compliance.newgames.stated import StatedError, StatedWager, read_wagers, wager_text, wagers_from_json

__all__ = [
    "CHANGED",
    "NO_ENGINE_MODEL",
    "Figures",
    "Stated",
    "analyse",
    "engine_choices",
    "engine_for",
    "engine_refusal",
    "figures_of",
    "filing_refusals",
    "games_for_features",
    "picture_bytes",
    "picture_in",
    "pictures_of",
    "request_in",
    "requests_of",
    "stated_check",
    "stated_preview",
]

NO_ENGINE_MODEL = ("The game engine has no model of {what}, so it cannot give the true odds, the payout odds and the "
                   "house advantage of each wager (§ 521.4(1)(ii)): file the request with the facility's own exact "
                   "figures instead (“a game or wager the system does not model” on the first page of a request).")


def requests_of(facility: Facility) -> QuerySet[NewGameRequest]:
    return (NewGameRequest.objects.filter(facility=facility).select_related("game", "created_by__profile")
            .prefetch_related("signatures")
            .annotate(picture_count=Count("pictures"),
                      equipment_count=Count("pictures", filter=Q(pictures__kind=PictureKind.EQUIPMENT))))


def request_in(facility: Facility, pk: int) -> NewGameRequest | None:
    return (NewGameRequest.objects.filter(facility=facility, pk=pk).select_related("game", "created_by__profile")
            .prefetch_related("signatures").first())


def pictures_of(request: NewGameRequest) -> list[RequestPicture]:
    """The request's pictures, without their bytes."""
    return list(RequestPicture.objects.filter(request=request).order_by("pk"))


def picture_in(request: NewGameRequest, pk: int) -> RequestPicture | None:
    return RequestPicture.objects.filter(request=request, pk=pk).first()


def picture_bytes(picture: RequestPicture) -> bytes | None:
    """The picture's bytes, or ``None`` when they no longer match the SHA-256 recorded at upload."""
    content = RequestPictureContent.objects.filter(picture=picture).first()
    if content is None:
        return None
    data = bytes(content.data)
    return data if hashlib.sha256(data).hexdigest() == picture.sha256 else None


def engine_for(slug: str) -> GameMath | None:
    return engine_game(slug) if slug else None


def engine_choices() -> list[GameMath]:
    return sorted(engine_games(), key=lambda g: g.title)


def games_for_features() -> QuerySet[Game]:
    return Game.objects.order_by("name")


def engine_refusal(*, kind: str, game: Game | None, slug: str) -> str:
    """Why the engine's game ``slug`` cannot give the figures of this request ("" when it can)."""
    engine = engine_for(slug)
    if engine is None:
        what = f"“{slug}”" if slug else "this game"
        return NO_ENGINE_MODEL.format(what=what)
    if kind == RequestKind.NEW_FEATURE and game is not None and not engine_fits(game.chapter, engine.chapter):
        modelled = next((g for g in engine_choices() if engine_fits(game.chapter, g.chapter)), None)
        if modelled is None:
            return NO_ENGINE_MODEL.format(what=game.name)
        return (f"A new wager or feature of {game.name} is filed with the figures of {game.name}: choose the "
                f"engine's {modelled.title}, not {engine.title}.")
    return ""


@dataclass(frozen=True)
class Stated:
    """The figures of each wager as the facility states them (the engine does not model the game or wager)."""

    stated_by: str
    wagers: list[StatedWager]

    @property
    def rows(self) -> list[list[str]]:
        """Wager, payout odds, probability of winning, true odds, house advantage (in lowest terms, then as a
        percentage computed from it) and whether it was checked: the filing's rows."""
        return [w.filed_row() for w in self.wagers]


@dataclass(frozen=True)
class Figures:
    """The exact figures of each wager: as the engine computes them today for the request's game and options, or
    (``stated``) as the facility stated them for a game or wager the engine does not model."""

    engine: GameMath | None
    analysis: Analysis | None
    refusal: str = ""  # why there are none
    changed: bool = False  # they differ from the figures kept with the request when it was prepared
    rows: list[list[str]] = field(default_factory=list)
    stated: Stated | None = None

    @property
    def options(self) -> list[tuple[str, str]]:
        """(label, value) of each option applied."""
        if self.engine is None or self.analysis is None:
            return []
        labels = {o.name: f"{o.label} (§ {o.clause})" for o in self.engine.options}
        return [(labels.get(name, name), value) for name, value in self.analysis.options]


def analyse(slug: str, options: dict[str, str]) -> Figures:
    engine = engine_for(slug)
    if engine is None:
        return Figures(None, None, NO_ENGINE_MODEL.format(what=f"“{slug}”" if slug else "this game"))
    try:
        analysis = engine.run(options)
    except OptionError as error:
        return Figures(engine, None, str(error))
    return Figures(engine, analysis, rows=figure_rows(analysis))


def stated_check(rows: Sequence[Mapping[str, Any]], stated_by: str) -> tuple[Stated | None, list[str]]:
    """The facility's figures of each wager as typed, read and checked exactly: (the figures, []) or (None, every
    refusal in words)."""
    try:
        return Stated(stated_by, read_wagers([wager_text(row) for row in rows])), []
    except StatedError as error:
        return None, error.messages


def stated_preview(rows: Sequence[Mapping[str, Any]], stated_by: str) -> tuple[Figures | None, list[str]]:
    """The facility's figures as typed, shown as they would be filed (nothing saved), or every refusal."""
    stated, refusals = stated_check(rows, stated_by)
    return (Figures(None, None, stated=stated) if stated is not None else None), refusals


def _stated_of(request: NewGameRequest) -> Figures:
    kept = dict(request.figures or {})
    try:
        wagers = wagers_from_json(kept.get("wagers"))
    except StatedError as error:
        return Figures(None, None, "The facility's figures kept with this request no longer read: "
                       + " ".join(error.messages) + " Prepare the request anew.")
    return Figures(None, None, stated=Stated(str(kept.get(STATED_BY) or request.facility.name), wagers))


def figures_of(request: NewGameRequest) -> Figures:
    """The figures of the request: the facility's own, kept as stated, when it names no engine game; otherwise
    the engine's for its game and options today, marked ``changed`` if they are not those kept."""
    if request.figures_stated:
        return _stated_of(request)
    options = {str(k): str(v) for k, v in dict(request.engine_options or {}).items()}
    found = analyse(request.engine_game, options)
    if found.analysis is None:
        return found
    changed = bool(request.figures) and found.analysis.as_json() != request.figures
    return Figures(found.engine, found.analysis, changed=changed, rows=found.rows)


CHANGED = ("The engine's exact figures for this game and these options are no longer those computed when the "
           "request was prepared (the engine was corrected since): prepare a new request, which carries today's "
           "figures.")


def filing_refusals(request: NewGameRequest) -> list[str]:
    """What must be put right before the request is signed and filed, in words ([] when nothing)."""
    refusals: list[str] = []
    figures = figures_of(request)
    if figures.refusal:
        refusals.append(figures.refusal)
    elif figures.changed:
        refusals.append(CHANGED)
    pictures = pictures_of(request)
    if not any(p.kind == PictureKind.EQUIPMENT for p in pictures):
        refusals.append("Add at least one sketch or picture of the equipment used to play the game "
                        "(§ 521.4(1)(iv)) before signing.")
    damaged = [p.name for p in pictures if picture_bytes(p) is None]
    if damaged:
        refusals.append(f"The stored bytes of {', '.join(damaged)} no longer match the SHA-256 recorded at upload: "
                        "they were altered outside the application. Tell the compliance officer; prepare the "
                        "request anew.")
    return refusals
