"""The quarterly report bench's setup (bench/reports_bench.py): the database, the facility and its people,
five million redemptions sealed in one SQL statement, and the audit chain brought up to date."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import secrets
import time
from datetime import date
from typing import Any

TARGET_RATIO = 1.5
Q3 = (date(2026, 7, 1), date(2026, 9, 30))
KIND = "quarterly-coupons"
FACILITY, OTHER = "bench-q", "bench-other"
DENOMINATIONS = (500, 1000, 2500, 5000, 10000)
TABLES = (("CR-1", "craps"), ("CR-2", "craps"), ("CR-3", "craps"), ("CR-4", "craps"),
          ("BJ-1", "blackjack"), ("BJ-2", "blackjack"), ("RO-1", "roulette"), ("RO-2", "roulette"))
OTHER_TABLES = (("CR-1", "craps"), ("BJ-1", "blackjack"))
SERVER = "postgres://postgres@127.0.0.1:5432"
PASSWORD = secrets.token_urlsafe(16)  # the bench people's password, new every run
REDEMPTION_TABLE = re.compile(r"\bcoupons_redemption\b")

# --------------------------------------------------------------------------------------------- the database


def _server() -> str:
    url = os.environ.get("BENCH_DATABASE_URL", "")
    if url and not url.startswith("postgres"):
        raise SystemExit("reports_bench needs PostgreSQL: BENCH_DATABASE_URL must be a postgres:// URL.")
    return url.rpartition("/")[0] if url else SERVER


def _admin(sql_text: str, *params: Any) -> Any:
    import psycopg

    with psycopg.connect(f"{_server()}/postgres", autocommit=True) as connection:
        return connection.execute(sql_text, params or None).fetchone()


def _drop(name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(f"{_server()}/postgres", autocommit=True) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _rows_present(name: str) -> int | None:
    """The facility's Q3 redemptions in a kept database whose redemption chain covers every row (its setup
    finished); None when there is no such database, facility or chain."""
    import psycopg

    if not _admin("SELECT 1 FROM pg_database WHERE datname = %s", name):
        return None
    try:
        with psycopg.connect(f"{_server()}/{name}", autocommit=True) as connection:
            row = connection.execute(
                "SELECT count(*), (SELECT count(*) FROM coupons_redemption) <= (SELECT coalesce(sum(row_count), 0) "
                "FROM compliance_chainlink WHERE model = 'coupons.Redemption') FROM coupons_redemption r "
                "JOIN compliance_facility f ON f.id = r.facility_id WHERE f.code = %s AND r.gaming_date "
                "BETWEEN %s AND %s", [FACILITY, *Q3]).fetchone()
            return int(row[0]) if row and row[0] and row[1] else None
    except psycopg.Error:
        return None


# ------------------------------------------------------------------------------------------------ the setup


def _people(facilities: list[Any]) -> dict[str, Any]:
    from compliance.actors import acting_as
    from compliance.roles import Role
    from compliance.services import profile_create

    people = {
        key: profile_create(username=f"bench-{key}", full_name=f"Bench {key.title()}", credential_number=f"BENCH-{key}",
                            department_code=department, roles=[role], facilities=facilities, password=PASSWORD)
        for key, role, department in [("officer", Role.COMPLIANCE_OFFICER, "compliance"),
                                      ("finsup", Role.FINANCE_SUPERVISOR, "finance"),
                                      ("dealer", Role.DEALER, "table_games")]
    }
    for person in people.values():  # a password set by the system is temporary and signs nothing: choose one
        with acting_as(person):
            person.set_password(PASSWORD)
            person.save(update_fields=["password"])
    return people


def _floor(facility: Any, tables: tuple[tuple[str, str], ...], denominations: tuple[int, ...],
           people: dict[str, Any]) -> dict[str, list[int]]:
    """The facility's tables and approved series; {"series", "denominations", "tables", "games"} as id lists."""
    from compliance.models import Game, GamingTable
    from coupons import services
    from coupons.models import CouponProgram

    program = CouponProgram.objects.get(code="match-play")
    games = {g.code: g for g in Game.objects.filter(code__in={code for _, code in tables})}
    made = [GamingTable.objects.create(facility=facility, number=number, game=games[code], pit="Pit 1", is_open=True)
            for number, code in tables]
    series = []
    for cents in denominations:
        one = services.series_create(
            facility=facility, program=program, code=f"mp{cents // 100}", name=f"Match Play ${cents // 100}",
            denomination_cents=cents, expires_on=date(2026, 12, 31), games=list(games.values()),
            wager_restrictions="Even-money wagers only", even_money_only=True, user=people["finsup"],
            serial_prefix=f"MP{cents // 100}",
            serial_digits=9)
        services.approval_record(facility=facility, program=program, kind="design", approved_on=date(2026, 6, 1),
                                 reference=f"BENCH-design-{cents}", series=one, user=people["officer"],
                                 password=PASSWORD)
        series.append(one)
    services.approval_record(facility=facility, program=program, kind="internal_controls",
                             approved_on=date(2026, 6, 1), reference="BENCH-ic", user=people["officer"],
                             password=PASSWORD)
    return {"series": [s.pk for s in series], "denominations": [s.denomination_cents for s in series],
            "tables": [t.pk for t in made], "games": [t.game_id for t in made]}


