"""Benchmark: coupon redemptions a second through the HTTP API, served by gunicorn with production settings.

The figure (issue 10): at least 300 redemptions a second sustained on a 2-core machine with p99 under
50 ms, printed beside the rate of a bare SQL conditional update measured in the same run, and their ratio.

What it does, all on the local PostgreSQL (127.0.0.1:5432, user postgres):

1. creates a fresh database (``bench_redemption``), migrates it as its owner and runs ``db_roles``, so
   gunicorn logs in as the least-privilege application role, as production does;
2. seeds a facility, a Match Play program with its approvals, a $25 series, craps table CR-1 with a
   scanner token, and 264,000 coupons received, issued and distributed today in 66 ranges of 4,000
   ("lanes"): a request takes a lane no other request in flight holds, so every scan is a new coupon
   of an open range no one else is moving and must answer 201 (anything else counts as an error);
3. baseline: ``UPDATE bench_scratch SET redeemed = true WHERE id = $1 AND NOT redeemed`` on a table
   of 256,000 rows, each statement its own transaction, over as many connections as the API run;
4. starts gunicorn (DJANGO_ENV=production, DEBUG off) in each of ``--configs``, measures each
   closed-loop (N connections, each sending its next scan when the last is answered) and keeps the
   fastest; with it, measures again closed-loop, then offers the target rate open-loop (a scan every
   1/300 s whatever the server does, latency counted from the scheduled moment, so a server falling
   behind shows in the p99; 80 % of the capacity instead when the target is beyond it, since then
   the queue only grows), then 10/s open-loop (the latency with no queue), then consecutive coupons
   of one range from N connections at once (two tables scanning coupons of one distributed range);
5. counts the SQL statements of one redemption in-process (same settings) and reports the CPU each
   process used (/proc): gunicorn, this database's PostgreSQL backends, the client, everything else.

The load generator is a small asyncio HTTP/1.1 client (keep-alive when the server offers it): it shares
the two cores with gunicorn and PostgreSQL, so its CPU is printed too. Plain HTTP to gunicorn stands
for the TLS proxy of production: requests carry ``X-Forwarded-Proto: https`` (the settings'
``SECURE_PROXY_SSL_HEADER``), so ``SECURE_SSL_REDIRECT`` stays on. The bench prints PASS or MISS and
exits 0: it reports, it is not a test. About three minutes, one of them migrating.

    .venv/bin/python bench/redemption_bench.py
    .venv/bin/python bench/redemption_bench.py --keep              # then --reuse measures again, no setup
    .venv/bin/python bench/redemption_bench.py --configs sync:5 --duration 20 --no-idempotency-key

``--configs`` takes ``sync:<workers>`` or ``gthread:<workers>x<threads>``, comma-separated. The database
is dropped at the end unless ``--keep``; gunicorn's log goes to ``var/bench/redemption-gunicorn.log``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
URL_PATH = "/api/v1/coupons/redemptions/"
TARGET_RATE, TARGET_P99_MS = 300.0, 50.0
IDLE_RATE = 10.0  # a rate far below capacity: the latency of a redemption with no queue in front of it
LANES, PER_LANE = 64, 4000  # coupons distributed today in open ranges of 4,000: 64 for the load,
PROFILE_LANE, SHARED_LANE = LANES, LANES + 1  # one for the in-process query count, one scanned from many tables
PG_OWNER = "postgres"
PG_HOSTPORT = "127.0.0.1:5432"
_MARK = "@@bench@@ "


# ---------------------------------------------------------------- environment and database

def _env(database: str, **extra: str) -> dict[str, str]:
    """Production settings, logged in as the application role."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_OWNER_URL", "REDIS_URL", "DEBUG"}}
    env.update({
        "DJANGO_SETTINGS_MODULE": "compliance.settings",
        "DJANGO_ENV": "production",
        "SECRET_KEY": _SECRETS["secret_key"],
        "AUDIT_CHAIN_KEY": _SECRETS["audit_chain_key"],
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"postgres://{database}_app@{PG_HOSTPORT}/{database}",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "LOG_LEVEL": "WARNING",
        "STATIC_ROOT": str(ROOT / "var" / "bench" / "static"),  # collectstatic's place; the API serves none
        "PYTHONPATH": str(ROOT),
    })
    env.update(extra)
    return env


