"""The redemption benchmark's load: a small asyncio HTTP/1.1 client (keep-alive when the server offers it),
lanes of distributed serials (no two requests in flight move one range), closed and open loops, and the
figures (rate, percentiles, statuses) of what they measured."""

from __future__ import annotations

import asyncio
import collections
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from benchlib.redemption.database import LANES, PER_LANE, SHARED_LANE, URL_PATH

__all__ = ["Client", "Figure", "Lanes", "Result", "closed_loop", "figure_of", "one_range", "open_loop", "scan_body"]


def scan_body(serial: int) -> dict[str, str]:
    return {"serial": f"MP-{serial:07d}", "position": "pass_line", "chips": "25.00"}


@dataclass
class Result:
    started: float
    ended: float
    status: int


@dataclass
class Lanes:
    """Ranges of distributed serials; a request holds one lane, so no two in flight move the same range."""

    cursor: list[int] = field(default_factory=lambda: [lane * PER_LANE + 1 for lane in range(LANES)])
    free: collections.deque[int] = field(default_factory=collections.deque)
    waiters: collections.deque[asyncio.Future[None]] = field(default_factory=collections.deque)

    def __post_init__(self) -> None:
        self.free.extend(lane for lane, serial in enumerate(self.cursor) if serial <= (lane + 1) * PER_LANE)

    @property
    def remaining(self) -> int:
        """Coupons the lanes still hold (a kept database loses some at each run)."""
        return sum((lane + 1) * PER_LANE - serial + 1 for lane, serial in enumerate(self.cursor) if serial > 0)

    async def take(self) -> tuple[int, int]:
        while not self.free:
            waiter = asyncio.get_running_loop().create_future()
            self.waiters.append(waiter)
            await waiter
        lane = self.free.popleft()
        serial = self.cursor[lane]
        self.cursor[lane] += 1
        if self.cursor[lane] > (lane + 1) * PER_LANE:  # the lane is used up: it is not given back
            self.cursor[lane] = -1
        return lane, serial

    def give_back(self, lane: int) -> None:
        if self.cursor[lane] > 0:
            self.free.append(lane)
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                break


class Client:
    def __init__(self, port: int, token: str, idempotency_key: bool) -> None:
        self.port, self.token, self.key = port, token, idempotency_key
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.connections_opened = 0

    def _request(self, serial: int) -> bytes:
        body = json.dumps(scan_body(serial)).encode()
        key = f"Idempotency-Key: scan-{serial}\r\n" if self.key else ""
        return (f"POST {URL_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {self.token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nX-Forwarded-Proto: https\r\n"
                f"{key}\r\n").encode() + body

    async def post(self, serial: int) -> int:
        request = self._request(serial)
        for _ in range(2):
            reused = bool(self.idle)
            if reused:
                reader, writer = self.idle.pop()
            else:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                self.connections_opened += 1
            try:
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
            except (ConnectionError, asyncio.IncompleteReadError):
                writer.close()
                if reused:  # the server closed an idle keep-alive connection before reading: send again
                    continue
                return 599
            lower = head.lower()
            length = re.search(rb"\r\ncontent-length:\s*(\d+)", lower)
            if length is None:
                writer.close()
                return 598
            await reader.readexactly(int(length.group(1)))
            if b"\r\nconnection: close" in lower:
                writer.close()
            else:
                self.idle.append((reader, writer))
            return int(head[9:12])
        return 599

    def close(self) -> None:
        for _, writer in self.idle:
            writer.close()
        self.idle.clear()


async def closed_loop(client: Client, lanes: Lanes, connections: int, seconds: float) -> list[Result]:
    results: list[Result] = []
    stop = time.perf_counter() + seconds

    async def one_connection() -> None:
        while (started := time.perf_counter()) < stop:
            lane, serial = await lanes.take()
            try:
                status = await client.post(serial)
            finally:
                lanes.give_back(lane)
            results.append(Result(started, time.perf_counter(), status))

    # One Client per connection keeps each connection's keep-alive socket its own.
    await asyncio.gather(*(one_connection() for _ in range(connections)))
    return results


async def open_loop(make_client: Any, lanes: Lanes, rate: float, seconds: float) -> list[Result]:
    """A scan every 1/rate seconds, whatever the server does; latency from the scheduled moment."""
    results: list[Result] = []
    pool: list[Client] = []
    tasks = set()

    async def one(scheduled: float) -> None:
        lane, serial = await lanes.take()
        client = pool.pop() if pool else make_client()
        try:
            status = await client.post(serial)
        finally:
            lanes.give_back(lane)
            pool.append(client)
        results.append(Result(scheduled, time.perf_counter(), status))

    start = time.perf_counter() + 0.01
    for n in range(int(rate * seconds)):
        scheduled = start + n / rate
        if (delay := scheduled - time.perf_counter()) > 0:
            await asyncio.sleep(delay)
        task = asyncio.create_task(one(scheduled))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    await asyncio.gather(*tasks)
    for client in pool:
        client.close()
    return results


@dataclass
class Figure:
    label: str
    rate: float
    p50: float = 0.0
    p95: float = 0.0
    p99: float = 0.0
    errors: int = 0
    requests: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)  # ms of CPU per request, by process group

    def line(self) -> str:
        errors = f"errors {self.errors}" + (f" {dict(self.statuses)}" if self.errors else "")
        return (f"{self.label:<34} {self.rate:7.0f}/s  p50 {self.p50:5.1f}  p95 {self.p95:5.1f}  "
                f"p99 {self.p99:6.1f} ms  {errors}")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def figure_of(label: str, results: list[Result], since: float, seconds: float) -> Figure:
    """Requests started in the measured window (after the warm-up)."""
    window = [r for r in results if r.started >= since]
    latencies = [(r.ended - r.started) * 1000 for r in window]
    statuses = collections.Counter(r.status for r in window)
    done = [r for r in window if r.ended <= since + seconds]
    ok = sum(1 for r in done if r.status == 201)
    return Figure(label, ok / seconds, _percentile(latencies, 0.50), _percentile(latencies, 0.95),
                  _percentile(latencies, 0.99), sum(n for s, n in statuses.items() if s != 201), len(window),
                  dict(statuses))


async def one_range(port: int, token: str, first: int, connections: int, seconds: float) -> Figure:
    """Scans of consecutive coupons of one distributed range, from several tables at once."""
    serials = iter(range(first, (SHARED_LANE + 1) * PER_LANE + 1))

    class OneRange(Lanes):
        async def take(self) -> tuple[int, int]:
            return 0, next(serials)

        def give_back(self, lane: int) -> None:
            pass

    client = Client(port, token, idempotency_key=True)
    began = time.perf_counter()
    results = await closed_loop(client, OneRange(), connections, seconds)
    client.close()
    return figure_of(f"one range, {connections} conns", results, began, seconds)


