"""Benchmark: the audit chain at a large casino's size (issue 21's figures), on PostgreSQL.

Figures:
* full verification of 10,000,000 sealed rows in constant memory: under 500 MB, at 50,000 rows a second or more
  (baseline: the same rows read by bare SQL, streamed, in the same run);
* the daily incremental verification of one large casino's day (400,000 rows) under 30 seconds;
* linking 6,000,000 rows in at most 5.5 times the time of 1,200,000 (linear, not quadratic).

What it does (database ``--database``, default ``bench_chain``, made afresh, dropped unless ``--keep``):
sealed audit events of three facilities and none, written by COPY, each sealed in Python exactly as
``Sealed.compute_seal`` seals it (the verification proves it: it must come out intact); 1,200,000 linked (timed),
the links removed, 4,800,000 more, the 6,000,000 linked (timed); 4,000,000 more linked; the full verification in a
process of its own (its peak memory read from the kernel); 400,000 more rows linked and the incremental
verification timed. Prints one table and writes it as JSON to ``var/bench/audit_chain.json`` (the previous run
kept beside it as ``audit_chain.previous.json``, bench/benchlib/table.py).

    .venv/bin/python bench/audit_chain_bench.py                 # the figures: about 20 minutes on 2 cores
    .venv/bin/python bench/audit_chain_bench.py --scale 0.05    # a quick run at a twentieth of the size
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchlib.database import drop_postgres_database, fresh_postgres_database  # noqa: E402 (bench/ is on the path)
from benchlib.table import print_table, row, save  # noqa: E402

SERVER = "postgres://postgres@127.0.0.1:5432"
FIELDS = ("occurred_at", "facility_id", "actor_id", "action", "model_label", "model_name", "object_id", "object_repr",
          "history_id", "changes", "reason")


def _setup_django(database: str) -> None:
    base = os.environ.get("BENCH_DATABASE_URL", SERVER).rpartition("/")[0] if os.environ.get(
        "BENCH_DATABASE_URL") else SERVER
    os.environ["DATABASE_URL"] = f"{base}/{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")
    os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"
    os.environ["DEBUG"] = "0"  # no query log: production's settings
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()


def _facilities() -> list[int | None]:
    from compliance.models import Facility

    made = [Facility.objects.create(code=f"bench-{n}", name=f"Bench Casino {n}", certificate_holder="Bench LLC")
            for n in range(3)]
    return [f.pk for f in made] + [None]


def _write(count: int, facilities: list[int | None], seed: int) -> float:
    """``count`` sealed audit events by COPY, sealed as the model seals them; the seconds it took."""
    from django.db import connection

    from compliance.chain.rows import row_reader
    from compliance.models import AuditEvent
    from compliance.models.chain import canonical
    from compliance.seal_keys import seal_of

    assert tuple(row_reader(AuditEvent).names) == FIELDS, "AuditEvent's sealed fields changed: update the bench"
    started = time.perf_counter()
    chance = random.Random(seed)
    when = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=seed)
    connection.ensure_connection()
    raw = connection.connection
    with raw.cursor() as cursor, cursor.copy(
            f"COPY compliance_auditevent ({', '.join(FIELDS)}, seal) FROM STDIN") as copy:
        for n in range(count):
            when += timedelta(microseconds=chance.randrange(1, 9_000_000))
            facility = facilities[n % len(facilities)]
            content: dict[str, Any] = {
                "occurred_at": when.isoformat(), "facility_id": facility, "actor_id": None, "action": "changed",
                "model_label": "coupons.LedgerLine", "model_name": "ledger line", "object_id": str(seed * 10**8 + n),
                "object_repr": f"Redeemed MP-{n:07d}", "history_id": n + 1,
                "changes": {"state": ["distributed", "redeemed"]}, "reason": "", "model": "compliance.AuditEvent"}
            seal = seal_of(canonical(content))
            copy.write_row([when, facility, None, "changed", content["model_label"], content["model_name"],
                            content["object_id"], content["object_repr"], n + 1, json.dumps(content["changes"]), "",
                            seal])
    raw.commit()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE compliance_auditevent")
    return time.perf_counter() - started


def _link() -> float:
    from compliance.chain import chain_link
    from compliance.models import AuditEvent

    started = time.perf_counter()
    chain_link(AuditEvent)
    return time.perf_counter() - started


def _truncate_links() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE compliance_chainlink DISABLE TRIGGER USER")
        cursor.execute("TRUNCATE compliance_chainlink")
        cursor.execute("ALTER TABLE compliance_chainlink ENABLE TRIGGER USER")


def _bare_read() -> float:
    """The baseline: the same rows, every column, streamed from a server-side cursor."""
    from django.db import connection, transaction

    started = time.perf_counter()
    with transaction.atomic(), connection.connection.cursor(name="bare") as cursor:
        cursor.itersize = 5000
        cursor.execute("SELECT * FROM compliance_auditevent ORDER BY id")
        for _ in cursor:
            pass
    return time.perf_counter() - started


def _verify_in_a_process(database: str, incremental: bool) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--database", database, "--verify-stage",
                           "incremental" if incremental else "full"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"verification stage failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _rss_mb(pid: int) -> float:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


def _family(pid: int) -> list[int]:
    """The process and its children (the scanning processes it starts)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return [pid, *children]


