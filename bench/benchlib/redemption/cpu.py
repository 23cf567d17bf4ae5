"""CPU accounting from /proc (gunicorn, this database's PostgreSQL backends, the client, the machine), and
the baseline every figure is compared with: a bare SQL conditional update."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path
from typing import Any

from benchlib.redemption.database import LANES, PER_LANE, owner_dsn
from benchlib.redemption.load import Figure, Result, figure_of

__all__ = ["CpuMeter", "bare_sql", "cpu_words"]


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime + stime


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _machine_busy() -> tuple[float, float]:
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    return (sum(values) - idle) / _TICK, sum(values) / _TICK


class CpuMeter:
    """CPU seconds used by gunicorn, by PostgreSQL's backends of this database (and its writer processes),
    by this client and by the whole machine, between start() and stop()."""

    def __init__(self, database: str, server_pid: int | None) -> None:
        self.database, self.server_pid = database, server_pid

    def _groups(self) -> dict[str, list[int]]:
        import psycopg

        with psycopg.connect(owner_dsn("postgres"), autocommit=True) as connection:
            rows = connection.execute(
                "SELECT pid, datname, backend_type FROM pg_stat_activity WHERE pid <> pg_backend_pid()").fetchall()
        groups = {
            "postgres": [pid for pid, db, kind in rows if db == self.database or kind != "client backend"],
            "gunicorn": [self.server_pid, *_children(self.server_pid)] if self.server_pid else [],
        }
        return groups

    def start(self) -> None:
        self.pids = self._groups()
        self.before = {g: {p: _cpu_seconds(p) for p in pids} for g, pids in self.pids.items()}
        self.client_before = time.process_time()
        self.machine_before = _machine_busy()

    def stop(self, requests: int, *, client_processes_cpu: float = 0.0) -> dict[str, float]:
        """``client_processes_cpu``: the CPU seconds the load's own processes used (benchlib.redemption.clients),
        counted with this one's as the client's."""
        used = {g: sum(_cpu_seconds(p) - t for p, t in before.items()) for g, before in self.before.items()}
        used["client"] = time.process_time() - self.client_before + client_processes_cpu
        busy, total = _machine_busy()
        used["machine"] = busy - self.machine_before[0]
        used["others"] = max(0.0, used["machine"] - used["gunicorn"] - used["postgres"] - used["client"])
        self.machine_share = (busy - self.machine_before[0]) / max(1e-9, total - self.machine_before[1])
        return {g: s * 1000 / max(1, requests) for g, s in used.items()}


async def bare_sql(database: str, connections: int, warmup: float, seconds: float) -> tuple[Figure, float]:
    import psycopg

    dsn = owner_dsn(database)
    # Enough rows that no run reaches the end (a bare update takes 0.1 ms of the server: 20,000 a second is a bound
    # no machine of this kind reaches; a longer --duration gets a bigger table rather than a StopIteration).
    rows = max(LANES * PER_LANE, int(20_000 * (warmup + seconds)))
    with psycopg.connect(dsn, autocommit=True) as owner:
        owner.execute("DROP TABLE IF EXISTS bench_scratch")
        owner.execute("CREATE TABLE bench_scratch (id integer PRIMARY KEY, redeemed boolean NOT NULL DEFAULT false)")
        owner.execute("INSERT INTO bench_scratch (id) SELECT generate_series(1, %s)", [rows])
        owner.execute("VACUUM ANALYZE bench_scratch")
    ids = iter(range(1, rows + 1))
    results: list[Result] = []
    sql = "UPDATE bench_scratch SET redeemed = true WHERE id = %s AND NOT redeemed"
    pool = [await psycopg.AsyncConnection.connect(dsn, autocommit=True) for _ in range(connections)]

    async def one_connection(connection: Any, stop: float) -> None:
        while (started := time.perf_counter()) < stop:
            cursor = await connection.execute(sql, [next(ids)], prepare=True)
            results.append(Result(started, time.perf_counter(), 201 if cursor.rowcount == 1 else 409))

    meter = CpuMeter(database, None)
    meter.start()  # after connecting: the meter follows this database's backends
    began = time.perf_counter()
    await asyncio.gather(*(one_connection(c, began + warmup + seconds) for c in pool))
    figure = figure_of(f"bare SQL UPDATE ({connections} connections)", results, began + warmup, seconds)
    figure.cpu = meter.stop(len(results))
    for each in pool:
        await each.close()
    return figure, meter.machine_share


def cpu_words(figure: Figure) -> str:
    parts = ", ".join(f"{k} {v:.1f}" for k, v in figure.cpu.items() if k not in {"machine", "others"})
    return (f"      CPU ms per redemption: {parts}; other work on the machine {figure.cpu.get('others', 0):.1f}")