def _hmac_pads() -> tuple[bytes, bytes]:
    """HMAC-SHA256 as two SHA-256 (RFC 2104), so PostgreSQL's ``sha256()`` computes ``chain_hmac()``'s seal."""
    from django.conf import settings

    key = settings.AUDIT_CHAIN_KEY.encode()
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    return bytes(b ^ 0x36 for b in key), bytes(b ^ 0x5C for b in key)


def _seal_sql(label: str) -> str:
    """The SQL of ``json.dumps(row.sealed_content(), sort_keys=True, separators=(",", ":"))`` for the rows
    of the insert below; checked against the model's fields, so a field added to Redemption stops the bench."""
    from coupons.models import Redemption

    text = {  # the value as Sealed._stored and json.dumps write it
        "channel": "'\"' || channel || '\"'",
        "chips_cents": "coalesce(chips_cents::text, 'null')",
        "denomination_cents": "denomination_cents::text",
        "device_id": "'null'",
        "drop_count_id": "'null'",
        "facility_id": "facility_id::text",
        "game_id": "game_id::text",
        "gaming_date": "'\"' || to_char(gaming_date, 'YYYY-MM-DD') || '\"'",
        "model": f"'\"{label}\"'",
        "position": "'\"' || position || '\"'",
        "redeemed_at": "'\"' || to_char(redeemed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') || '+00:00\"'",
        "redeemed_by_id": "redeemed_by_id::text",
        "serial": "serial::text",
        "series_id": "series_id::text",
        "table_id": "table_id::text",
        "wager": "'\"\"'",
    }
    sealed = {f.attname for f in Redemption._meta.concrete_fields if f.name not in {"id", "seal"}} | {"model"}
    if sealed != set(text):
        raise SystemExit(f"Redemption's sealed fields changed: {sorted(sealed ^ set(text))}; update _seal_sql")
    fields = " || ',' || ".join(f"'\"{key}\":' || {text[key]}" for key in sorted(text))
    from django.conf import settings

    prefix = f"{settings.AUDIT_CHAIN_KEY_ID}:"  # the key's id (compliance.seal_keys)
    return (f"'{prefix}' || encode(sha256(%(opad)s || sha256(%(ipad)s || convert_to('{{' || {fields} || '}}', "
            "'UTF8'))), 'hex')")


@dataclasses.dataclass(frozen=True)
class Segment:
    """Redemptions numbered first..first+count-1 (the number is the serial), spread evenly over days."""

    first: int
    count: int
    facility: int
    day: date
    days: int
    floor: dict[str, list[int]]

    def sql(self) -> str:
        f = self.floor

        def array(values: list[int]) -> str:
            return f"(ARRAY[{','.join(map(str, values))}]::bigint[])"

        # Integers and a date of the bench's own, no input.
        return (
            f"SELECT n, {self.facility}::bigint AS facility_id, "  # noqa: S608
            f"date '{self.day.isoformat()}' + ((n - {self.first}) * {self.days} / {self.count})::int AS gaming_date, "
            f"{array(f['series'])}[1 + n %% {len(f['series'])}] AS series_id, "
            f"{array(f['denominations'])}[1 + n %% {len(f['series'])}]::int AS denomination_cents, "
            f"{array(f['tables'])}[1 + (n / 7) %% {len(f['tables'])}] AS table_id, "
            f"{array(f['games'])}[1 + (n / 7) %% {len(f['tables'])}] AS game_id "
            f"FROM generate_series({self.first}::bigint, {self.first + self.count - 1}::bigint) AS n"
        )