def _verify_stage(incremental: bool) -> None:
    """In a process of its own: the verification, timed, and the peak of the memory its processes hold together
    (sampled from /proc every 0.2 s: ru_maxrss would count the memory of the process that started this one)."""
    import threading

    from compliance.chain import chain_verify, verification_record

    peak = {"total": 0.0, "own": 0.0, "helpers": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            family = _family(os.getpid())
            total = sum(_rss_mb(pid) for pid in family)
            if total > peak["total"]:
                peak.update(total=total, own=_rss_mb(os.getpid()), helpers=len(family) - 1)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    started = time.perf_counter()
    report = chain_verify(incremental=incremental)
    seconds = time.perf_counter() - started
    done.set()
    watcher.join()
    verification_record(report)
    print(json.dumps({"seconds": seconds, "rows": report.rows, "links": report.links, "intact": report.intact,
                      "findings": report.findings[:5], "peak_mb": peak["total"], "own_mb": peak["own"],
                      "helpers": peak["helpers"]}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="bench_chain")
    parser.add_argument("--scale", type=float, default=1.0, help="a fraction of the figures' sizes, for a quick run")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--verify-stage", choices=["full", "incremental"], help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    _setup_django(arguments.database)
    if arguments.verify_stage:
        _verify_stage(arguments.verify_stage == "incremental")
        return 0
    small, large, full, day = (int(n * arguments.scale) for n in (1_200_000, 6_000_000, 10_000_000, 400_000))
    print(f"audit chain bench: {small:,} / {large:,} rows linked, {full:,} verified, a day of {day:,}", flush=True)
    fresh_postgres_database(arguments.database)
    facilities = _facilities()
    print(f"  wrote {small:,} sealed rows in {_write(small, facilities, 1):.0f} s", flush=True)
    link_small = _link()
    print(f"  linked {small:,} in {link_small:.1f} s", flush=True)
    _truncate_links()
    print(f"  wrote {large - small:,} more in {_write(large - small, facilities, 2):.0f} s", flush=True)
    link_large = _link()
    print(f"  linked {large:,} in {link_large:.1f} s", flush=True)
    print(f"  wrote {full - large:,} more in {_write(full - large, facilities, 3):.0f} s", flush=True)
    print(f"  linked them in {_link():.1f} s", flush=True)
    bare = _bare_read()
    print(f"  bare SQL read of {full:,} rows: {bare:.1f} s", flush=True)
    verified = _verify_in_a_process(arguments.database, incremental=False)
    print(f"  full verification: {verified}", flush=True)
    _write(day, facilities, 4)
    _link()
    daily = _verify_in_a_process(arguments.database, incremental=True)
    print(f"  incremental verification: {daily}", flush=True)
    rate = verified["rows"] / verified["seconds"]
    rows = [
        row(f"full verify of {full:,} rows: rows/s", "≥ 50,000", f"{rate:,.0f}", f"bare read {full / bare:,.0f}/s",
             verified["seconds"] / bare, rate >= 50_000 and verified["intact"]),
        row("full verify: peak memory, all its processes", "< 500 MB", f"{verified['peak_mb']:,.0f} MB",
             f"this process {verified['own_mb']:,.0f} MB, with {verified['helpers']} helper(s)", None,
             verified["peak_mb"] < 500),
        row(f"incremental verify of a day ({day:,} rows)", "< 30 s", f"{daily['seconds']:.1f} s",
             f"full rate: {day / rate:.1f} s", daily["seconds"] / (day / rate), daily["seconds"] < 30 and daily["intact"]),
        row(f"linking {large:,} vs {small:,} rows", "≤ 5.5×", f"{link_large:.1f} s", f"{link_small:.1f} s",
             link_large / link_small, link_large / link_small <= 5.5),
    ]
    print_table(rows)
    save("audit_chain", rows, scale=arguments.scale)
    if not arguments.keep:
        from django.db import connections

        connections.close_all()
        drop_postgres_database(arguments.database)
    return 0 if all(r["result"] == "PASS" for r in rows) else 1


if __name__ == "__main__":  # (and only then: a helper process started afresh imports this file again)
    raise SystemExit(main())
