"""Where the machine's cores went during the busy floor's measured window (/proc): gunicorn, the Celery worker,
beat, PostgreSQL (this database's backends and the server's own processes), the load's own client, everything else.

A floor that cannot keep up is a floor whose cores are all in use: this says by whom, so the next reading of the
figures knows what to make cheaper. A process that ends inside the window (a backend whose connection closed) is
counted with "everything else", from the machine's total.
"""

from __future__ import annotations

import time
from typing import Any

from benchlib.redemption.cpu import _children, _cpu_seconds, _machine_busy
from benchlib.redemption.database import owner_dsn

__all__ = ["FloorCpu"]


def _tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(_children(current))
    return found


class FloorCpu:
    """``start()``, ``sample()`` every second or so, then ``stop()``: the cores each group used on average between
    start and stop. Each process's CPU is read at every sample, so a process that ends inside the window (a
    PostgreSQL backend whose connection reached ``CONN_MAX_AGE``, a worker's pool process) counts up to its last
    sample; one that starts inside it counts from zero."""

    def __init__(self, database: str, servers: dict[str, int]) -> None:
        self.database, self.servers = database, servers
        self.first: dict[str, dict[int, float]] = {}
        self.last: dict[str, dict[int, float]] = {}
        self.connection: Any = None  # one connection for every sample, its own backend left out

    def _groups(self) -> dict[str, list[int]]:
        import psycopg

        if self.connection is None:
            self.connection = psycopg.connect(owner_dsn("postgres"), autocommit=True)
        rows = self.connection.execute(
            "SELECT pid, datname, backend_type FROM pg_stat_activity WHERE pid <> pg_backend_pid()").fetchall()
        groups = {name: _tree(pid) for name, pid in self.servers.items()}
        groups["postgres"] = [pid for pid, db, kind in rows if db == self.database or kind != "client backend"]
        return groups

    def sample(self, *, initial: bool = False) -> None:
        for group, pids in self._groups().items():
            first, last = self.first.setdefault(group, {}), self.last.setdefault(group, {})
            for pid in pids:
                used = _cpu_seconds(pid)
                if used <= 0.0 and pid not in last:
                    continue  # gone before it was read
                first.setdefault(pid, used if initial else 0.0)
                last[pid] = max(used, last.get(pid, 0.0))

    def start(self) -> None:
        self.began = time.perf_counter()
        self.client = time.process_time()
        self.machine = _machine_busy()
        self.sample(initial=True)

    def stop(self) -> dict[str, Any]:
        self.sample()
        self.connection.close()
        self.connection = None
        seconds = max(1e-9, time.perf_counter() - self.began)
        used = {group: sum(last[pid] - self.first[group].get(pid, 0.0) for pid in last)
                for group, last in self.last.items()}
        used["client (this load)"] = time.process_time() - self.client
        busy, total = _machine_busy()
        machine = busy - self.machine[0]
        used["everything else"] = max(0.0, machine - sum(used.values()))
        cores = {group: round(value / seconds, 2) for group, value in used.items()}
        return {"cores": cores, "machine_cores_busy": round(machine / seconds, 2),
                "machine_share_busy": round(machine / max(1e-9, total - self.machine[1]), 3)}
