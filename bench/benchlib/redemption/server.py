"""gunicorn with production settings, and one measured HTTP run against it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchlib.redemption.clients import run_in_processes
from benchlib.redemption.cpu import CpuMeter
from benchlib.redemption.database import PYTHON, ROOT, production_env
from benchlib.redemption.load import Client, Figure, Lanes, closed_loop, figure_of, open_loop

__all__ = ["ServerConfig", "gunicorn", "measure_http"]


@dataclass(frozen=True)
class ServerConfig:
    worker_class: str
    workers: int
    threads: int = 1

    @classmethod
    def parse(cls, text: str) -> ServerConfig:
        kind, _, size = text.strip().partition(":")
        workers, _, threads = size.partition("x")
        if kind not in {"sync", "gthread"} or not workers.isdigit():
            raise SystemExit(f"--configs: {text!r}: use sync:<workers> or gthread:<workers>x<threads>")
        return cls(kind, int(workers), int(threads or 1))

    def args(self) -> list[str]:
        extra = ["--threads", str(self.threads)] if self.worker_class == "gthread" else []
        return ["--worker-class", self.worker_class, "--workers", str(self.workers), *extra]

    def __str__(self) -> str:
        return f"{self.worker_class} -w {self.workers}" + (f" --threads {self.threads}" if self.threads > 1 else "")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def gunicorn(database: str, config: ServerConfig, log: Path) -> Iterator[tuple[int, int]]:
    port = _free_port()
    # The workers' heartbeat file in memory, as gunicorn advises where /tmp may be a disk.
    shm = Path("/dev/shm")  # noqa: S108 - gunicorn's own advice; the file holds a heartbeat, nothing secret
    tmp = ["--worker-tmp-dir", str(shm)] if shm.is_dir() else []
    # The bench's own entry point when it turns Django's server-side binding on (benchlib.redemption.binding).
    app = ("benchlib.redemption.binding:application" if os.environ.get("BENCH_SERVER_SIDE_BINDING") == "1"
           else "compliance.wsgi:application")
    command = [str(Path(PYTHON).parent / "gunicorn"), app, "--pythonpath", str(ROOT / "bench"), "--bind", f"127.0.0.1:{port}",
               *config.args(), *tmp, "--log-level", "warning", "--error-logfile", "-", "--timeout", "30"]
    with log.open("ab") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=production_env(database), stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"gunicorn did not start ({config}); see {log}")
            time.sleep(0.1)
        yield port, process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def measure_http(database: str, port: int, pid: int, token: str, lanes: Lanes, args: argparse.Namespace,
                       label: str, *, rate: float | None, seconds: float) -> tuple[Figure, float]:
    def make_client() -> Client:
        return Client(port, token, args.idempotency_key)

    # Warm every worker up first: each imports the app's code paths and opens its database connection on
    # its first request, and the CPU meter follows the backends open when it starts.
    await closed_loop(make_client(), lanes, 16, 1.0)
    meter = CpuMeter(database, pid)
    meter.start()
    began = time.perf_counter()
    processes = max(1, getattr(args, "client_processes", 1))
    client_cpu = 0.0
    if processes > 1:  # several client processes, the lanes dealt between them (benchlib.redemption.clients)
        results, began, client_cpu = await run_in_processes(
            port, token, args.idempotency_key, lanes, processes, connections=args.connections, rate=rate,
            seconds=args.warmup + seconds)
    elif rate is None:
        clients = [make_client() for _ in range(args.connections)]
        results = [r for batch in await asyncio.gather(*(closed_loop(c, lanes, 1, args.warmup + seconds)
                                                         for c in clients)) for r in batch]
        for client in clients:
            client.close()
    else:
        results = await open_loop(make_client, lanes, rate, args.warmup + seconds)
    figure = figure_of(label, results, began + args.warmup, seconds)
    figure.cpu = meter.stop(len(results), client_processes_cpu=client_cpu)
    return figure, meter.machine_share


