"""`make run`'s processes (bin/run-embedded): a real Celery worker and beat beside the web server on a broker that needs
no server — kombu's SQLAlchemy transport on a SQLite file under var/ — against a SQLite database; a task enqueued
by the application waits in that broker (nothing runs eagerly) until the worker runs it; beat schedules every
entry the apps declare; stopping the web server (Ctrl-C) stops the worker and beat with it; and processes writing
the SQLite file at once wait their turn instead of failing "database is locked"."""

from __future__ import annotations

import os
import re
import shelve
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compliance.registry import beat_schedule

pytestmark = pytest.mark.worker

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_SECONDS = 45

ENQUEUE = """
from compliance.reference import ensure_reference_data
from tests.factories import FacilityFactory
from tests.testapp.models import TwoPersonForm
from tests.testapp.tasks import renote_form

ensure_reference_data()
form = TwoPersonForm.objects.create(facility=FacilityFactory(code="embedded"), note="before", quantity=1)
renote_form.delay(form.pk, "after the worker")
print("form", form.pk)
"""


def _environment(var: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "DATABASE_OWNER_URL", "REDIS_URL", "CELERY_TASK_ALWAYS_EAGER"}
    }
    env.update(
        VAR_DIR=str(var),
        DJANGO_ENV="test",
        DJANGO_SETTINGS_MODULE="tests.compliance.embedded_settings",
        EMBEDDED_WORKER="1",
        CELERY_SKIP_CHECKS="1",
        PYTHONUNBUFFERED="1",
        PY=sys.executable,
    )
    return env


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _query(path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10) as db:
        return db.execute(sql, params).fetchall()


def _beat_entries(path: Path) -> set[str]:
    try:
        with shelve.open(str(path), flag="r") as stored:  # noqa: S301 — the file our own beat just wrote
            return set(stored.get("entries", {}))
    except Exception:  # not written yet (dbm raises its own error types)
        return set()


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=2) as response:
            return int(response.status) == 200
    except OSError:
        return False


def _wait(until: Callable[[], bool], process: subprocess.Popen[str]) -> bool:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline and process.poll() is None:
        if until():
            return True
        time.sleep(0.5)
    return until()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Path, int]:
    """A var/ of its own with the tables made and a task enqueued by the application (not yet run)."""
    var = tmp_path_factory.mktemp("var")
    env = _environment(var)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--run-syncdb", "--noinput"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    enqueued = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", ENQUEUE],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    found = re.search(r"form (\d+)", enqueued.stdout)
    assert found, enqueued.stdout + enqueued.stderr
    return env, var, int(found.group(1))


def _start(env: dict[str, str], port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(ROOT / "bin" / "run-embedded")],
        cwd=ROOT,
        env={**env, "RUN_ADDRESS": f"127.0.0.1:{port}"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _stopped(run: subprocess.Popen[str], output: str) -> None:
    """The worker and beat the script started (it prints their pids) are gone."""
    pids = [int(pid) for pid in re.findall(r"\(pid (\d+)\)", output)]
    assert len(pids) == 2, output[-2000:]
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in pids), f"worker or beat still running: {pids}\n{output[-2000:]}"


def test_the_worker_runs_what_the_application_enqueued_beat_schedules_every_entry_and_ctrl_c_stops_all(embedded):
    env, var, form = embedded
    database, broker = var / "compliance.sqlite3", var / "celery-broker.sqlite3"
    # Not eager: the task waits in the SQLite broker until a worker takes it.
    assert _query(database, "SELECT note FROM testapp_twopersonform WHERE id = ?", form) == [("before",)]
    assert _query(broker, "SELECT count(*) FROM kombu_message") == [(1,)]

    port = _free_port()
    run = _start(env, port)
    try:
        ran = _wait(
            lambda: (
                _query(database, "SELECT note FROM testapp_twopersonform WHERE id = ?", form) == [("after the worker",)]
            ),
            run,
        )
        scheduled = _wait(lambda: set(beat_schedule()) <= _beat_entries(var / "celery-beat-schedule"), run)
        served = _wait(lambda: _answers(port), run)
        running = run.poll() is None
    finally:
        # Ctrl-C in the terminal: SIGINT to the whole foreground group; the script then stops worker and beat.
        os.killpg(run.pid, signal.SIGINT)
        try:
            output = run.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            output = run.communicate()[0]
    worker_log = var / "celery-worker.log"
    log = worker_log.read_text(errors="replace") if worker_log.exists() else ""
    assert running, output[-2000:]
    assert ran, (output + log)[-3000:]
    assert re.search(r"renote_form\[[0-9a-f-]+\] succeeded", log), log[-2000:]
    assert scheduled, output[-2000:]
    assert served, output[-2000:]
    _stopped(run, output)


def test_when_the_web_server_stops_by_itself_the_worker_and_beat_stop_too(embedded):
    env, _var, _form = embedded
    with socket.socket() as taken:  # runserver cannot listen there and exits at once
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        run = _start(env, int(taken.getsockname()[1]))
        try:
            output = run.communicate(timeout=60)[0]
        finally:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode != 0
    _stopped(run, output)


WRITER = """
import time
from django.db import transaction
from compliance.models import Facility
from tests.testapp.models import TwoPersonForm

facility = Facility.objects.get(code="embedded")
for _ in range(40):
    with transaction.atomic():  # read, then write: the pattern that upgrades a read lock and fails "locked"
        seen = TwoPersonForm.objects.count()
        time.sleep(0.005)
        TwoPersonForm.objects.create(facility=facility, note=f"after {seen}", quantity=1)
print("wrote 40")
"""


def test_the_web_server_and_the_worker_write_the_sqlite_file_side_by_side_without_database_is_locked(embedded):
    """Three processes reading then writing in their transactions at once, as the web server, the worker and a
    command do on `make run`'s SQLite: each transaction takes the write lock as it begins (IMMEDIATE) and waits its
    turn, where a deferred one fails at once with "database is locked"."""
    env, var, _form = embedded
    database = var / "compliance.sqlite3"
    (before,) = _query(database, "SELECT count(*) FROM testapp_twopersonform")[0]
    writers = [
        subprocess.Popen(
            [sys.executable, "manage.py", "shell", "-c", WRITER],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [w.communicate(timeout=120)[0] for w in writers]
    assert all(w.returncode == 0 and "wrote 40" in out for w, out in zip(writers, outputs, strict=True)), outputs
    assert _query(database, "SELECT count(*) FROM testapp_twopersonform") == [(before + 120,)]