_SECRETS = {"secret_key": secrets.token_urlsafe(48), "audit_chain_key": secrets.token_urlsafe(32)}


def _owner_dsn(database: str) -> str:
    return f"postgresql://{PG_OWNER}@{PG_HOSTPORT}/{database}"


def _drop_database(database: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(_owner_dsn("postgres"), autocommit=True) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database)))


def _drop_database_and_role(database: str) -> None:
    import psycopg
    from psycopg import sql

    _drop_database(database)
    with psycopg.connect(_owner_dsn("postgres"), autocommit=True) as connection:
        connection.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(f"{database}_app")))


def _create_database(database: str) -> None:
    import psycopg
    from psycopg import sql

    _drop_database(database)
    with psycopg.connect(_owner_dsn("postgres"), autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    owner_url = f"postgres://{PG_OWNER}@{PG_HOSTPORT}/{database}"
    subprocess.run([PYTHON, "manage.py", "db_roles", "--migrate", "-v", "0"], cwd=ROOT, check=True,
                   env=_env(database, DATABASE_OWNER_URL=owner_url), stdout=subprocess.DEVNULL)


def _child(database: str, mode: str, *args: str) -> dict[str, Any]:
    """Run this script in a Django process of its own (production settings, the application role)."""
    env = _env(database, FAST_PASSWORD_HASHER="1")  # noqa: S106 - a switch: signing checks passwords
    command = [PYTHON, __file__, *(args or [f"--child-{mode}"]), "--database", database]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    for line in result.stdout.splitlines():
        if line.startswith(_MARK):
            return dict(json.loads(line[len(_MARK):]))
    raise SystemExit(f"{mode} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}")


# ---------------------------------------------------------------- children: seed and in-process profile

def _django() -> None:
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _seed() -> None:
    """The facility, its people, the program with its approvals, a $25 series, table CR-1, and the coupons
    received, issued and distributed today, one distribution per lane (each its own open range)."""
    from compliance.actors import acting_as, system_user
    from compliance.gaming_day import gaming_day
    from compliance.models import Facility, Game, GamingTable
    from compliance.roles import Role
    from compliance.services import profile_create, signature_sign
    from coupons import services
    from coupons.models import CouponProgram

    password = secrets.token_urlsafe(18)
    with acting_as(system_user()):
        facility = Facility.objects.create(code="bench", name="Bench Casino", certificate_holder="Bench LLC")
        people = {
            key: profile_create(username=f"bench-{key}", full_name=f"Bench {key}", credential_number=f"BENCH-{key}",
                                department_code=department, roles=[role], facilities=[facility], password=password)
            for key, role, department in [
                ("finsup", Role.FINANCE_SUPERVISOR, "finance"), ("finance", Role.FINANCE_STAFF, "finance"),
                ("mktsup", Role.MARKETING_SUPERVISOR, "marketing"), ("marketing", Role.MARKETING_STAFF, "marketing"),
                ("officer", Role.COMPLIANCE_OFFICER, "compliance"), ("shift", Role.SHIFT_MANAGER, "table_games"),
            ]
        }
    for person in people.values():  # a password set by the system is temporary and signs nothing: choose one
        with acting_as(person):
            person.set_password(password)
            person.save(update_fields=["password"])
    with acting_as(system_user()):
        program = CouponProgram.objects.get(code="match-play")
        craps = Game.objects.get(code="craps")
        GamingTable.objects.create(facility=facility, number="CR-1", game=craps, pit="Pit 1", is_open=True)
        today = gaming_day(facility)
        vault = services.location_create(facility=facility, name="Vault", department="finance", user=people["officer"],
                                         bcc_approved_on=today.fromordinal(today.toordinal() - 60),
                                         bcc_approval_reference="BCC-BENCH")
        series = services.series_create(
            facility=facility, program=program, code="mp25", name="Match Play $25", denomination_cents=2500,
            expires_on=today.replace(year=today.year + 1), games=[craps], wager_restrictions="Pass line only",
            user=people["finsup"], serial_prefix="MP", serial_digits=7,
        )
        for kind in ("design", "internal_controls"):
            services.approval_record(facility=facility, program=program, kind=kind,
                                     approved_on=today.fromordinal(today.toordinal() - 30), reference=f"BENCH-{kind}",
                                     series=series if kind == "design" else None, user=people["officer"],
                                     password=password)
        total = (LANES + 2) * PER_LANE
        services.receipt_record(
            facility=facility, series=series, received_on=today, supplier="Printer", invoice_number="1",
            invoice_quantity=total, invoice_first_serial=1, invoice_last_serial=total, received=[(1, total)],
            location=vault, user=people["finsup"], password=password,
            examiners=[("examined_finance", services.CoSigner(people["finance"], password)),
                       ("examined_marketing", services.CoSigner(people["marketing"], password))],
        )
        requisition = services.requisition_prepare(facility=facility, program=program, denomination_cents=2500,
                                                   quantity=total, needed_for=today, user=people["mktsup"],
                                                   password=password)
        signature_sign(record=requisition, slot="authorized", user=people["finsup"], password=password)
        services.issuance_record(requisition=requisition, series=series, issued=[(1, total)], user=people["finsup"],
                                 password=password, gaming_date=today,
                                 receiver=services.CoSigner(people["mktsup"], password))
        for lane in range(LANES + 2):
            first = lane * PER_LANE + 1
            services.distribution_record(facility=facility, series=series, spans=[(first, first + PER_LANE - 1)],
                                         user=people["marketing"], gaming_date=today)


def child_scanner(*, seed: bool) -> dict[str, Any]:
    """Seed (a fresh database) or not (a kept one); a new scanner token, and the next unused serial of each lane."""
    from django.contrib.auth import get_user_model
    from django.db.models import Max

    from compliance.gaming_day import gaming_day
    from compliance.models import GamingTable
    from coupons.models import Redemption
    from coupons.services.scanners import scanner_register

    if seed:
        _seed()
    table = GamingTable.objects.select_related("facility").get(facility__code="bench", number="CR-1")
    _, token = scanner_register(facility=table.facility, table=table, name=f"CR-1 scanner {time.time_ns()}",
                                user=get_user_model().objects.get(username="bench-shift"))
    return {"token": token, "gaming_date": gaming_day(table.facility).isoformat(), "cursor": [
        (Redemption.objects.filter(serial__gte=lane * PER_LANE + 1, serial__lte=(lane + 1) * PER_LANE)
         .aggregate(last=Max("serial"))["last"] or lane * PER_LANE) + 1
        for lane in range(LANES + 2)]}


def child_profile(token: str, requests: int) -> dict[str, Any]:
    """Queries and time of single redemptions through Django's test client (no HTTP, no gunicorn)."""
    import cProfile
    import pstats

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    from django.db.models import Max

    from coupons.models import Redemption

    end = (PROFILE_LANE + 1) * PER_LANE
    last = Redemption.objects.filter(serial__gt=PROFILE_LANE * PER_LANE, serial__lte=end).aggregate(m=Max("serial"))
    serials = iter(range((last["m"] or PROFILE_LANE * PER_LANE) + 1, end + 1))
    headers: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Token {token}", "HTTP_HOST": "127.0.0.1", "HTTP_X_FORWARDED_PROTO": "https"}

    def post(key: bool) -> Any:
        serial = next(serials)
        extra = {"HTTP_IDEMPOTENCY_KEY": f"p-{serial}"} if key else {}
        response = client.post(URL_PATH, data=json.dumps(_body(serial)), content_type="application/json",
                               **{**headers, **extra})
        if response.status_code != 201:
            raise SystemExit(f"profile: {response.status_code} {response.content[:500]!r}")
        return response

    for _ in range(20):
        post(True)
    answer: dict[str, Any] = {}
    for key in (False, True):
        with CaptureQueriesContext(connection) as captured:
            post(key)
        answer["queries_key" if key else "queries"] = [
            {"ms": float(q["time"]) * 1000, "sql": q["sql"][:160]} for q in captured.captured_queries]
    started, cpu = time.perf_counter(), time.process_time()
    for _ in range(requests):
        post(True)
    answer["ms_per_request"] = (time.perf_counter() - started) * 1000 / requests
    answer["cpu_ms_per_request"] = (time.process_time() - cpu) * 1000 / requests
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(requests):
        post(True)
    profiler.disable()
    answer["profile_top"] = _profile_summary(pstats.Stats(profiler), requests)
    return answer


def _profile_summary(stats: Any, requests: int) -> list[tuple[str, float]]:
    """Own (tottime) CPU per request grouped by where the code lives: Django, DRF, psycopg, the app..."""
    groups: dict[str, float] = collections.defaultdict(float)
    for (filename, _, _), (_, _, tottime, _, _) in stats.stats.items():
        groups[_where(filename)] += tottime
    return sorted(((k, v * 1000 / requests) for k, v in groups.items()), key=lambda kv: -kv[1])[:12]


def _where(filename: str) -> str:
    for marker, name in [("/django/db/", "django.db (ORM, SQL compile)"), ("/django/", "django (other)"),
                         ("/rest_framework/", "rest_framework"), ("/simple_history/", "simple_history"),
                         ("/psycopg", "psycopg (driver, waiting on PostgreSQL)"), ("/coupons/", "coupons (app)"),
                         ("/compliance/", "compliance (app)"), ("{built-in", "builtins")]:
        if marker in filename:
            return name
    return "other python" if filename.startswith("/") else filename


# ---------------------------------------------------------------- HTTP client

def _body(serial: int) -> dict[str, str]:
    return {"serial": f"MP-{serial:07d}", "position": "pass_line", "chips": "25.00"}


@dataclass
class Result:
    started: float
    ended: float
    status: int


@dataclass
class Lanes:
    """Ranges of distributed serials; a request holds one lane, so no two in flight move the same range."""

    cursor: list[int] = field(default_factory=lambda: [lane * PER_LANE + 1 for lane in range(LANES)])
    free: collections.deque[int] = field(default_factory=collections.deque)
    waiters: collections.deque[asyncio.Future[None]] = field(default_factory=collections.deque)

    def __post_init__(self) -> None:
        self.free.extend(lane for lane, serial in enumerate(self.cursor) if serial <= (lane + 1) * PER_LANE)

    async def take(self) -> tuple[int, int]:
        while not self.free:
            waiter = asyncio.get_running_loop().create_future()
            self.waiters.append(waiter)
            await waiter
        lane = self.free.popleft()
        serial = self.cursor[lane]
        self.cursor[lane] += 1
        if self.cursor[lane] > (lane + 1) * PER_LANE:  # the lane is used up: it is not given back
            self.cursor[lane] = -1
        return lane, serial

    def give_back(self, lane: int) -> None:
        if self.cursor[lane] > 0:
            self.free.append(lane)
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                break


class Client:
    def __init__(self, port: int, token: str, idempotency_key: bool) -> None:
        self.port, self.token, self.key = port, token, idempotency_key
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.connections_opened = 0

    def _request(self, serial: int) -> bytes:
        body = json.dumps(_body(serial)).encode()
        key = f"Idempotency-Key: scan-{serial}\r\n" if self.key else ""
        return (f"POST {URL_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {self.token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nX-Forwarded-Proto: https\r\n"
                f"{key}\r\n").encode() + body

    async def post(self, serial: int) -> int:
        request = self._request(serial)
        for _ in range(2):
            reused = bool(self.idle)
            if reused:
                reader, writer = self.idle.pop()
            else:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                self.connections_opened += 1
            try:
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
            except (ConnectionError, asyncio.IncompleteReadError):
                writer.close()
                if reused:  # the server closed an idle keep-alive connection before reading: send again
                    continue
                return 599
            lower = head.lower()
            length = re.search(rb"\r\ncontent-length:\s*(\d+)", lower)
            if length is None:
                writer.close()
                return 598
            await reader.readexactly(int(length.group(1)))
            if b"\r\nconnection: close" in lower:
                writer.close()
            else:
                self.idle.append((reader, writer))
            return int(head[9:12])
        return 599

    def close(self) -> None:
        for _, writer in self.idle:
            writer.close()
        self.idle.clear()


async def closed_loop(client: Client, lanes: Lanes, connections: int, seconds: float) -> list[Result]:
    results: list[Result] = []
    stop = time.perf_counter() + seconds

    async def one_connection() -> None:
        while (started := time.perf_counter()) < stop:
            lane, serial = await lanes.take()
            try:
                status = await client.post(serial)
            finally:
                lanes.give_back(lane)
            results.append(Result(started, time.perf_counter(), status))

    # One Client per connection keeps each connection's keep-alive socket its own.
    await asyncio.gather(*(one_connection() for _ in range(connections)))
    return results


async def open_loop(make_client: Any, lanes: Lanes, rate: float, seconds: float) -> list[Result]:
    """A scan every 1/rate seconds, whatever the server does; latency from the scheduled moment."""
    results: list[Result] = []
    pool: list[Client] = []
    tasks = set()

    async def one(scheduled: float) -> None:
        lane, serial = await lanes.take()
        client = pool.pop() if pool else make_client()
        try:
            status = await client.post(serial)
        finally:
            lanes.give_back(lane)
            pool.append(client)
        results.append(Result(scheduled, time.perf_counter(), status))

    start = time.perf_counter() + 0.01
    for n in range(int(rate * seconds)):
        scheduled = start + n / rate
        if (delay := scheduled - time.perf_counter()) > 0:
            await asyncio.sleep(delay)
        task = asyncio.create_task(one(scheduled))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    await asyncio.gather(*tasks)
    for client in pool:
        client.close()
    return results


# ---------------------------------------------------------------- figures

@dataclass
class Figure:
    label: str
    rate: float
    p50: float = 0.0
    p95: float = 0.0
    p99: float = 0.0
    errors: int = 0
    requests: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)  # ms of CPU per request, by process group

    def line(self) -> str:
        errors = f"errors {self.errors}" + (f" {dict(self.statuses)}" if self.errors else "")
        return (f"{self.label:<34} {self.rate:7.0f}/s  p50 {self.p50:5.1f}  p95 {self.p95:5.1f}  "
                f"p99 {self.p99:6.1f} ms  {errors}")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def figure_of(label: str, results: list[Result], since: float, seconds: float) -> Figure:
    """Requests started in the measured window (after the warm-up)."""
    window = [r for r in results if r.started >= since]
    latencies = [(r.ended - r.started) * 1000 for r in window]
    statuses = collections.Counter(r.status for r in window)
    done = [r for r in window if r.ended <= since + seconds]
    ok = sum(1 for r in done if r.status == 201)
    return Figure(label, ok / seconds, _percentile(latencies, 0.50), _percentile(latencies, 0.95),
                  _percentile(latencies, 0.99), sum(n for s, n in statuses.items() if s != 201), len(window),
                  dict(statuses))


