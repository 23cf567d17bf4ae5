"""Which variation of its game a table plays, asked by the apps that handle the table's equipment (High Roll Dice's
six dice, § 675a.6(a), only where the approved Rules Submission in force offers the variation and the table is set
to it, § 521.8(b)). The Rules Submission app, which keeps the tables' settings, registers the reader (its
``apps.py``), so the equipment app never imports it."""

from __future__ import annotations

from collections.abc import Callable

from compliance.models import GamingTable

__all__ = ["plays_six_dice", "register_variation_reader"]

Reader = Callable[[GamingTable], bool]
_READERS: list[Reader] = []


def register_variation_reader(reader: Reader) -> None:
    if reader not in _READERS:
        _READERS.append(reader)


def plays_six_dice(table: GamingTable) -> bool:
    """Whether ``table`` plays the six-dice variation of its game now. With no Rules Submission app installed no
    table plays a variation (the game's own rules, § 521.8(b))."""
    return any(reader(table) for reader in _READERS)
