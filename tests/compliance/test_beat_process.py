"""A real ``celery beat`` process schedules what the apps declare in their apps.py (compliance/registry.py), though
settings name no task: beat's own schedule file, written as it starts, holds every declared entry."""

from __future__ import annotations

import os
import shelve
import subprocess
import sys
import time
from pathlib import Path

from compliance.registry import beat_schedule

ROOT = Path(__file__).resolve().parents[2]


def _entries(path: Path) -> set[str]:
    try:
        with shelve.open(str(path), flag="r") as stored:  # noqa: S301 — the file our own beat just wrote
            return set(stored.get("entries", {}))
    except Exception:  # not written yet (dbm raises its own error types)
        return set()


def test_a_beat_process_schedules_every_declared_entry(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATABASE_OWNER_URL")}
    env.update(VAR_DIR=str(tmp_path), REDIS_URL="redis://127.0.0.1:6379/14", DJANGO_ENV="development",
               CELERY_SKIP_CHECKS="1")
    schedule = tmp_path / "beat-schedule"
    beat = subprocess.Popen([sys.executable, "-m", "celery", "-A", "compliance", "beat", "-s", str(schedule),
                             "-l", "warning"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        found: set[str] = set()
        while time.monotonic() < deadline and not found and beat.poll() is None:
            time.sleep(0.5)
            found = _entries(schedule)
    finally:
        beat.terminate()
        output = beat.communicate(timeout=30)[0].decode(errors="replace")
    assert found == set(beat_schedule()), output[-2000:]
    assert {"equipment-sweep-clocks", "compliance-audit-chain-link", "reports-quarterly"} <= found