# ---------------------------------------------------------------- CPU accounting (/proc)

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

        with psycopg.connect(_owner_dsn("postgres"), autocommit=True) as connection:
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

    def stop(self, requests: int) -> dict[str, float]:
        used = {g: sum(_cpu_seconds(p) - t for p, t in before.items()) for g, before in self.before.items()}
        used["client"] = time.process_time() - self.client_before
        busy, total = _machine_busy()
        used["machine"] = busy - self.machine_before[0]
        used["others"] = max(0.0, used["machine"] - used["gunicorn"] - used["postgres"] - used["client"])
        self.machine_share = (busy - self.machine_before[0]) / max(1e-9, total - self.machine_before[1])
        return {g: s * 1000 / max(1, requests) for g, s in used.items()}


# ---------------------------------------------------------------- baseline: a bare SQL conditional update

async def bare_sql(database: str, connections: int, warmup: float, seconds: float) -> tuple[Figure, float]:
    import psycopg

    dsn = _owner_dsn(database)
    with psycopg.connect(dsn, autocommit=True) as owner:
        owner.execute("DROP TABLE IF EXISTS bench_scratch")
        owner.execute("CREATE TABLE bench_scratch (id integer PRIMARY KEY, redeemed boolean NOT NULL DEFAULT false)")
        owner.execute("INSERT INTO bench_scratch (id) SELECT generate_series(1, %s)", [LANES * PER_LANE])
        owner.execute("VACUUM ANALYZE bench_scratch")
    ids = iter(range(1, LANES * PER_LANE + 1))
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


