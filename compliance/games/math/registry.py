"""Every game of the engine; importing this module registers them all in ``core.GAMES``."""

from __future__ import annotations

from compliance.games.math import core

__all__ = ["game", "games"]


def _load() -> None:
    from compliance.games.math import (  # noqa: F401  (each module registers its game)
        asia_poker,
        high_roll_dice,
        props_and_hops,
        sic_bo,
        three_dice_football,
    )


def games() -> list[core.GameMath]:
    _load()
    return list(core.GAMES.values())


def game(slug: str) -> core.GameMath | None:
    _load()
    return core.GAMES.get(slug)
