"""The floor's servers as production runs them, on this machine: gunicorn with deploy/gunicorn.conf.py (sync workers,
2 x cores + 1), a Celery worker (``--concurrency=2``, deploy/systemd/compliance-worker.service) and beat, all with
production settings (``DJANGO_ENV=production``, DEBUG off), logged in as the application's role, on Redis
database 11 (broker and cache)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from benchlib.redemption.database import PYTHON, ROOT, production_env

__all__ = ["LOGS", "REDIS_URL", "floor_env", "servers"]

REDIS_URL = "redis://127.0.0.1:6379/11"
LOGS = ROOT / "var" / "bench"
# Production's limits on the API (compliance/settings.py): each table's scanner is far below them.
_LIMITS = {"API_THROTTLE_TOKEN": "600/min", "API_THROTTLE_USER": "1200/min"}


def floor_env(database: str, **extra: str) -> dict[str, str]:
    os.environ["BENCH_REDIS_URL"] = REDIS_URL  # read by production_env
    return production_env(database, **_LIMITS, **extra)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def servers(database: str) -> Iterator[tuple[int, dict[str, int]]]:
    """gunicorn, the worker and beat; yields gunicorn's port and each one's process id. Their logs:
    var/bench/floor-*.log."""
    port = _free_port()
    env = floor_env(database, GUNICORN_BIND=f"127.0.0.1:{port}")
    bin_dir = Path(PYTHON).parent
    commands = {
        "gunicorn": [str(bin_dir / "gunicorn"), "--config", str(ROOT / "deploy" / "gunicorn.conf.py"),
                     "compliance.wsgi:application"],
        "worker": [str(bin_dir / "celery"), "-A", "compliance", "worker", "--concurrency=2", "--loglevel=WARNING",
                   "--hostname=floor@%h"],
        "beat": [str(bin_dir / "celery"), "-A", "compliance", "beat", "--loglevel=WARNING",
                 "--schedule", str(LOGS / "floor-beat-schedule")],
    }
    started: list[subprocess.Popen[bytes]] = []
    try:
        for name, command in commands.items():
            with (LOGS / f"floor-{name}.log").open("wb") as out:
                started.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            if started[0].poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"gunicorn did not start; see {LOGS / 'floor-gunicorn.log'}")
            time.sleep(0.2)
        yield port, {name: process.pid for name, process in zip(commands, started, strict=True)}
    finally:
        for process in reversed(started):
            _stop(process)
