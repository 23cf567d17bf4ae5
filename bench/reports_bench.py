"""Benchmark: the quarterly Match Play Coupon report job (§ 525.21(o)) over a quarter of 5,000,000 redemptions.

The figure (the reports issue): "A quarter with 5,000,000 redemptions: the report's figures come from one SQL
aggregate, and the whole job (figures, PDF, CSV, record) takes no more than 1.5 times the bare SQL aggregate over
the same rows measured in the same run."

What it does, on PostgreSQL (``BENCH_DATABASE_URL``'s server, else 127.0.0.1:5432 as postgres; the database is
``--database``, default ``bench_reports``, made afresh and dropped at the end unless ``--keep``):

1. setup: migrates (reference data included); through the services, one facility with five approved series
   ($5, $10, $25, $50, $100), eight tables, a dealer, a compliance officer; a second facility with a $25 series
   and two tables. Then ONE ``INSERT … SELECT generate_series`` writes the redemptions, in gaming-day order as
   they would have arrived: ``--rows`` (default 5,000,000) of the facility on the 92 gaming days of Q3 2026,
   ``--rows``/20 in the last days of June and as many in the first days of October, ``--rows``/10 of the other
   facility in Q3; every tenth cancelled at the count. Each row is sealed in the same statement as
   ``Sealed.compute_seal`` seals it (HMAC-SHA256 under ``AUDIT_CHAIN_KEY`` of the row's sorted JSON, written in
   SQL with ``sha256()``), then ``VACUUM ANALYZE coupons_redemption``;
2. the audit chain brought up to date, as the beat (every minute) keeps it: at report time only seconds of
   rows wait. ``--link direct`` (default) writes the redemption chain's links as ``chain_link`` writes them —
   50,000 rows a link, ``_link_hash`` over (id, seal), each link's floor its last id — reading the rows once;
   ``--link chain`` calls ``compliance.chain.chain_link_all()`` instead, which reads every row above the floor
   for each link of 50,000 (quadratic: 22 s for 1,200,000 rows, minutes at 6,000,000), then waits the minute
   after which links count as settled and links one more redemption, as the beat would (until then the floor
   stays where it was and every chain_head() rereads every row above it: 0.8 s a job at 1,200,000). Either way
   ``chain_link_all()`` then links the setup's own rows (audit events, history, signatures). A sample of
   redemption seals is checked with ``seal_intact()``; ``--verify`` runs the whole ``chain_verify()``;
3. measures, alternating, after one warm-up, ``--reps`` times each (median): (a) the bare aggregate,
   ``FIGURES_SQL`` through a Django cursor, fetched; (b) the whole job: a new version asked for with
   ``run_request`` (Celery not eager, memory broker: its enqueue goes nowhere, so the job runs once, here),
   then ``run_execute(run.pk)`` timed until it returns the run *succeeded* with its PDF, CSV and JSON stored;
4. prints both, the ratio, the job's stages (start, figures = the aggregate + building the content, chain head,
   PDF, CSV, record), and the statements the warm-up job issued against ``coupons_redemption``; PASS when the
   ratio is at most 1.5 and the figures came from one aggregate, else FAIL (exit code 1).

    .venv/bin/python bench/reports_bench.py                          # 5,000,000 rows: setup about 5 minutes
    .venv/bin/python bench/reports_bench.py --keep                   # then --reuse measures again, no setup
    .venv/bin/python bench/reports_bench.py --reuse --keep --reps 9
    .venv/bin/python bench/reports_bench.py --rows 20000 --verify    # a quick check, the whole chain verified

Runs with ``DEBUG`` off (no query log), the development settings otherwise, as the database superuser.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchlib.database import configure  # noqa: E402 (bench/ is on the path: the script's directory)
from benchlib.reports_setup import (  # noqa: E402
    FACILITY,
    KIND,
    Q3,
    REDEMPTION_TABLE,
    TARGET_RATIO,
    _drop,
    _rows_present,
    _server,
    _setup,
    _verify,
)

STAGES: dict[str, float] = defaultdict(float)
STAGE_ORDER = ("start", "figures", "of which the aggregate", "chain head", "PDF", "CSV", "record")


def _timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            STAGES[name] += time.perf_counter() - started

    return wrapper


def _instrument() -> None:
    """Time the job's stages where ``services`` calls them (wrappers cost a clock read)."""
    from compliance.reports import services
    from coupons.report_kinds import quarterly_coupons

    for attribute, name in (("_start", "start"), ("anchor_record", "chain head"), ("content_pdf", "PDF"),
                            ("content_csv", "CSV"), ("_finish", "record")):
        setattr(services, attribute, _timed(name, getattr(services, attribute)))
    setattr(quarterly_coupons, "quarterly_figures",  # noqa: B010 - a module's function, wrapped in place
            _timed("of which the aggregate", quarterly_coupons.quarterly_figures))
    kind_of = services.kind_of

    def timed_kind(code: str) -> Any:
        kind = kind_of(code)
        return None if kind is None else dataclasses.replace(kind, build=_timed("figures", kind.build))

    setattr(services, "kind_of", timed_kind)  # noqa: B010 - a module's function, wrapped in place


