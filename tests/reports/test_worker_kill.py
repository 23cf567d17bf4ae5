"""A report job killed with SIGKILL in the middle of a report completes exactly once when delivered again.

An in-process worker cannot be killed, so these tests start a real ``celery worker --pool=prefork
--concurrency=1`` as a subprocess, on Redis database 15 and the test database pytest-django made, and kill it
while the test-only report kind (``tests/testapp/report_kinds.py``) sleeps inside ``build`` on the run's first
attempt:

* the pool child that runs the job: the main process sees the child lost (WorkerLostError) and, the task
  being ``acks_late`` and ``reject_on_worker_lost``, puts the message back at once; it delivers it again to
  a new child, and the second attempt finishes the report;
* the whole worker (its process group, as a machine or container dies): the run's heartbeat stops, and the
  sweep (beat, every minute) hands it to another worker at once, while the dead worker's message waits,
  unacknowledged, for the broker's visibility timeout; when it comes back it changes nothing. Without the sweep,
  that redelivery (seconds here, a transport option of this test's worker) finishes the report.

Every Redis key of a test carries a prefix of its own (``global_keyprefix``), so neither our messages nor
our unacknowledged ones meet another run's workers on the shared Redis database.

And without a worker: a run left running past its limit (its worker killed for good) is marked failed with
the reason by the sweep, and retried to success.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.utils import timezone

from compliance.celery import app
from compliance.gaming_day import gaming_day
from compliance.reports import heartbeat, selectors, services
from compliance.reports import tasks as report_tasks
from compliance.reports.content import ReportContent
from compliance.reports.models import ReportFile, ReportFileContent, ReportRun, RunProgress
from compliance.reports.registry import kind_of
from compliance.testing import forget_celery_connections, redis_up
from tests.testapp import report_kinds
from tests.vendors import postgresql_only

BROKER = "redis://127.0.0.1:6379/15"
QUEUE = "reports-kill"  # inside this test's own key prefix (see the module docstring)
S = ReportRun.Status
T = TypeVar("T")
HEARTBEAT_SECONDS = 6  # the workers' (and, where a test sweeps, the test's) heartbeat life



def worker_test(test: Callable[..., None]) -> Callable[..., None]:
    """The marks of a test with a real worker (per test: the module also has a test without one)."""
    for mark in (
        pytest.mark.worker,
        pytest.mark.xdist_group("redis-worker"),  # one worker test at a time on the shared Redis database
        pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379 (make test / CI start it)"),
        postgresql_only("the workers are processes of their own, and the suite's SQLite database is in memory"),
        # The worker reads what the test committed; serialized_rollback restores the migrations' rows after the flush.
        pytest.mark.django_db(transaction=True, serialized_rollback=True),
    ):
        test = mark(test)
    return test



def _alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _database_url() -> str:
    """The test database pytest-django made (with its xdist suffix), as the application role the suite uses."""
    db = connection.settings_dict
    user = quote(str(db["USER"]), safe="")
    password = f":{quote(str(db['PASSWORD']), safe='')}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{quote(str(db['NAME']))}"


@dataclass
class Broker:
    """This test's corner of Redis database 15: its key prefix, its queue, and the workers it started."""

    prefix: str
    markers: Path
    logs: Path
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    task_ids: list[str] = field(default_factory=list)

    @property
    def client(self) -> redis.Redis:
        return redis.Redis.from_url(BROKER)

    def queued(self) -> int:
        return int(self.client.llen(self.prefix + QUEUE))

    def unacked(self) -> int:
        return int(self.client.hlen(self.prefix + "unacked"))

    def send(self, run_id: int) -> None:
        self.task_ids.append(report_tasks.produce_report.apply_async(args=(run_id,), queue=QUEUE).id)

    def start_worker(self, name: str, **transport: Any) -> subprocess.Popen[bytes]:
        """``celery worker --pool=prefork --concurrency=1 -Q QUEUE`` in a process group of its own, with the
        test's settings and database, this test's key prefix and ``transport`` options."""
        options = {"global_keyprefix": self.prefix, **transport}
        code = ("import sys\nfrom compliance.celery import app\n"
                f"app.conf.update(broker_transport_options={options!r})\napp.worker_main(sys.argv[1:])\n")
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_OWNER_URL", "CELERY_TASK_ALWAYS_EAGER")}
        env.update(
            DJANGO_ENV="test", DJANGO_SETTINGS_MODULE="compliance.settings", DATABASE_URL=_database_url(),
            REDIS_URL=BROKER, AUDIT_CHAIN_KEY=settings.AUDIT_CHAIN_KEY, PYTHONUNBUFFERED="1",
            REPORTS_TIME_LIMIT_SECONDS=str(settings.REPORTS_TIME_LIMIT_SECONDS),
            REPORTS_HEARTBEAT_SECONDS=str(HEARTBEAT_SECONDS),
            **{report_kinds.MARKER_DIR_ENV: str(self.markers), report_kinds.SLEEP_SECONDS_ENV: "30"},
        )
        log = (self.logs / f"{name}.log").open("wb")
        worker = subprocess.Popen(
            [sys.executable, "-c", code, "worker", "--pool=prefork", "--concurrency=1", "-Q", QUEUE,
             "-n", f"{name}-{self.prefix.strip(':')}@%h", "--loglevel=INFO",
             "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        log.close()
        self.workers.append(worker)
        return worker

    def log(self) -> str:
        return "\n".join(f"--- {p.name} ---\n{p.read_text(errors='replace')[-6000:]}" for p in sorted(self.logs.iterdir()))

    def wait(self, what: str, check: Callable[[], T | None], timeout: float = 60) -> T:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = check()
            if value:
                return value
            time.sleep(0.2)
        pytest.fail(f"Waited {timeout:.0f} s for {what}.\n{self.log()}")

    def marker_pid(self, run_id: int, attempt: int) -> int | None:
        """The pid of the process that entered ``build`` for this attempt, once it has."""
        marker = self.markers / report_kinds.marker_name(run_id, attempt)
        return int(marker.read_text()) if marker.exists() else None

    def stop(self) -> None:
        """Warm shutdown (SIGTERM) of every worker still running, then SIGKILL to whatever is left of its
        process group (pool children included) before the main process is reaped, so its group id cannot have
        been reused; nothing is left behind. (A worker the test already reaped had its whole group killed.)"""
        running = [w for w in self.workers if w.returncode is None]
        for worker in running:
            with contextlib.suppress(ProcessLookupError):
                worker.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        for worker in running:
            while _alive(worker.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=10)

    def purge(self) -> None:
        """Empty the private queue, then remove every key of this test's prefix and the tasks' results."""
        with app.connection_for_write() as conn:
            channel: Any = conn.default_channel  # kombu's virtual channel; its stubs name only the protocol
            channel.queue_purge(QUEUE)
        client = self.client
        keys = [*client.scan_iter(match=self.prefix + "*"), *(f"celery-task-meta-{t}" for t in self.task_ids)]
        if keys:
            client.delete(*keys)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """The test process sends to Redis database 15 under a key prefix of its own; workers started through
    the fixture are stopped and the prefix's keys removed afterwards."""
    prefix = f"test-kill-{uuid.uuid4().hex[:12]}:"
    (tmp_path / "markers").mkdir()
    (tmp_path / "logs").mkdir()
    saved = {k: app.conf[k] for k in ("broker_url", "task_always_eager", "broker_transport_options")}
    app.conf.update(broker_url=BROKER, task_always_eager=False, broker_transport_options={"global_keyprefix": prefix})
    forget_celery_connections()
    corner = Broker(prefix=prefix, markers=tmp_path / "markers", logs=tmp_path / "logs")
    try:
        yield corner
    finally:
        try:
            corner.stop()
        finally:
            try:
                corner.purge()
            finally:
                app.conf.update(saved)
                forget_celery_connections()


def _last_month(facility: Any) -> dict[str, Any]:
    kind = kind_of(report_kinds.CODE)
    assert kind is not None
    period = kind.default_period(gaming_day(facility))
    return {"start": period.start, "end": period.end}


def _request(facility: Any, user: Any, monkeypatch: pytest.MonkeyPatch) -> ReportRun:
    """A queued run of the slow test kind for last month, asked for through the service; the service's own
    ``.delay()`` (the default queue) is held back: the test sends the task to its private queue."""
    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr(report_tasks.produce_report, "delay", lambda *args: sent.append(args))
    run = services.run_request(facility=facility, kind=report_kinds.CODE, **_last_month(facility), user=user)
    assert sent == [(run.pk,)]
    assert (run.status, run.attempts, run.version) == (S.QUEUED, 0, 1)
    return run


def _state(run_id: int) -> tuple[str, int]:
    status, attempts = ReportRun.objects.filter(pk=run_id).values_list("status", "attempts").get()
    return status, attempts


def _assert_inside_build_of_first_attempt(run_id: int) -> None:
    assert _state(run_id) == (S.RUNNING, 1)
    progress = RunProgress.objects.get(run_id=run_id)
    assert (progress.percent, progress.stage) == (10, "Gathering the figures")


def _assert_completed_exactly_once(run: ReportRun, broker: Broker) -> None:
    """Succeeded on the second attempt, one set of files whose bytes hash to what was recorded, no other
    version, and the message acknowledged (nothing left to deliver a third time)."""
    broker.wait("the message to be acknowledged", lambda: broker.queued() == 0 and broker.unacked() == 0, timeout=15)
    run.refresh_from_db()
    assert (run.status, run.attempts, run.version, run.error) == (S.SUCCEEDED, 2, 1, "")
    assert run.finished_at is not None and run.chain_digest
    files = {f.format: f for f in ReportFile.objects.filter(run=run)}
    assert sorted(files) == sorted([ReportFile.Format.PDF, ReportFile.Format.CSV, ReportFile.Format.DATA])
    for file in files.values():
        data = bytes(ReportFileContent.objects.get(file=file).data)
        assert hashlib.sha256(data).hexdigest() == file.sha256 and len(data) == file.size
    pdf = selectors.file_bytes(files[ReportFile.Format.PDF])
    assert pdf is not None and pdf.startswith(b"%PDF")
    content = ReportContent.from_json(bytes(ReportFileContent.objects.get(file=files[ReportFile.Format.DATA]).data))
    assert content.summary == [("Attempt", "2")]  # the files are the second attempt's, written once
    assert ReportRun.objects.filter(facility_id=run.facility_id, kind=report_kinds.CODE).count() == 1
    assert RunProgress.objects.get(run=run).percent == 100
    assert broker.marker_pid(run.pk, 3) is None  # no third attempt


@worker_test
def test_a_report_whose_pool_child_is_killed_mid_report_is_delivered_again_and_completes_once(
    broker: Broker, facility: Any, compliance_officer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _request(facility, compliance_officer, monkeypatch)
    broker.send(run.pk)
    worker = broker.start_worker("child-kill")  # the broker's default visibility timeout: an hour

    child = broker.wait("the first attempt to enter build", lambda: broker.marker_pid(run.pk, 1), timeout=45)
    assert _parent_of(child) == worker.pid  # the prefork pool's child, not the main process
    _assert_inside_build_of_first_attempt(run.pk)
    os.kill(child, signal.SIGKILL)
    broker.wait("the pool child to die", lambda: not _alive(child), timeout=10)

    # The main process rejects the message with requeue (reject_on_worker_lost) and hands it to a new child.
    second = broker.wait("the second attempt", lambda: broker.marker_pid(run.pk, 2), timeout=40)
    broker.wait("the report to succeed", lambda: _state(run.pk)[0] == S.SUCCEEDED, timeout=30)
    _assert_completed_exactly_once(run, broker)
    assert second != child and _parent_of(second) == worker.pid
    assert worker.poll() is None, "the main worker process lives on"
    assert "WorkerLostError" in broker.log()


@worker_test
def test_a_report_whose_whole_worker_is_killed_mid_report_is_restored_after_the_visibility_timeout(
    broker: Broker, facility: Any, compliance_officer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Unacknowledged messages come back after 8 s (not an hour), looked for every second.
    visibility = {"visibility_timeout": 8, "unacked_restore_interval": 1, "unacked_restore_throttle": 1}
    run = _request(facility, compliance_officer, monkeypatch)
    broker.send(run.pk)
    first = broker.start_worker("whole-kill-1", **visibility)

    child = broker.wait("the first attempt to enter build", lambda: broker.marker_pid(run.pk, 1), timeout=45)
    assert _parent_of(child) == first.pid
    _assert_inside_build_of_first_attempt(run.pk)
    os.killpg(first.pid, signal.SIGKILL)  # the main process and its pool child at once
    assert first.wait(timeout=10) == -signal.SIGKILL
    broker.wait("the pool child to die", lambda: not _alive(child), timeout=10)
    # Nobody rejected it: the message waits, unacknowledged, in Redis; the run is left running.
    assert (broker.queued(), broker.unacked()) == (0, 1)
    assert _state(run.pk) == (S.RUNNING, 1)

    broker.start_worker("whole-kill-2", **visibility)
    broker.wait("the second attempt", lambda: broker.marker_pid(run.pk, 2), timeout=40)
    broker.wait("the report to succeed", lambda: _state(run.pk)[0] == S.SUCCEEDED, timeout=30)
    _assert_completed_exactly_once(run, broker)


@worker_test
def test_a_report_whose_whole_worker_is_killed_is_handed_to_another_worker_within_a_minute(
    broker: Broker, facility: Any, compliance_officer: Any, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    # The test reads the heartbeats where the workers write them (their cache is the Redis of REDIS_URL).
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": BROKER}}
    settings.REPORTS_HEARTBEAT_SECONDS = HEARTBEAT_SECONDS
    run = _request(facility, compliance_officer, monkeypatch)
    broker.send(run.pk)
    first = broker.start_worker("lost-1")  # the broker's default visibility timeout: an hour

    broker.wait("the first attempt to enter build", lambda: broker.marker_pid(run.pk, 1), timeout=45)
    _assert_inside_build_of_first_attempt(run.pk)
    assert heartbeat.alive(run.pk)
    assert services.runs_recover_lost() == 0  # alive: left alone
    os.killpg(first.pid, signal.SIGKILL)  # the host is gone: main process and pool child at once
    assert first.wait(timeout=10) == -signal.SIGKILL
    killed = time.monotonic()
    assert (broker.queued(), broker.unacked()) == (0, 1)  # its message waits for the visibility timeout

    broker.wait("the heartbeat to expire", lambda: not heartbeat.alive(run.pk), timeout=HEARTBEAT_SECONDS + 5)
    monkeypatch.setattr(report_tasks.produce_report, "delay", lambda *args: broker.send(*args))
    broker.start_worker("lost-2")
    assert services.runs_recover_lost() == 1  # what beat runs every minute
    assert services.runs_recover_lost() == 0  # the lost attempt is handed on once
    broker.wait("the second attempt", lambda: broker.marker_pid(run.pk, 2), timeout=40)
    broker.wait("the report to succeed", lambda: _state(run.pk)[0] == S.SUCCEEDED, timeout=30)
    assert time.monotonic() - killed < 60, "completed within a minute of the kill, not after the visibility timeout"

    # The dead worker's message is still unacknowledged; when the broker restores it, it changes nothing. (The second
    # worker acknowledges its own message after the task returns — acks_late —, a moment after the run succeeded.)
    broker.wait("the second worker to acknowledge its message", lambda: broker.unacked() == 1, timeout=15)
    late = services.run_execute(run.pk)
    assert late is not None and (late.status, late.attempts) == (S.SUCCEEDED, 2)
    run.refresh_from_db()
    assert (run.status, run.attempts, run.error) == (S.SUCCEEDED, 2, "")
    assert ReportFile.objects.filter(run=run).count() == 3
    assert broker.marker_pid(run.pk, 3) is None


@pytest.mark.django_db
def test_a_run_being_produced_elsewhere_is_not_taken_over(facility: Any, compliance_officer: Any) -> None:
    run = services.run_request(facility=facility, kind=report_kinds.CODE, **_last_month(facility),
                               user=compliance_officer)
    run.status, run.attempts, run.started_at = S.RUNNING, 1, timezone.now()
    run.save()
    with heartbeat.beating(run.pk, 1):
        with pytest.raises(services.RunBusy):
            services.run_execute(run.pk)  # a redelivery while the first attempt beats
        assert services.runs_recover_lost(now=timezone.now() + timedelta(minutes=5)) == 0
    assert _state(run.pk) == (S.RUNNING, 1)


@pytest.mark.django_db
def test_a_run_stuck_past_its_limit_is_marked_failed_with_the_reason_and_retried_to_success(
    django_capture_on_commit_callbacks: Any, facility: Any, compliance_officer: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        run = services.run_request(facility=facility, kind=report_kinds.CODE, **_last_month(facility),
                                   user=compliance_officer)
    assert len(enqueued) == 1
    now = timezone.now()
    # A worker took it two hours ago and was killed for good (nothing will deliver it again).
    run.status, run.attempts, run.started_at = S.RUNNING, 1, now - timedelta(hours=2)
    run.save()
    limit = settings.REPORTS_TIME_LIMIT_SECONDS // 60
    # Not before the broker would have delivered a lost worker's task again (and the hard limit), plus 5 minutes.
    assert services.stuck_after() >= timedelta(minutes=limit + 5)
    assert services.runs_fail_stuck(now=now - timedelta(hours=2) + services.stuck_after() - timedelta(minutes=1)) == 0

    assert services.runs_fail_stuck(now=now) == 1
    run.refresh_from_db()
    assert run.status == S.FAILED and run.finished_at is not None
    assert run.error == (f"Stopped: still running 120 minutes after it started, past the job's limit of {limit} "
                         "minutes (its worker was stopped or lost). Retry it.")
    assert RunProgress.objects.get(run=run).stage == "Failed"
    assert not ReportFile.objects.filter(run=run).exists()
    assert services.runs_fail_stuck(now=now) == 0  # once

    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        retried = services.run_retry(run=run, user=compliance_officer)
    assert len(enqueued) == 1
    assert (retried.pk, retried.version, retried.status, retried.attempts, retried.error) == (run.pk, 1, S.QUEUED, 0, "")

    done = services.run_execute(run.pk)  # what the delivered task runs
    assert done is not None
    run.refresh_from_db()
    assert (run.status, run.attempts, run.version, run.error) == (S.SUCCEEDED, 1, 1, "")
    assert sorted(ReportFile.objects.filter(run=run).values_list("format", flat=True)) == ["csv", "json", "pdf"]
    assert ReportRun.objects.filter(facility=facility, kind=report_kinds.CODE).count() == 1
