"""Benchmark: p50 / p95 of every main page on the generated casino (issue 27: every main page p95 under 300 ms).

On ``--database`` (default ``bench_casino``): when the database is missing it is created, migrated and filled by
``manage.py generate_casino --days N`` (``--days``, default 365; 200 tables, 5,000,000 redemptions a quarter). Each
page is requested through Django's test client (the whole middleware stack, the session, the template) as the
person whose page it is, signed in with the second factor, once to warm up and then ``--repeats`` times; p50 and
p95 of those, the queries of one request, and the status (anything but 200 is a MISS). Baseline, in the same run:
the password-change page through the same client — the stack, the menu and the base template, reading nothing of the
year — so the ratio is how many times that each page costs.

    .venv/bin/python bench/pages_bench.py --database casino14 --repeats 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchlib.table import print_table, row, save  # noqa: E402 (bench/ is on the path)

SERVER = os.environ.get("BENCH_SERVER", "postgres://postgres@127.0.0.1:5432")
TARGET_MS = 300.0
# The baseline: a page of the same stack (session, second factor, menu, base template) that reads nothing of the year.
BASELINE = "/accounts/password/"


def _database(name: str, days: int) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as connection:
        if connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            return
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    environment = dict(os.environ, DATABASE_URL=f"{SERVER}/{name}")
    print(f"  generating {days} gaming days into {name} (manage.py generate_casino)", flush=True)
    for command in (["migrate", "-v0"], ["generate_casino", "--days", str(days)]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=environment, check=True)


def _setup_django(name: str) -> None:
    os.environ["DATABASE_URL"] = f"{SERVER}/{name}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")
    os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"
    os.environ["DEBUG"] = "0"
    os.environ.pop("REDIS_URL", None)
    import logging

    import django

    django.setup()
    logging.getLogger("axes").setLevel(logging.WARNING)  # one line per sign-in: not the bench's output
    import compliance.wsgi  # noqa: F401 - as a web worker starts: the URLconf imported, the startup heap frozen


def _client(user: Any) -> Any:
    from django.test import Client
    from django_otp import DEVICE_ID_SESSION_KEY
    from django_otp.plugins.otp_totp.models import TOTPDevice

    client = Client()
    client.force_login(user)
    device = TOTPDevice.objects.filter(user=user).first() or TOTPDevice.objects.create(
        user=user, name="Bench authenticator", confirmed=True)
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = device.persistent_id
    session.save()
    return client


def _pages() -> list[tuple[str, str, str]]:
    """(what, username, path): every main page, as the person whose page it is."""
    from compliance.models import Facility, GamingTable
    from compliance.reports.models import ReportRun
    from compliance.submissions.models import RulesSubmission
    from coupons.models import FinanceDayProcessing

    facility = Facility.objects.get(code="demo")
    last = FinanceDayProcessing.objects.filter(facility=facility).order_by("-gaming_date").first()
    day = last.gaming_date if last else None
    craps = GamingTable.objects.filter(facility=facility, game__code="craps").order_by("number").first()
    dealer_id = str(facility.staff.filter(user__username="dealer").values_list("user_id", flat=True).first() or "")
    pages = [(f"dashboard: {who}", who, "/") for who in ("finance", "finsup", "marketing", "mktsup", "dealer", "floor",
                                                         "shiftmgr", "surveillance", "compliance", "inspector")]
    pages += [
        ("coupon ledger", "finsup", "/coupons/ledger/"),
        ("coupons: today", "marketing", "/coupons/today/"),
        ("reconciliation form, today", "mktsup", "/coupons/reconciliation/"),
        ("finance processing", "finance", "/coupons/finance/process/"),
        ("redemptions today", "finsup", "/coupons/redemptions/"),
        ("table board", "floor", "/equipment/"),
        ("table chooser", "dealer", "/coupons/redeem/"),
        ("audit trail", "compliance", "/audit/"),
        ("audit trail: one user", "compliance", f"/audit/?actor={dealer_id}"),
        ("audit trail: redemptions", "compliance", "/audit/?model=coupons.Redemption"),
        ("audit trail: signatures", "compliance", "/audit/?action=signed"),
        ("signatures", "compliance", "/signatures/"),
        ("report list", "compliance", "/reports/runs/"),
        ("reports", "compliance", "/reports/"),
        ("Rules Submissions", "compliance", "/submissions/"),
        ("staffing", "shiftmgr", "/staffing/"),
        ("chain status", "compliance", "/audit/chain/"),
    ]
    if day is not None:
        pages += [(f"reconciliation form, {day}", "mktsup", f"/coupons/reconciliation/{day.isoformat()}/"),
                  ("finance processing, a day", "finance", f"/coupons/finance/process/{last.pk}/"),
                  ("audit trail: one day", "compliance",
                   f"/audit/?date_from={day - timedelta(days=1)}&date_to={day - timedelta(days=1)}")]
    if craps is not None:
        pages.append(("table screen", "dealer", f"/coupons/redeem/tables/{craps.pk}/"))
    run = ReportRun.objects.order_by("-pk").first()
    if run is not None:
        pages.append(("a report run", "compliance", f"/reports/runs/{run.pk}/"))
    submission = RulesSubmission.objects.order_by("-pk").first()
    if submission is not None:
        pages.append(("a Rules Submission", "compliance", f"/submissions/{submission.pk}/"))
    return pages


def _timed(client: Any, path: str, repeats: int) -> tuple[float, float, int]:
    client.get(path)  # warm-up
    times, status = [], 200
    for _ in range(repeats):
        started = time.perf_counter()
        response = client.get(path)
        times.append((time.perf_counter() - started) * 1000)
        status = response.status_code if response.status_code != 200 else status
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    return statistics.median(times), p95, status


def _queries(client: Any, path: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        client.get(path)
    return len(captured)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="bench_casino")
    parser.add_argument("--days", type=int, default=365, help="gaming days to generate if the database is missing")
    parser.add_argument("--repeats", type=int, default=20)
    arguments = parser.parse_args()
    _database(arguments.database, arguments.days)
    _setup_django(arguments.database)
    from django.contrib.auth import get_user_model

    from compliance.models import AuditEvent
    from coupons.models import Redemption

    events, redemptions = AuditEvent.objects.count(), Redemption.objects.count()
    print(f"pages bench on {arguments.database}: {events:,} audit events, {redemptions:,} redemptions", flush=True)
    users = {u.username: u for u in get_user_model().objects.filter(is_active=True)}
    clients: dict[str, Any] = {}
    base50, base95, _ = _timed(_client(users["compliance"]), BASELINE, arguments.repeats)
    rows = []
    for what, who, path in _pages():
        client = clients.get(who) or clients.setdefault(who, _client(users[who]))
        p50, p95, status = _timed(client, path, arguments.repeats)
        queries = _queries(client, path)
        passed = status == 200 and p95 < TARGET_MS
        rows.append(row(f"page {what}: p50 / p95", f"p95 < {TARGET_MS:.0f} ms",
                        f"{p50:.0f} / {p95:.0f} ms, {queries} queries" + ("" if status == 200 else f", HTTP {status}"),
                        f"{BASELINE} {base50:.0f} / {base95:.0f} ms", p95 / base95 if base95 else None, passed))
        print(f"  {what:<40} {p50:7.1f} / {p95:7.1f} ms  {queries:3d} queries  {status}", flush=True)
    print_table(rows)
    save("pages", rows, database=arguments.database, audit_events=events, redemptions=redemptions)
    return 0 if all(r["result"] == "PASS" for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