def _insert(segments: list[Segment], dealer: int, time_zone: str) -> int:
    """One INSERT … SELECT generate_series: every redemption, sealed, in gaming-day order."""
    from django.db import connection, transaction

    from coupons.models import Redemption

    ipad, opad = _hmac_pads()
    rows = " UNION ALL ".join(s.sql() for s in segments)
    statement = (  # the segments' SQL and the seal's, both the bench's own
        "INSERT INTO coupons_redemption (serial, facility_id, series_id, denomination_cents, gaming_date, redeemed_at, "  # noqa: S608
        "table_id, game_id, position, chips_cents, wager, channel, redeemed_by_id, seal) "
        "SELECT serial, facility_id, series_id, denomination_cents, gaming_date, redeemed_at, table_id, game_id, "
        f"position, chips_cents, '', channel, redeemed_by_id, {_seal_sql(Redemption._meta.label)} FROM ("
        "  SELECT n AS serial, facility_id, series_id, denomination_cents, gaming_date, table_id, game_id, "
        "    (gaming_date + time '12:00' + make_interval(secs => n %% 43200)) AT TIME ZONE %(zone)s AS redeemed_at, "
        "    CASE WHEN (n / 5) %% 10 = 0 THEN 'count' ELSE 'table' END AS channel, "
        "    CASE WHEN (n / 5) %% 10 = 0 THEN '' ELSE 'pass_line' END AS position, "
        "    CASE WHEN (n / 5) %% 10 = 0 THEN NULL ELSE denomination_cents END AS chips_cents, "
        "    %(dealer)s::bigint AS redeemed_by_id "
        f"  FROM ({rows}) AS g ORDER BY gaming_date, n"
        ") AS r"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL work_mem = '256MB'")
        # The rows are history as it would have arrived, of coupons the bench never received: the check each
        # redemption's insert makes of its coupon and day (coupons migration 0024) is the scan's, not history's.
        cursor.execute("ALTER TABLE coupons_redemption DISABLE TRIGGER coupons_redeem_only_distributed")
        cursor.execute(statement, {"ipad": ipad, "opad": opad, "zone": time_zone, "dealer": dealer})
        inserted = int(cursor.rowcount)
        # The deferred foreign-key checks of the rows just written run now: a table with pending trigger events
        # cannot be altered (PostgreSQL refuses the ALTER below).
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE coupons_redemption ENABLE TRIGGER coupons_redeem_only_distributed")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE coupons_redemption")
    return inserted


def _link_direct() -> int:
    """The redemption chains' links, by the linker itself (one pass over the rows, in id order)."""
    from compliance.chain import chain_link
    from compliance.models import ChainLink
    from coupons.models import Redemption

    if ChainLink.objects.filter(model=Redemption._meta.label).exists():
        raise SystemExit("The redemption chains already have links: the bench needs a fresh database.")
    return chain_link(Redemption)


def _settle(one_more: Segment, dealer: int, time_zone: str) -> int:
    """What the running system does next: links under a minute old do not raise the chain's floor (a
    transaction begun before them could still add rows below), so after linking a backlog every chain_link
    rereads all rows above the old floor until the beat links a new row a minute later. Wait that minute,
    redeem one more coupon (another facility, after the quarter), link it; the floor it leaves."""
    from django.utils import timezone

    from compliance.chain import chain_link
    from compliance.chain.link import MARGIN
    from compliance.models import ChainLink
    from coupons.models import Redemption

    newest = ChainLink.objects.filter(model=Redemption._meta.label).order_by("-pk").first()
    if newest is not None:
        time.sleep(max(0.0, (newest.linked_at + MARGIN - timezone.now()).total_seconds() + 1))
    _insert([one_more], dealer, time_zone)
    chain_link(Redemption)
    return ChainLink.objects.filter(model=Redemption._meta.label).order_by("-pk").values_list(
        "floor", flat=True).first() or 0