# ---------------------------------------------------------------- gunicorn

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
    command = [str(Path(PYTHON).parent / "gunicorn"), "compliance.wsgi:application", "--bind", f"127.0.0.1:{port}",
               *config.args(), "--log-level", "warning", "--error-logfile", "-", "--timeout", "30"]
    with log.open("ab") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=_env(database), stdout=out, stderr=subprocess.STDOUT)
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
    if rate is None:
        clients = [make_client() for _ in range(args.connections)]
        results = [r for batch in await asyncio.gather(*(closed_loop(c, lanes, 1, args.warmup + seconds)
                                                         for c in clients)) for r in batch]
        for client in clients:
            client.close()
    else:
        results = await open_loop(make_client, lanes, rate, args.warmup + seconds)
    figure = figure_of(label, results, began + args.warmup, seconds)
    figure.cpu = meter.stop(len(results))
    return figure, meter.machine_share


async def one_range(port: int, token: str, first: int, connections: int, seconds: float) -> Figure:
    """Scans of consecutive coupons of one distributed range, from several tables at once."""
    serials = iter(range(first, (SHARED_LANE + 1) * PER_LANE + 1))

    class OneRange(Lanes):
        async def take(self) -> tuple[int, int]:
            return 0, next(serials)

        def give_back(self, lane: int) -> None:
            pass

    client = Client(port, token, idempotency_key=True)
    began = time.perf_counter()
    results = await closed_loop(client, OneRange(), connections, seconds)
    client.close()
    return figure_of(f"one range, {connections} conns", results, began, seconds)


