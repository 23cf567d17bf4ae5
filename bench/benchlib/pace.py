"""The machine's pace: a fixed piece of Python work and a fixed piece of PostgreSQL work, timed, so that two runs of
``make bench`` can be compared.

The 2-core machines the benches run on change speed from hour to hour with nothing else running: the same code
redeemed 283 to 475 coupons a second within one hour, and the same 20 generated days took 4.5 minutes one afternoon
against about 2.5 the day before (docs/scale.md). A figure beside the previous run's then shows the machine as much as
the code. The pace is measured before and after the benches (``bench/run.py``), kept with their figures, and compared
with the previous run's: a run on a machine markedly slower than the last says so beside its regressions.

Each workload is timed three times and the fastest kept (the least disturbed). Lower is faster.

    .venv/bin/python bench/benchlib/pace.py        # the pace now, in words
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

import psycopg

__all__ = ["SLOWER", "pace", "pace_words", "slower_than"]

SERVER = os.environ.get("BENCH_SERVER", "postgres://postgres@127.0.0.1:5432")
SLOWER = 1.2  # a machine this much slower than at the previous run is named beside the regressions


def _python() -> None:
    """Allocation, hashing, sorting and encoding: what the application's requests and the generator do most."""
    rows = [(n, f"MB{n:09d}", n * 7919 % 1000) for n in range(150_000)]
    rows.sort(key=lambda row: (row[2], row[1]))
    by_key = {row[1]: row for row in rows}
    json.dumps([list(row) for row in rows[:40_000]])
    sum(len(key) for key in by_key if key.endswith("7"))


def _postgres(url: str) -> Callable[[], None]:
    """Rows inserted, indexed and read back in a temporary table (rolled back): the writes the generator and the
    scans make."""

    def work() -> None:
        with psycopg.connect(url) as connection, connection.cursor() as cursor:
            cursor.execute("SET LOCAL jit = off")
            cursor.execute("CREATE TEMPORARY TABLE pace (id bigint PRIMARY KEY, v text) ON COMMIT DROP")
            cursor.execute("INSERT INTO pace SELECT g, md5(g::text) FROM generate_series(1, 100000) g")
            cursor.execute("CREATE INDEX ON pace (v)")
            cursor.execute("SELECT count(*), max(length(v)) FROM pace WHERE v >= 'a' AND id % 3 = 0")
            cursor.fetchall()
            connection.rollback()

    return work


def _fastest(work: Callable[[], None], times: int = 3) -> float:
    best = float("inf")
    for _ in range(times):
        began = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - began)
    return round(best * 1000, 1)


def pace(server: str = SERVER) -> dict[str, Any]:
    """``{"python_ms": …, "postgres_ms": …}`` (None for PostgreSQL when the server cannot be reached)."""
    measured: dict[str, Any] = {"python_ms": _fastest(_python), "postgres_ms": None}
    try:
        measured["postgres_ms"] = _fastest(_postgres(f"{server}/postgres"))
    except (psycopg.Error, OSError) as unreachable:  # the pace is a note beside the figures, not one of them
        measured["postgres_error"] = str(unreachable).splitlines()[0][:120]
    return measured


def slower_than(now: dict[str, Any] | None, before: dict[str, Any] | None) -> float | None:
    """How many times slower the machine ran now than ``before`` (the larger of the two workloads' ratios), or None
    if either is unknown."""
    if not now or not before:
        return None
    ratios = [now[key] / before[key] for key in ("python_ms", "postgres_ms") if now.get(key) and before.get(key)]
    return round(max(ratios), 2) if ratios else None


def pace_words(measured: dict[str, Any] | None) -> str:
    if not measured:
        return "not measured"
    postgres = f"{measured['postgres_ms']:,.0f} ms" if measured.get("postgres_ms") else "not reached"
    return f"Python {measured['python_ms']:,.0f} ms, PostgreSQL {postgres}"


if __name__ == "__main__":
    print(f"the machine's pace (lower is faster): {pace_words(pace())}")
