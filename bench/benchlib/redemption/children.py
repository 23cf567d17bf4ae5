"""The redemption benchmark's Django children: the seed (a facility whose coupons are distributed in lanes)
and a scanner token, and the in-process profile of single redemptions (queries, CPU, where the time goes)."""

from __future__ import annotations

import collections
import json
import secrets
import sys
import time
from typing import Any

from benchlib.redemption.database import LANES, PER_LANE, PROFILE_LANE, ROOT, URL_PATH
from benchlib.redemption.load import scan_body

__all__ = ["child_profile", "child_scanner", "django_setup"]


def django_setup() -> None:
    sys.path.insert(0, str(ROOT))
    import django

    from benchlib.redemption.binding import apply

    apply()
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

    def _table_ready(facility: Any, table: Any, people: dict[str, Any], password: str, today: Any) -> None:
        """An open table meets every requirement (compliance.readiness): an approved Rules Submission in force
        (§ 521.8(b)) and its limits (§ 521.7(a)); Craps needs no equipment and no staffing rule."""
        from compliance.submissions import limits as wager_limits
        from compliance.submissions import services as submissions

        asia = {"bonus_wager": "yes", "paytable": "B", "adjacent_areas": "no", "ace_low_straight_flush": "no",
                "ace_low_straight": "no", "payout_limit": "",
                "dealer_hand_setting": "Highest possible high hand, then medium hand, as the house way card shows."}
        sub = submissions.submission_draft(facility=facility, title="Bench rules", user=people["officer"])
        submissions.submission_game_set(submission=sub, code="asia-poker", values=asia, user=people["officer"])
        sub.refresh_from_db()
        submissions.submission_submit(submission=sub, user=people["officer"], password=password)
        submissions.board_decision_record(submission=sub, decision="approved", decided_on=today, effective_on=today,
                                          reference="BGO-BENCH", user=people["officer"])
        wager_limits.limit_change_request(table=table, minimum="25", maximum="5000", patrons_playing=False,
                                          user=people["shift"])
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
        table = GamingTable.objects.create(facility=facility, number="CR-1", game=craps, pit="Pit 1", is_open=True)
        today = gaming_day(facility)
        _table_ready(facility, table, people, password, today)
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
        response = client.post(URL_PATH, data=json.dumps(scan_body(serial)), content_type="application/json",
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
    stats = pstats.Stats(profiler)
    answer["profile_top"] = _profile_summary(stats, requests)
    # Python function calls a redemption: a count, not a time, so the same on a busy machine as on an idle one.
    answer["calls_per_request"] = stats.total_calls / requests  # type: ignore[attr-defined]
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