def _bare(facility: Any) -> tuple[float, list[Any]]:
    from django.db import connection

    from coupons.report_kinds.quarterly_coupons import FIGURES_SQL

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(FIGURES_SQL, [facility.pk, *Q3])
        rows = cursor.fetchall()
    return (time.perf_counter() - started) * 1000, rows


@dataclasses.dataclass
class Job:
    ms: float
    request_ms: float
    stages: dict[str, float]
    run: Any
    sizes: dict[str, int]
    statements: int = 0  # counted on the warm-up job only


def _job(facility: Any, officer: Any) -> Job:
    from compliance.reports import services
    from compliance.reports.models import ReportRun

    started = time.perf_counter()
    run = services.run_request(facility=facility, kind=KIND, start=Q3[0], end=Q3[1], user=officer)
    request_ms = (time.perf_counter() - started) * 1000
    if run.status != ReportRun.Status.QUEUED:
        raise SystemExit(f"run_request answered a run {run.status}, not a new queued version")
    STAGES.clear()
    started = time.perf_counter()
    done = services.run_execute(run.pk)
    ms = (time.perf_counter() - started) * 1000
    stages = {name: STAGES[name] * 1000 for name in STAGE_ORDER}
    if done is None or done.status != ReportRun.Status.SUCCEEDED:
        raise SystemExit(f"the job did not succeed: {getattr(done, 'status', None)} {getattr(done, 'error', '')}")
    sizes = {f.format: f.size for f in done.files.all()}
    if set(sizes) != {"pdf", "csv", "json"}:
        raise SystemExit(f"the run's files are {sorted(sizes)}, not PDF, CSV and JSON")
    return Job(ms, request_ms, stages, done, sizes)


def _plan(facility: Any) -> str:
    """The aggregate's plan in a line: its nodes, workers, JIT."""
    import json

    from django.db import connection

    from coupons.report_kinds.quarterly_coupons import FIGURES_SQL

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {FIGURES_SQL}", [facility.pk, *Q3])
        plan = cursor.fetchone()[0]
    plan = plan if isinstance(plan, list) else json.loads(plan)
    nodes: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        workers = f" ({node['Workers Launched']} workers)" if "Workers Launched" in node else ""
        nodes.append(f"{node['Node Type']}{workers}")
        for child in node.get("Plans", []):
            walk(child)

    walk(plan[0]["Plan"])
    jit = plan[0].get("JIT", {}).get("Timing", {}).get("Total")
    return " > ".join(nodes) + (f"; JIT {jit:.0f} ms" if jit is not None else "; no JIT")


def _queries(facility: Any, officer: Any) -> tuple[Job, list[str]]:
    """The warm-up job, its statements on coupons_redemption captured (and all of them counted)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        job = _job(facility, officer)
    job.statements = len(captured.captured_queries)
    return job, [q["sql"] for q in captured.captured_queries if REDEMPTION_TABLE.search(q["sql"])]


def _people(casino: bool) -> tuple[Any, Any]:
    """The facility whose Q3 is reported and the compliance officer who asks: the bench's own, or the generated
    casino's (its demo facility and first compliance officer, compliance.demo)."""
    from django.contrib.auth import get_user_model

    from compliance.demo import demo_person
    from compliance.models import Facility
    from compliance.roles import Role

    if casino:
        facility = Facility.objects.get(code="demo")
        return facility, demo_person(facility, Role.COMPLIANCE_OFFICER)
    return Facility.objects.get(code=FACILITY), get_user_model().objects.get(username="bench-officer")


