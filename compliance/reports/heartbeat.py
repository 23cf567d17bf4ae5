"""A report job's heartbeat: how the system knows, within a minute, that the worker producing a report is gone.

While a run is being produced, a thread of the producing process writes ``reports:heartbeat:<run>`` to the
cache (Redis in production, shared by every host) every third of ``REPORTS_HEARTBEAT_SECONDS`` (45), each write living that long. A
worker killed whole (its host or container gone) stops beating; a minute later the key has expired, and the
sweep (``compliance.reports.services.runs_recover_lost``, beat every minute) hands the run to another worker at
once, instead of waiting for the broker's visibility timeout (35 minutes) to redeliver its message. When that
message does come back, the run is finished (or beating again) and it does nothing: ``_start`` takes over a
running run only when nothing beats for it.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache

__all__ = ["alive", "beating", "claim_recovery", "ttl_seconds"]


def ttl_seconds() -> int:
    """How long one beat lives (``REPORTS_HEARTBEAT_SECONDS``, 45 by default); a beat is written every third."""
    return int(settings.REPORTS_HEARTBEAT_SECONDS)


def _key(run_id: int) -> str:
    return f"reports:heartbeat:{run_id}"


def alive(run_id: int) -> bool:
    """A process is producing the run now (it beat within ``ttl_seconds()``)."""
    return cache.get(_key(run_id)) is not None


@contextmanager
def beating(run_id: int, attempt: int) -> Iterator[None]:
    """Beat for ``run_id`` while the block runs (from a daemon thread: the job itself is busy). The beat carries
    this process's own token, and the block's end removes it only if it is still ours: a producer that stalled
    and was superseded never erases the beat of the one producing the run now."""
    stop = threading.Event()
    ttl = ttl_seconds()
    token = f"{attempt}:{uuid.uuid4().hex}"

    def beat() -> None:
        while True:
            # A missed beat only lets the sweep hand the run on; it never fails the job.
            with contextlib.suppress(Exception):
                current = cache.get(_key(run_id))
                if current is None or current == token or _attempt_of(current) < attempt:
                    cache.set(_key(run_id), token, timeout=ttl)
            if stop.wait(ttl / 3):
                return

    cache.set(_key(run_id), token, timeout=ttl)
    thread = threading.Thread(target=beat, name=f"report-heartbeat-{run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)
        with contextlib.suppress(Exception):
            if cache.get(_key(run_id)) == token:
                cache.delete(_key(run_id))


def _attempt_of(value: object) -> int:
    try:
        return int(str(value).split(":", 1)[0])
    except ValueError:
        return 0


def claim_recovery(run_id: int, attempt: int) -> bool:
    """True for the one sweep that may hand this attempt of the run on (later sweeps see it claimed)."""
    return bool(cache.add(f"reports:recovering:{run_id}:{attempt}", 1, timeout=ttl_seconds() * 20))