# ---------------------------------------------------------------- report

def _cpu_words(figure: Figure) -> str:
    parts = ", ".join(f"{k} {v:.1f}" for k, v in figure.cpu.items() if k not in {"machine", "others"})
    return (f"      CPU ms per redemption: {parts}; other work on the machine {figure.cpu.get('others', 0):.1f}")


def _database_exists(database: str) -> bool:
    import psycopg

    with psycopg.connect(_owner_dsn("postgres"), autocommit=True) as connection:
        return bool(connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--database", default="bench_redemption")
    parser.add_argument("--configs", default="sync:3,sync:5,gthread:2x4,gthread:3x4",
                        help="gunicorn configurations to try, e.g. sync:3,gthread:2x4 (the fastest is kept)")
    parser.add_argument("--connections", type=int, default=8, help="closed-loop connections (and baseline's)")
    parser.add_argument("--duration", type=float, default=10.0, help="measured seconds of each final run")
    parser.add_argument("--screen", type=float, default=5.0, help="measured seconds of each configuration's trial")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rate", type=float, default=TARGET_RATE, help="open-loop offered rate")
    parser.add_argument("--no-idempotency-key", dest="idempotency_key", action="store_false",
                        help="scans without an Idempotency-Key (the API accepts both; scanners should send one)")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure again on a database kept by --keep")
    parser.add_argument("--child-seed", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-scanner", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-profile", default="", help=argparse.SUPPRESS)
    args, _ = parser.parse_known_args()  # bench/run.py passes its own arguments to every bench

    if args.child_seed or args.child_scanner or args.child_profile:
        _django()
        answer = (child_profile(args.child_profile, 200) if args.child_profile
                  else child_scanner(seed=args.child_seed))
        print(_MARK + json.dumps(answer), flush=True)
        return 0

    configs = [ServerConfig.parse(c) for c in args.configs.split(",") if c.strip()]
    log = ROOT / "var" / "bench" / "redemption-gunicorn.log"
    (log.parent / "static").mkdir(parents=True, exist_ok=True)
    log.write_bytes(b"")
    started = time.perf_counter()
    reuse = args.reuse and _database_exists(args.database)
    print(f"Database {args.database} on {PG_HOSTPORT} ({'kept' if reuse else 'fresh'}; gunicorn logs in as "
          f"{args.database}_app); {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}", flush=True)
    if not reuse:
        _create_database(args.database)
    state = _child(args.database, "seed" if not reuse else "scanner")
    token, lanes = state["token"], Lanes(cursor=state["cursor"][:LANES])
    print(f"  {(LANES + 2) * PER_LANE:,} coupons distributed on {state['gaming_date']} in {LANES + 2} ranges "
          f"({time.perf_counter() - started:.0f} s)", flush=True)
    try:
        baseline, _ = asyncio.run(bare_sql(args.database, args.connections, args.warmup, args.duration))
        print(f"  {baseline.line()}", flush=True)
        trials: list[tuple[Figure, ServerConfig]] = []
        for config in configs:
            with gunicorn(args.database, config, log) as (port, pid):
                figure, _ = asyncio.run(measure_http(args.database, port, pid, token, lanes, args,
                                                     f"trial {config}", rate=None, seconds=args.screen))
            trials.append((figure, config))
            print(f"  {figure.line()}", flush=True)
        best = max(trials, key=lambda t: (t[0].errors == 0, t[0].rate))[1]
        with gunicorn(args.database, best, log) as (port, pid):
            capacity, busy = asyncio.run(measure_http(args.database, port, pid, token, lanes, args,
                                                      f"{best}, {args.connections} conns", rate=None,
                                                      seconds=args.duration))
            # Offering more than the server can take only grows a queue: then offer 80 % of its capacity.
            rate = args.rate if capacity.rate >= args.rate else max(1.0, round(0.8 * capacity.rate))
            offered, _ = asyncio.run(measure_http(args.database, port, pid, token, lanes, args,
                                                  f"{best}, {rate:.0f}/s offered", rate=rate, seconds=args.duration))
            idle, _ = asyncio.run(measure_http(args.database, port, pid, token, lanes, args,
                                               f"{best}, {IDLE_RATE:.0f}/s offered", rate=IDLE_RATE,
                                               seconds=args.duration))
            contention = asyncio.run(one_range(port, token, state["cursor"][SHARED_LANE], args.connections,
                                               args.screen))
        profile = _child(args.database, "profile", f"--child-profile={token}")
    finally:
        if not args.keep:
            _drop_database_and_role(args.database)
    _report(args, baseline, capacity, busy, offered, rate, idle, contention, profile, best)
    print(f"  ({time.perf_counter() - started:.0f} s; gunicorn's log: {log.relative_to(ROOT)}"
          f"{'; database kept: --reuse measures again' if args.keep else ''})")
    return 0


def _report(args: argparse.Namespace, baseline: Figure, capacity: Figure, busy: float, offered: Figure, rate: float,
            idle: Figure, contention: Figure, profile: dict[str, Any], best: ServerConfig) -> None:
    key = "with" if args.idempotency_key else "without"
    print(f"Redemptions, POST {URL_PATH} {key} Idempotency-Key, gunicorn {best}, DJANGO_ENV=production:")
    print(f"  closed loop  {capacity.line()}  (machine {busy:.0%} busy)\n{_cpu_words(capacity)}")
    print(f"  open loop    {offered.line()}")
    print(f"  open loop    {idle.line()}  (no queue: the latency floor)")
    print(f"  baseline     {baseline.line()}\n      CPU ms per update: postgres {baseline.cpu['postgres']:.2f}, "
          f"client {baseline.cpu['client']:.2f}")
    ratio = capacity.rate / baseline.rate
    print(f"  ratio API / bare SQL: {ratio:.3f} (one redemption costs {1 / ratio:.0f} bare conditional updates)")
    print(f"  same range   {contention.line()}: legitimate scans refused because another scan of the same "
          f"distributed range committed first")
    queries = profile["queries_key" if args.idempotency_key else "queries"]
    print(f"  queries per redemption: {len(profile['queries'])} without Idempotency-Key, "
          f"{len(profile['queries_key'])} with; in-process (test client, no HTTP, one at a time) "
          f"{profile['ms_per_request']:.1f} ms wall, {profile['cpu_ms_per_request']:.1f} ms CPU")
    top = ", ".join(f"{name} {ms:.1f}" for name, ms in profile["profile_top"][:6])
    print(f"  in-process own time per redemption (cProfile, inflated), ms: {top}")
    slowest = sorted(queries, key=lambda q: -q["ms"])[:3]
    print("  slowest queries: " + "; ".join(f"{q['ms']:.1f} ms {q['sql'][:60]}" for q in slowest))
    met = (capacity.rate >= TARGET_RATE and rate >= TARGET_RATE and offered.rate >= 0.98 * rate
           and offered.p99 < TARGET_P99_MS and capacity.errors + offered.errors == 0)
    p99 = f"p99 {offered.p99:.1f} ms at {rate:.0f}/s offered" + ("" if rate >= TARGET_RATE else
                                                                 f" (the target {TARGET_RATE:.0f}/s is over capacity)")
    print(f"{'PASS' if met else 'MISS'}: {capacity.rate:.0f} redemptions/s (target >= {TARGET_RATE:.0f}/s), {p99} "
          f"(target < {TARGET_P99_MS:.0f} ms), errors {capacity.errors + offered.errors}; bare SQL "
          f"{baseline.rate:.0f}/s; ratio {ratio:.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
