"""What each option costs the house: the figures of a game side by side, pure (no Django).

For every option with a fixed set of choices (Asia Poker's paytable A, B or C), one comparison with a column per
choice, the other options as chosen; when options typed as text (Sic Bo's odds) differ from the regulation's,
one comparison of the regulation paytable against the paytable as chosen."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from compliance.games.math.core import Analysis, GameMath, percent

__all__ = ["Comparison", "comparisons"]


@dataclass(frozen=True)
class Comparison:
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[Fraction | None, ...]], ...]  # (wager, house edge per column; None: not offered)

    def percent_rows(self) -> list[list[str]]:
        return [[name, *("—" if edge is None else f"{percent(edge)}%" for edge in edges)] for name, edges in self.rows]


def _side_by_side(title: str, columns: list[str], analyses: list[Analysis]) -> Comparison:
    names: list[tuple[str, str]] = []
    for analysis in analyses:
        for wager in analysis.wagers:
            if (wager.code, wager.name) not in names:
                names.append((wager.code, wager.name))
    rows = []
    for code, name in names:
        edges = []
        for analysis in analyses:
            found = next((w for w in analysis.wagers if w.code == code), None)
            edges.append(found.house_edge if found is not None else None)
        rows.append((name, tuple(edges)))
    return Comparison(title, tuple(columns), tuple(rows))


def comparisons(game: GameMath, chosen: Mapping[str, str]) -> list[Comparison]:
    chosen = game.defaults() | dict(chosen)
    found = []
    for spec in game.options:
        if len(spec.choices) > 1:
            analyses = [game.run(chosen | {spec.name: choice}) for choice in spec.choices]
            found.append(_side_by_side(f"{spec.label} (§ {spec.clause})", [f"{spec.label}: {c}" for c in spec.choices],
                                       analyses))
    typed = [spec for spec in game.options if not spec.choices]
    if any(chosen.get(spec.name, spec.default) != spec.default for spec in typed):
        regulation = chosen | {spec.name: spec.default for spec in typed}
        found.append(_side_by_side("The regulation's paytable and the paytable as chosen",
                                   ["Regulation", "As chosen"], [game.run(regulation), game.run(chosen)]))
    return found
