"""Benchmark: the coupon ledger's work does not depend on the number of coupons.

Receives and issues 100 coupons, then receives 100,000 coupons and issues 10,000 of them, each with the
signatures the regulations need, and prints the time and number of queries of each and their ratio.

    .venv/bin/python bench/coupons_bench.py                 # a SQLite database of its own (temporary)
    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/coupons_bench .venv/bin/python bench/coupons_bench.py

On PostgreSQL the database is created (if missing) and migrated; nothing else is touched.
"""

from __future__ import annotations

import secrets
import sys
import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = secrets.token_urlsafe(16)  # the bench people's password, new every run
sys.path.insert(0, str(ROOT))

from benchlib.database import configure  # noqa: E402 (bench/ is on the path: the script's directory)
from benchlib.table import row, save  # noqa: E402

MAX_RATIO = 2.0  # the work does not grow with the coupons: a thousand times the coupons, at most twice the time


@dataclass
class Figure:
    label: str
    seconds: float
    queries: int


def _seed() -> dict[str, Any]:
    from compliance.actors import acting_as
    from compliance.models import Facility, Game
    from compliance.roles import Role
    from compliance.services import profile_create
    from coupons import services
    from coupons.models import CouponProgram

    stamp = str(time.time_ns())[-8:]
    facility = Facility.objects.create(code=f"bench{stamp}", name="Bench Casino", certificate_holder="Bench LLC")
    people = {}
    for key, role, department in [
        ("finsup", Role.FINANCE_SUPERVISOR, "finance"),
        ("finance", Role.FINANCE_STAFF, "finance"),
        ("mktsup", Role.MARKETING_SUPERVISOR, "marketing"),
        ("marketing", Role.MARKETING_STAFF, "marketing"),
        ("officer", Role.COMPLIANCE_OFFICER, "compliance"),
    ]:
        people[key] = profile_create(
            username=f"{key}{stamp}", full_name=f"Bench {key}", credential_number=f"B{stamp}{key}",
            department_code=department, roles=[role], facilities=[facility], password=PASSWORD,
        )
    for person in people.values():  # a password set by the system is temporary and signs nothing: choose one
        with acting_as(person):
            person.set_password(PASSWORD)
            person.save(update_fields=["password"])
    program = CouponProgram.objects.get(code="match-play")
    vault = services.location_create(facility=facility, name="Vault", department="finance", user=people["officer"],
                                     bcc_approved_on=date(2026, 1, 1), bcc_approval_reference="BCC-1")
    return {"facility": facility, "people": people, "program": program, "vault": vault,
            "games": list(Game.objects.filter(banking=True)[:2])}


def _series(ctx: dict[str, Any], code: str) -> Any:
    from compliance.gaming_day import gaming_day
    from coupons import services

    people, today = ctx["people"], gaming_day(ctx["facility"])
    series = services.series_create(
        facility=ctx["facility"], program=ctx["program"], code=code, name=code, denomination_cents=2500,
        expires_on=today + timedelta(days=365), games=ctx["games"], wager_restrictions="Even money only",
        even_money_only=True, user=people["finsup"], serial_prefix="MP",
    )
    for kind in ("design", "internal_controls"):
        services.approval_record(facility=ctx["facility"], program=ctx["program"], kind=kind,
                                 approved_on=today - timedelta(days=30), reference=f"REF-{code}-{kind}",
                                 series=series, user=people["officer"], password=PASSWORD)
    return series


def _receive_and_issue(ctx: dict[str, Any], series: Any, received: int, issued: int) -> None:
    from compliance.gaming_day import gaming_day
    from coupons import services

    people, password, today = ctx["people"], PASSWORD, gaming_day(ctx["facility"])
    services.receipt_record(
        facility=ctx["facility"], series=series, received_on=today, supplier="Printer", invoice_number="1",
        invoice_quantity=received, invoice_first_serial=1, invoice_last_serial=received, received=[(1, received)],
        location=ctx["vault"], user=people["finsup"], password=password,
        examiners=[("examined_finance", services.CoSigner(people["finance"], password)),
                   ("examined_marketing", services.CoSigner(people["marketing"], password))],
    )
    requisition = services.requisition_prepare(
        facility=ctx["facility"], program=ctx["program"], denomination_cents=2500, quantity=issued, needed_for=today,
        user=people["mktsup"], password=password,
    )
    from compliance.services import signature_sign

    signature_sign(record=requisition, slot="authorized", user=people["finsup"], password=password)
    services.issuance_record(requisition=requisition, series=series, issued=[(1, issued)], user=people["finsup"],
                             password=password, gaming_date=today,
                             receiver=services.CoSigner(people["mktsup"], password))


def _measure(ctx: dict[str, Any], label: str, received: int, issued: int, repeats: int = 3) -> Figure:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    best, queries = float("inf"), 0
    for n in range(repeats):
        series = _series(ctx, f"{label}-{received}-{n}-{time.time_ns() % 10**6}")
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            _receive_and_issue(ctx, series, received, issued)
            elapsed = time.perf_counter() - started
        best, queries = min(best, elapsed), len(captured)
    return Figure(f"receive {received:,} + issue {issued:,}", best, queries)


def main() -> int:
    url = configure("coupons")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    from compliance.actors import acting_as, system_user

    with acting_as(system_user()):
        ctx = _seed()
        _measure(ctx, "warmup", 100, 100, repeats=1)
        small = _measure(ctx, "small", 100, 100)
        large = _measure(ctx, "large", 100_000, 10_000)
    print(f"Database: {url.split('@')[-1]}")
    for figure in (small, large):
        print(f"  {figure.label:<30} {figure.seconds * 1000:8.1f} ms  {figure.queries:4d} queries")
    print(f"  ratio (large / small): time {large.seconds / small.seconds:.2f}×, "
          f"queries {large.queries / small.queries:.2f}×  (1,000× the coupons)")
    ratio = large.seconds / small.seconds
    met = large.queries == small.queries and ratio <= MAX_RATIO
    save("coupons", [row("receiving 100,000 coupons and issuing 10,000", f"same queries, ≤ {MAX_RATIO:.0f}× the time",
                         f"{large.seconds * 1000:.0f} ms, {large.queries} queries",
                         f"100 and 100: {small.seconds * 1000:.0f} ms, {small.queries} queries", ratio, met)])
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
