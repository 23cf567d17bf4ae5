"""The load's own clock: how late the client's event loop wakes, so a figure it measures can be told apart from its
own delay.

Every latency of the busy floor is counted by one asyncio process from the moment a request was due. That process
runs on the same two cores as gunicorn, PostgreSQL and the worker: when they keep both cores busy it waits for the
CPU like any of them, and a scan's answer that has arrived sits unread (or a scan due is sent late) while it waits —
time counted in the scan's latency, though no server kept the scan waiting. A table's scanner on the casino floor is
a device of its own, with its own CPU.

:class:`LoopLag` wakes every :data:`TICK` seconds and records how late it woke (what the loop's other work and the
machine's scheduler added). Its p99 and maximum beside the scans' say how much of their tail is the client's own:
a loop lag near the scans' p99 means the figure measured the client's wait for a core.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

__all__ = ["TICK", "LoopLag"]

TICK = 0.005


class LoopLag:
    def __init__(self) -> None:
        self.lags: list[float] = []  # ms late, one per tick
        self.moments: list[float] = []

    async def run(self, since: float, until: float) -> None:
        while (now := time.perf_counter()) < until:
            await asyncio.sleep(TICK)
            woke = time.perf_counter()
            if now >= since:
                self.lags.append(max(0.0, (woke - now - TICK) * 1000))
                self.moments.append(now)

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.lags)
        if not ordered:
            return {"ticks": 0}

        def at(q: float) -> float:
            return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)

        return {"ticks": len(ordered), "p50_ms": at(0.5), "p95_ms": at(0.95), "p99_ms": at(0.99),
                "max_ms": round(ordered[-1], 1), "over_20_ms": sum(1 for lag in ordered if lag > 20)}