def _seals_sampled(samples: int = 2000) -> tuple[int, int]:
    """Redemptions spread over the table checked with ``seal_intact()``: (checked, intact)."""
    from django.db.models import Max, Min

    from coupons.models import Redemption

    bounds = Redemption._base_manager.aggregate(low=Min("pk"), high=Max("pk"))
    low, high = bounds["low"], bounds["high"]
    step = max(1, (high - low) // samples)
    rows = list(Redemption._base_manager.filter(pk__in=range(low, high + 1, step)))
    return len(rows), sum(row.seal_intact() for row in rows)


@dataclasses.dataclass
class Setup:
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)
    notes: list[str] = dataclasses.field(default_factory=list)

    def step(self, name: str, started: float) -> None:
        self.seconds[name] = time.perf_counter() - started
        print(f"  {name}: {self.seconds[name]:.1f} s", flush=True)


def _setup(rows: int, link: str) -> Setup:
    from compliance.actors import acting_as, system_user
    from compliance.chain import chain_link_all
    from compliance.models import Facility

    setup = Setup()
    started = time.perf_counter()
    with acting_as(system_user()):
        facility = Facility.objects.create(code=FACILITY, name="Bench Casino", certificate_holder="Bench LLC")
        other = Facility.objects.create(code=OTHER, name="Other Casino", certificate_holder="Other LLC")
        people = _people([facility, other])
        floor = _floor(facility, TABLES, DENOMINATIONS, people)
        other_floor = _floor(other, OTHER_TABLES, (2500,), people)
    setup.step("people, tables, series and approvals (services)", started)

    edge, elsewhere = max(1, rows // 20), max(1, rows // 10)
    segments = [
        Segment(1, rows, facility.pk, Q3[0], 92, floor),
        Segment(rows + 1, edge, facility.pk, date(2026, 6, 16), 15, floor),
        Segment(rows + edge + 1, edge, facility.pk, date(2026, 10, 1), 15, floor),
        Segment(rows + 2 * edge + 1, elsewhere, other.pk, Q3[0], 92, other_floor),
    ]
    started = time.perf_counter()
    inserted = _insert(segments, people["dealer"].pk, facility.time_zone)
    setup.step(f"INSERT … SELECT generate_series of {inserted:,} sealed redemptions + VACUUM ANALYZE", started)

    started = time.perf_counter()
    if link == "direct":
        links = _link_direct()
        setup.step(f"redemption chain: {links} links written directly (chain_link's hash, 50,000 rows a link)",
                   started)
    else:
        links = chain_link_all()
        setup.step(f"chain_link_all(): {links} links (the redemptions and the setup's rows)", started)
    # Either way the links are under a minute old and have not raised the chain's floor yet: without the beat's next
    # link, every chain_link of the job (the report's anchor links what waits first) rereads all 6,000,000 ids.
    started = time.perf_counter()
    one_more = Segment(rows + 2 * edge + elsewhere + 1, 1, other.pk, date(2026, 10, 20), 1, other_floor)
    floor_now = _settle(one_more, people["dealer"].pk, facility.time_zone)
    setup.step(f"the beat a minute later: one more redemption linked, the chain's floor now #{floor_now:,}", started)
    started = time.perf_counter()
    others = chain_link_all()
    setup.step(f"chain_link_all() for the setup's own rows: {others} links", started)
    return setup


def _verify(full: bool) -> None:
    from compliance.chain import chain_verify

    started = time.perf_counter()
    checked, intact = _seals_sampled()
    print(f"  seals: {intact:,} of {checked:,} sampled redemptions intact (seal_intact) "
          f"({time.perf_counter() - started:.1f} s)", flush=True)
    if intact != checked:
        raise SystemExit("FAIL: the SQL-computed seals do not match Sealed.compute_seal")
    if full:
        started = time.perf_counter()
        report = chain_verify()
        print(f"  chain_verify(): {report.lines()[-1]} ({time.perf_counter() - started:.1f} s)", flush=True)
        if not report.intact or report.pending:
            raise SystemExit("FAIL: chain_verify does not accept the chains:\n" + "\n".join(report.lines()[:20]))


# ------------------------------------------------------------------------------------------- the measuring

