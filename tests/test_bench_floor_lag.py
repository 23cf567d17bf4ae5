"""The busy floor's measure of its own client's lag (bench/benchlib/floor/lag.py): a loop kept from running shows."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from benchlib.floor.lag import LoopLag

T = TypeVar("T")


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine on a loop of its own, in a thread of its own: a browser test of the same worker may have left
    its event loop running in this one."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _measured(block_s: float) -> dict[str, float]:
    lag = LoopLag()
    start = time.perf_counter()
    ticking = asyncio.create_task(lag.run(start, start + 0.4))
    await asyncio.sleep(0.1)
    time.sleep(block_s)  # the client's loop kept from running, as a busy machine keeps it from a core
    await ticking
    return lag.summary()


def test_a_loop_kept_from_running_shows_as_the_client_s_lag() -> None:
    blocked = _run(_measured(0.12))
    assert blocked["ticks"] > 10
    assert blocked["max_ms"] >= 100  # the one tick that waited behind the blocked loop
    assert blocked["over_20_ms"] >= 1


def test_a_free_loop_wakes_on_time_and_before_since_nothing_counts() -> None:
    async def run() -> tuple[LoopLag, float]:
        lag = LoopLag()
        since = time.perf_counter() + 0.1
        await lag.run(since, since + 0.1)
        return lag, since

    lag, since = _run(run())
    assert lag.moments and min(lag.moments) >= since
    assert lag.summary()["ticks"] == len(lag.lags) <= 21  # only the 0.1 s after ``since``: ticks of 5 ms at least