def _casino_rows(facility: Any) -> int:
    from coupons.models import Redemption

    return Redemption.objects.filter(facility=facility, gaming_date__range=Q3).count()


def _measure(reps: int, facility: Any, officer: Any) -> tuple[list[float], list[Job], Job, list[str], list[Any]]:
    _bare(facility)  # warm: the first run reads the table into the cache
    warm, on_redemptions = _queries(facility, officer)
    bare: list[float] = []
    jobs: list[Job] = []
    figures: list[Any] = []
    for rep in range(reps):  # alternate which goes first, so neither always follows the other
        order = ("bare", "job") if rep % 2 == 0 else ("job", "bare")
        for what in order:
            if what == "bare":
                ms, figures = _bare(facility)
                bare.append(ms)
            else:
                jobs.append(_job(facility, officer))
        print(f"  rep {rep + 1}: bare {bare[-1]:.0f} ms, job {jobs[-1].ms:.0f} ms", flush=True)
    return bare, jobs, warm, on_redemptions, figures


# ----------------------------------------------------------------------------------------------- the report


def _report(rows: int, bare: list[float], jobs: list[Job], warm: Job, on_redemptions: list[str],
            figures: list[Any], plan: str) -> bool:
    from compliance.reports import selectors

    bare_ms = statistics.median(bare)
    job_ms = statistics.median(j.ms for j in jobs)
    ratio = job_ms / bare_ms
    coupons = sum(int(count) for _, _, count, _ in figures)
    content = selectors.run_content(jobs[-1].run)
    agrees = content is not None and content.figures["coupons"] == coupons == rows
    aggregates = [sql for sql in on_redemptions if "GROUP BY" in sql.upper()]
    print(f"Quarterly Match Play Coupon report, Q3 2026: {coupons:,} redemptions of the facility in the quarter "
          f"({len(figures)} denomination × channel rows; the report's figures {'agree' if agrees else 'DISAGREE'})")
    print(f"  plan of the aggregate: {plan}")
    print(f"  bare SQL aggregate (FIGURES_SQL, cursor, fetched): median {bare_ms:.0f} ms "
          f"(min {min(bare):.0f}, max {max(bare):.0f}; {len(bare)} runs)")
    print(f"  whole job (run_execute: figures, chain head, PDF, CSV, record): median {job_ms:.0f} ms "
          f"(min {min(j.ms for j in jobs):.0f}, max {max(j.ms for j in jobs):.0f}; {len(jobs)} runs, versions "
          f"{jobs[0].run.version}–{jobs[-1].run.version}); run_request before it {statistics.median(j.request_ms for j in jobs):.0f} ms")
    stages = {name: statistics.median(j.stages[name] for j in jobs) for name in STAGE_ORDER}
    other = job_ms - sum(v for k, v in stages.items() if k != "of which the aggregate")
    print("  job stages, median ms: " + ", ".join(f"{k} {v:.1f}" for k, v in stages.items())
          + f", the rest (progress, production line) {other:.1f}")
    print("  files: " + ", ".join(f"{fmt} {size:,} bytes" for fmt, size in sorted(jobs[-1].sizes.items())))
    print(f"  first job (warm-up, its statements captured): {warm.ms:.0f} ms, {warm.statements} statements in all")
    print(f"  ratio job / bare aggregate: {ratio:.2f} (target <= {TARGET_RATIO})")
    print(f"  statements on coupons_redemption in one job (warm-up, captured): {len(on_redemptions)}, of which "
          f"{len(aggregates)} aggregate")
    for sql in on_redemptions:
        print(f"    - {' '.join(sql.split())[:150]}")
    met = ratio <= TARGET_RATIO and len(aggregates) == 1 and agrees
    print(f"{'PASS' if met else 'FAIL'}: whole job {job_ms:.0f} ms vs bare aggregate {bare_ms:.0f} ms over {rows:,} "
          f"redemptions, ratio {ratio:.2f} (target <= {TARGET_RATIO}); figures from {len(aggregates)} aggregate")
    from benchlib.table import row, save

    save("reports", [row(f"quarterly coupon report over {rows:,} redemptions (figures, PDF, CSV, record)",
                         f"≤ {TARGET_RATIO}× the bare aggregate, one aggregate", f"{job_ms:,.0f} ms",
                         f"bare aggregate {bare_ms:,.0f} ms", ratio, met)])
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000, help="redemptions of the facility in Q3 2026")
    parser.add_argument("--reps", type=int, default=5, help="measured runs of each, after one warm-up")
    parser.add_argument("--database", default="bench_reports")
    parser.add_argument("--link", choices=("direct", "chain"), default="direct",
                        help="how setup brings the redemption chain up to date (see the docstring)")
    parser.add_argument("--verify", action="store_true", help="after setup, chain_verify() every chain (slow)")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure again on a database kept by --keep")
    parser.add_argument("--casino", default="",
                        help="measure on a generated casino instead (manage.py generate_casino covering Q3 2026: "
                             "--days 151 or more on 29 Nov 2026): its own Q3, no setup, never dropped; each job "
                             "adds a report version there, as a compliance officer's request would")
    args, _unknown = parser.parse_known_args()  # bench/run.py passes its own arguments to every bench
    if args.casino:
        return _on_casino(args)
    if "bench" not in args.database:
        raise SystemExit("--database must name a bench database (its name contains 'bench'): it is dropped.")
    began = time.perf_counter()
    present = _rows_present(args.database) if args.reuse else None
    reuse = present == args.rows
    if args.reuse and not reuse:
        print(f"  --reuse: {args.database} has {present or 0:,} Q3 rows, not {args.rows:,}: building it afresh")
    if not reuse:
        _drop(args.database)
    os.environ["BENCH_DATABASE_URL"] = f"{_server()}/{args.database}"
    os.environ["DEBUG"] = "0"  # no query log, as in production
    url = configure("reports")
    import django

    django.setup()
    from celery import current_app
    from django.core.management import call_command
    from django.db import connections

    # No REDIS_URL: the broker is memory://. Not eager: run_request's enqueue goes there, unread; the job runs here.
    current_app.conf.task_always_eager = False
    print(f"Database {url.rsplit('@', 1)[-1]} ({'kept' if reuse else 'fresh'}); {os.cpu_count()} CPUs; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    try:
        started = time.perf_counter()
        call_command("migrate", verbosity=0, interactive=False)
        if not reuse:
            print(f"  migrate: {time.perf_counter() - started:.1f} s", flush=True)
            _setup(args.rows, args.link)
            print(f"  setup total (migrate included): {time.perf_counter() - started:.1f} s", flush=True)
        if args.verify or not reuse:
            _verify(args.verify)
        _instrument()
        facility, officer = _people(casino=False)
        plan = _plan(facility)
        bare, jobs, warm, on_redemptions, figures = _measure(args.reps, facility, officer)
        met = _report(args.rows, bare, jobs, warm, on_redemptions, figures, plan)
    finally:
        connections.close_all()
        if not args.keep:
            _drop(args.database)
    print(f"  ({time.perf_counter() - began:.0f} s{'; database kept: --reuse measures again' if args.keep else ''})")
    return 0 if met else 1


def _on_casino(args: argparse.Namespace) -> int:
    """The job over the generated casino's Q3 2026, beside the bare aggregate over the same rows."""
    began = time.perf_counter()
    os.environ["BENCH_DATABASE_URL"] = f"{_server()}/{args.casino}"
    os.environ["DEBUG"] = "0"
    url = configure("reports")
    import django

    django.setup()
    from celery import current_app
    from django.db import connections

    current_app.conf.task_always_eager = False  # as above: the job runs here, once
    try:
        facility, officer = _people(casino=True)
        rows = _casino_rows(facility)
        print(f"Generated casino {url.rsplit('@', 1)[-1]}: {rows:,} redemptions of {facility.name} in Q3 2026; "
              f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}", flush=True)
        if not rows:
            raise SystemExit("no redemptions in Q3 2026: generate a casino covering it (generate_casino --days 151)")
        _instrument()
        plan = _plan(facility)
        bare, jobs, warm, on_redemptions, figures = _measure(args.reps, facility, officer)
        met = _report(rows, bare, jobs, warm, on_redemptions, figures, plan)
    finally:
        connections.close_all()
    print(f"  ({time.perf_counter() - began:.0f} s)")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())

