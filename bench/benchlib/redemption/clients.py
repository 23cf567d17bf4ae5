"""The load sent by several client processes at once (issue 27: "redemptions a second and p99 through gunicorn with
several client processes").

One asyncio process can itself become what limits a run: its event loop parses every answer and schedules every
request on one core, and a late loop shows as server latency. Here the lanes (ranges of distributed serials) are
dealt to ``processes`` processes, each running the same closed or open loop (:mod:`benchlib.redemption.load`) over
its own lanes, at its share of the connections or of the offered rate, all starting at one agreed moment
(``time.perf_counter`` is the machine's monotonic clock on Linux, the same in every process). Their results are put
together as one run's: the figures (rate, percentiles) are the whole floor's, and the client's CPU is every process's.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

from benchlib.redemption.database import PER_LANE
from benchlib.redemption.load import Client, Lanes, Result, closed_loop, open_loop

__all__ = ["run_in_processes", "split_lanes"]


def _end(lane: int) -> int:
    return (lane + 1) * PER_LANE


def split_lanes(lanes: Lanes, parts: int) -> list[list[int]]:
    """Each part's cursors: the lanes still free dealt in turn; in each part every other lane stands past its end,
    so that part never takes it."""
    free = list(lanes.free)
    owned = [set(free[n::parts]) for n in range(parts)]
    return [[cursor if lane in mine else _end(lane) + 1 for lane, cursor in enumerate(lanes.cursor)]
            for mine in owned if mine]


def _part(port: int, token: str, key: bool, cursor: list[int], connections: int, rate: float | None,
          seconds: float, start_at: float) -> tuple[list[tuple[float, float, int]], list[int], float]:
    """One client process: wait for the agreed moment, run its loop, give back its results, cursors and CPU."""
    lanes = Lanes(cursor=list(cursor))
    cpu = time.process_time()
    if (delay := start_at - time.perf_counter()) > 0:
        time.sleep(delay)

    async def run() -> list[Result]:
        if rate is None:
            clients = [Client(port, token, key) for _ in range(connections)]
            batches = await asyncio.gather(*(closed_loop(c, lanes, 1, seconds) for c in clients))
            for client in clients:
                client.close()
            return [r for batch in batches for r in batch]
        return await open_loop(lambda: Client(port, token, key), lanes, rate, seconds)

    results = asyncio.run(run())
    return [(r.started, r.ended, r.status) for r in results], lanes.cursor, time.process_time() - cpu


async def run_in_processes(port: int, token: str, key: bool, lanes: Lanes, processes: int, *, connections: int,
                           rate: float | None, seconds: float) -> tuple[list[Result], float, float]:
    """The loop run by ``processes`` processes over the lanes dealt between them (``connections`` or ``rate`` shared
    out): every result, the moment they all began, and the CPU seconds the client processes used. The parent's
    lanes move on past every serial sent."""
    parts = split_lanes(lanes, processes)
    count = len(parts)
    loop = asyncio.get_running_loop()
    with ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("spawn")) as pool:
        start_at = time.perf_counter() + 1.0  # a moment ahead: each process is started (the bench imported) by then
        answers = await asyncio.gather(*(
            loop.run_in_executor(pool, _part, port, token, key, cursor,
                                 max(1, round(connections / count)) if rate is None else 0,
                                 None if rate is None else rate / count, seconds, start_at)
            for cursor in parts))
    for cursor, (_, moved, _) in zip(parts, answers, strict=True):
        for lane, value in enumerate(cursor):
            if value <= _end(lane):  # the part's own lane
                lanes.cursor[lane] = moved[lane]
    lanes.free.clear()
    lanes.free.extend(lane for lane, serial in enumerate(lanes.cursor) if 0 < serial <= _end(lane))
    results = [Result(*row) for rows, _, _ in answers for row in rows]
    return results, start_at, sum(cpu for _, _, cpu in answers)

