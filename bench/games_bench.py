"""Game math benchmark (issue 13): each game's full exact analysis — every wager, every option's comparison — in
under 1 second.

For every game of ``compliance.games.math``: the analysis at the regulation's paytable (``GameMath.run()``) and
the side-by-side comparison of its options (``compare.comparisons``), each the median of several runs in a fresh
process state after one warm-up (the first run, which fills any per-process cache such as a checksum-verified
table, is reported too). The baseline, in the same run: enumerating the 216 outcomes of three dice with
``fractions.Fraction`` — the smallest exact computation the engine does — so the ratio shows how many times that
each game costs.

    .venv/bin/python bench/games_bench.py

Pure Python: no database. Prints PASS or MISS per game and exits 0: it reports, it is not a test.
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_S = 1.0
REPS = 5


def _median(function: Callable[[], Any], reps: int = REPS) -> float:
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _baseline() -> None:
    counts: dict[int, Fraction] = {}
    for dice in product(range(1, 7), repeat=3):
        counts[sum(dice)] = counts.get(sum(dice), Fraction(0)) + Fraction(1, 216)
    assert sum(counts.values()) == 1


def main() -> int:
    from benchlib.table import row, save

    from compliance.games.math.compare import comparisons
    from compliance.games.math.registry import games

    baseline = _median(_baseline, 20)
    print(f"baseline: the 216 outcomes of three dice in Fractions, {baseline * 1000:.2f} ms")
    rows = []
    for game in games():
        started = time.perf_counter()
        game.run()
        first = time.perf_counter() - started
        analysis = _median(game.run)
        compared = _median(functools.partial(comparisons, game, game.defaults()))
        whole = analysis + compared
        verdict = "PASS" if max(first, whole) < TARGET_S else "MISS"
        print(f"{game.slug:22} first {first * 1000:8.1f} ms; analysis {analysis * 1000:8.1f} ms; options compared "
              f"{compared * 1000:8.1f} ms; {whole / baseline:10.0f}× the baseline; target < {TARGET_S:.0f} s: {verdict}")
        rows.append(row(f"{game.slug}: exact analysis and options compared", f"< {TARGET_S:.0f} s",
                        f"{whole * 1000:.0f} ms (first {first * 1000:.0f} ms)",
                        f"216 dice outcomes {baseline * 1000:.2f} ms", whole / baseline, verdict == "PASS"))
    save("games", rows)
    return 0 if all(r["result"] == "PASS" for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
