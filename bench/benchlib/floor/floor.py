"""The floor's scanners, the watch on PostgreSQL, and what was measured.

**Scanners.** Each table's scanner (its own token, its own connection) scans coupons at random moments, ``rate /
tables`` a second on average (a Poisson process per table, so scans come in bursts as wagers are laid); a table sends
its next scan when the last is answered (one scanner, one dealer), and its latency is counted from the moment the scan
was due, so a server falling behind shows in the figures. A table more than :data:`BEHIND` seconds behind its own
schedule skips what it missed (counted: a floor the server cannot keep up with). Coupons are handed out in ranges;
each scan takes the next coupon of the floor's one sequence (coupons of one range redeemed at many tables).

**PostgreSQL**, :data:`WATCH_EVERY` seconds: the connections to the database (``pg_stat_activity``), and each lock
not granted (``pg_locks``) with how long its statement has waited (``now() - query_start`` of the waiting backend:
at most the wait plus the statement's work before it): the longest seen, and what waited.
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

from benchlib.redemption.load import Client

__all__ = ["BEHIND", "WATCH_EVERY", "Floor", "Scanner", "Watch", "percentile"]

BEHIND = 5.0
WATCH_EVERY = 0.25
URL_PATH = "/api/v1/coupons/redemptions/"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Kind:
    """Every request of one kind: its latencies (ms, from the moment it was due), the moments they were due
    (``perf_counter``), and statuses."""

    latencies: list[float] = field(default_factory=list)
    moments: list[float] = field(default_factory=list)
    statuses: collections.Counter[int] = field(default_factory=collections.Counter)
    errors: int = 0

    def summary(self) -> dict[str, Any]:
        return {"count": len(self.latencies), "errors": self.errors, "statuses": dict(self.statuses),
                "p50_ms": round(percentile(self.latencies, 0.50), 1), "p95_ms": round(percentile(self.latencies, 0.95), 1),
                "p99_ms": round(percentile(self.latencies, 0.99), 1),
                "max_ms": round(max(self.latencies), 1) if self.latencies else None}

    def windows(self, start: float, seconds: float = 10.0) -> list[dict[str, Any]]:
        """The requests by window of ``seconds`` from ``start``: where in the run the slow ones were."""
        by: dict[int, list[float]] = collections.defaultdict(list)
        for moment, latency in zip(self.moments, self.latencies, strict=True):
            by[int((moment - start) // seconds)].append(latency)
        return [{"from_s": round(index * seconds), "count": len(found), "p99_ms": round(percentile(found, 0.99), 1),
                 "max_ms": round(max(found), 1)} for index, found in sorted(by.items())]


class Floor:
    """What the load did, by kind, within the measured window (``since`` on)."""

    def __init__(self) -> None:
        self.kinds: dict[str, Kind] = collections.defaultdict(Kind)
        self.since = 0.0
        self.missed = 0
        self.scans_ok = 0

    def record(self, kind: str, started: float, ended: float, status: int, ok: bool) -> None:
        if started < self.since:
            return
        found = self.kinds[kind]
        found.latencies.append((ended - started) * 1000)
        found.moments.append(started)
        found.statuses[status] += 1
        found.errors += 0 if ok else 1
        if kind == "scan" and ok:
            self.scans_ok += 1


class Coupons:
    """The floor's coupons handed out today, one after another across the ranges."""

    def __init__(self, prefix: str, digits: int, ranges: list[list[int]]) -> None:
        self.prefix, self.digits = prefix, digits
        self.serials = (n for first, last in ranges for n in range(first, last + 1))

    def next(self) -> str | None:
        number = next(self.serials, None)
        return None if number is None else f"{self.prefix}-{number:0{self.digits}d}"


class Scanner(Client):
    """A table's scanner: its token, a position its game allows, an Idempotency-Key with each scan."""

    def __init__(self, port: int, table: dict[str, str]) -> None:
        super().__init__(port, table["token"], idempotency_key=True)
        self.number, self.position = table["number"], table["position"]
        self.serial = ""

    def _request(self, serial: int) -> bytes:  # the serial is the scan's text here (Coupons.next)
        body = json.dumps({"serial": self.serial, "position": self.position, "chips": "25.00"}).encode()
        return (f"POST {URL_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {self.token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nX-Forwarded-Proto: https\r\n"
                f"Idempotency-Key: floor-{self.serial}\r\n\r\n").encode() + body

    async def scan(self, text: str) -> int:
        self.serial = text
        return await self.post(0)

    async def run(self, floor: Floor, coupons: Coupons, per_second: float, until: float, start: float) -> None:
        """Scans due at random moments (``per_second`` on average) until ``until``."""
        due = start + random.expovariate(per_second)
        while due < until:
            now = time.perf_counter()
            if due > now:
                await asyncio.sleep(due - now)
            elif now - due > BEHIND:  # the server cannot keep up: skip what this table missed
                while now - due > BEHIND:
                    floor.missed += 1 if due >= floor.since else 0
                    due += random.expovariate(per_second)
                continue
            text = coupons.next()
            if text is None:
                return
            status = await self.scan(text)
            floor.record("scan", due, time.perf_counter(), status, status == 201)
            due += random.expovariate(per_second)
        self.close()


class Watch:
    """PostgreSQL watched every :data:`WATCH_EVERY` seconds: connections, and locks not granted."""

    def __init__(self, dsn: str, database: str) -> None:
        self.dsn, self.database = dsn, database
        self.peak_connections = 0
        self.peak_total = 0
        self.samples = 0
        self.longest_wait = 0.0
        self.waits: dict[str, float] = {}  # what waited (the statement's start) -> its longest wait seen
        self.max_connections = 0

    async def run(self, until: float) -> None:
        import psycopg

        async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True) as connection:
            shown: Any = await (await connection.execute("SHOW max_connections")).fetchone()
            self.max_connections = int(shown[0])
            while time.perf_counter() < until:
                await self._sample(connection)
                await asyncio.sleep(WATCH_EVERY)

    async def _sample(self, connection: Any) -> None:
        rows: Any = await (await connection.execute(
            "SELECT count(*) FILTER (WHERE datname = %s), count(*) FROM pg_stat_activity "
            "WHERE backend_type = 'client backend'", [self.database])).fetchone()
        self.peak_connections = max(self.peak_connections, rows[0])
        self.peak_total = max(self.peak_total, rows[1])
        waiting = await (await connection.execute(
            "SELECT extract(epoch FROM now() - a.query_start), l.locktype, l.mode, left(a.query, 90) "
            "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE NOT l.granted AND a.datname = %s", [self.database])).fetchall()
        self.samples += 1
        for seconds, locktype, mode, query in waiting:
            what = f"{locktype} {mode}: {' '.join(query.split())}"
            self.longest_wait = max(self.longest_wait, float(seconds))
            self.waits[what] = max(self.waits.get(what, 0.0), float(seconds))

    def summary(self) -> dict[str, Any]:
        worst = sorted(self.waits.items(), key=lambda kv: -kv[1])[:5]
        return {"peak_connections": self.peak_connections, "peak_connections_all_databases": self.peak_total,
                "max_connections": self.max_connections, "samples": self.samples,
                "longest_lock_wait_s": round(self.longest_wait, 3),
                "lock_waits": [{"what": what, "longest_s": round(s, 3)} for what, s in worst]}
