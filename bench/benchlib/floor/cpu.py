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
    """``start()`` then ``stop()``: the cores each group used on average between them."""

    def __init__(self, database: str, servers: dict[str, int]) -> None:
        self.database, self.servers = database, servers

    def _groups(self) -> dict[str, list[int]]:
        import psycopg

        with psycopg.connect(owner_dsn("postgres"), autocommit=True) as connection:
            rows = connection.execute(
                "SELECT pid, datname, backend_type FROM pg_stat_activity WHERE pid <> pg_backend_pid()").fetchall()
        groups = {name: _tree(pid) for name, pid in self.servers.items()}
        groups["postgres"] = [pid for pid, db, kind in rows if db == self.database or kind != "client backend"]
        return groups

    def start(self) -> None:
        self.began = time.perf_counter()
        self.before = {group: {pid: _cpu_seconds(pid) for pid in pids} for group, pids in self._groups().items()}
        self.client = time.process_time()
        self.machine = _machine_busy()

    def stop(self) -> dict[str, Any]:
        seconds = max(1e-9, time.perf_counter() - self.began)
        now = self._groups()
        used: dict[str, float] = {}
        for group, before in self.before.items():
            # Processes started inside the window (a worker's new pool process, a new connection) count from zero.
            pids = set(before) | set(now.get(group, []))
            used[group] = sum(_cpu_seconds(pid) - before.get(pid, 0.0) for pid in pids)
        used["client (this load)"] = time.process_time() - self.client
        busy, total = _machine_busy()
        machine = busy - self.machine[0]
        used["everything else"] = max(0.0, machine - sum(used.values()))
        cores = {group: round(value / seconds, 2) for group, value in used.items()}
        return {"cores": cores, "machine_cores_busy": round(machine / seconds, 2),
                "machine_share_busy": round(machine / max(1e-9, total - self.machine[1]), 3)}
