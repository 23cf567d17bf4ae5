"""Replaying the ledger: each serial's state as the sealed ledger lines say, by interval (pure, no database).

:class:`StateMap` holds non-overlapping runs of serials, each with a state and a place. Applying a line sets
its serials' state and place, and says which of them were not where the line says they came from. Its work
grows with the runs a line touches, never with the number of coupons.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise

from sortedcontainers import SortedDict

__all__ = ["Run", "StateMap", "differences"]


@dataclass(frozen=True)
class Run:
    first: int
    last: int
    state: str
    place: int | None


class StateMap:
    """Serials → (state, place), as non-overlapping runs keyed by their first serial."""

    def __init__(self) -> None:
        self.runs: SortedDict = SortedDict()  # first -> (last, state, place)

    def _overlapping(self, first: int, last: int) -> list[Run]:
        found = []
        start = self.runs.bisect_right(first) - 1
        for key in self.runs.islice(max(start, 0)):
            end, state, place = self.runs[key]
            if key > last:
                break
            if end >= first:
                found.append(Run(key, end, state, place))
        return found

    def apply(self, first: int, last: int, from_state: str, to_state: str, place: int | None) -> list[Run]:
        """Move ``first``–``last`` into ``to_state`` at ``place``; the parts that were not in ``from_state`` (all
        of them when ``from_state`` is empty, as for a receipt, and they were held already)."""
        touched = self._overlapping(first, last)
        wrong: list[Run] = []
        covered = first
        for run in touched:
            if run.first < first:
                self.runs[run.first] = (first - 1, run.state, run.place)
            else:
                del self.runs[run.first]
            if run.last > last:
                self.runs[last + 1] = (run.last, run.state, run.place)
            inside = Run(max(run.first, first), min(run.last, last), run.state, run.place)
            if not from_state or inside.state != from_state:  # held already / not where the line takes it from
                wrong.append(inside)
            if inside.first > covered and from_state:
                wrong.append(Run(covered, inside.first - 1, "", None))
            covered = inside.last + 1
        if from_state and covered <= last:
            wrong.append(Run(covered, last, "", None))
        self.runs[first] = (last, to_state, place)
        return wrong

    def __iter__(self) -> Iterator[Run]:
        for first, (last, state, place) in self.runs.items():
            yield Run(first, last, state, place)


def differences(replayed: StateMap, current: list[Run]) -> Iterator[tuple[int, int, Run | None, Run | None]]:
    """The spans where the replayed ledger and the current runs disagree: (first, last, ledger, current), a
    side None where it holds nothing."""
    points = sorted({r.first for r in replayed} | {r.last + 1 for r in replayed}
                    | {r.first for r in current} | {r.last + 1 for r in current})
    ledger_runs, current_runs = list(replayed), sorted(current, key=lambda r: r.first)
    li = ci = 0
    for start, stop in pairwise(points):
        while li < len(ledger_runs) and ledger_runs[li].last < start:
            li += 1
        while ci < len(current_runs) and current_runs[ci].last < start:
            ci += 1
        ledger = ledger_runs[li] if li < len(ledger_runs) and ledger_runs[li].first <= start else None
        now = current_runs[ci] if ci < len(current_runs) and current_runs[ci].first <= start else None
        same = (ledger is None and now is None) or (
            ledger is not None and now is not None and (ledger.state, ledger.place) == (now.state, now.place))
        if not same:
            yield start, stop - 1, ledger, now
