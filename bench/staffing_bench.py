"""Staffing benchmark (issue 11): every § 577.9 rule evaluated over a 200-table floor; target < 100 ms, and a
number of queries that does not grow with the floor.

The floor: 200 open tables (60 Three Dice Football, 60 Blackjack, 30 Craps, 20 Baccarat, 30 Roulette) with full
rosters — three dealers, one of them the stickperson, at each Three Dice Football table; four at Craps (two
dealers, stickperson, boxperson), three at Baccarat, one at Blackjack and Roulette — a floorperson over each two
tables (Three Dice Football beside Three Dice Football or Blackjack, as § 577.9(c) allows), 600 cameras covering
the table ends (two stationary and one pan-tilt-zoom per Three Dice Football table), and some history to read
past: the previous shift's roster (ended), a closed outage per camera. Two cameras are out of service now and a
dealer is on a break, so the rules find something.

What is timed is what every change on the floor runs (``violations_sync``, the opening check):
``selectors.floor_at(facility, at)`` + ``selectors.rules_in_force()`` + ``rules.evaluate(...)``, the median of
several runs; its queries are counted at 20 tables and at 200. The baseline, in the same run on the same
database: a bare SQL fetch of the same rows (open tables, open assignments, active coverage) through a cursor.

Rows are seeded through the models in bulk (``regulated_bulk_create``: history and audit rows included), not
through the services, which would evaluate the floor at every placement; the rules are the seeded reference
rows of ``compliance/staffing/reference.py``.

    .venv/bin/python bench/staffing_bench.py                 # a SQLite database of its own (temporary)
    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/staffing_bench .venv/bin/python bench/staffing_bench.py

Prints PASS or MISS and exits 0: it reports, it is not a test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchlib.database import configure  # noqa: E402 (bench/ is on the path: the script's directory)
from benchlib.table import row, save  # noqa: E402

TARGET_MS = 100.0
BLOCK = 20  # tables per block; the floor is 10 blocks, the small floor one
# One block of 20 tables: 6 Three Dice Football, 6 Blackjack, 3 Craps, 2 Baccarat, 3 Roulette, in the order the
# floorpersons take them two by two: TDF+TDF twice, TDF+Blackjack twice, then the rest in pairs.
BLOCK_GAMES = [
    "three-dice-football", "three-dice-football", "three-dice-football", "three-dice-football",
    "three-dice-football", "blackjack", "three-dice-football", "blackjack",
    "blackjack", "blackjack", "blackjack", "blackjack",
    "craps", "craps", "craps", "baccarat",
    "baccarat", "roulette", "roulette", "roulette",
]
CREW = {  # positions at a table of each game
    "three-dice-football": ["dealer", "dealer", "stickperson"],
    "craps": ["dealer", "dealer", "stickperson", "boxperson"],
    "baccarat": ["dealer", "dealer", "dealer"],
    "blackjack": ["dealer"],
    "roulette": ["dealer"],
}
CAMERAS_PER_BLOCK = 60  # 600 on the floor


class Seeder:
    """Seeds blocks of 20 tables with their crews, floorpersons, cameras and history, in bulk."""

    def __init__(self, facility: Any, now: Any) -> None:
        from compliance.models import Department, Game
        from compliance.roles import Role
        from compliance.staffing.models import Roster, Shift
        from tests.factories import make_person

        self.facility, self.now = facility, now
        self.games = {g.code: g for g in Game.objects.filter(code__in=CREW)}
        self.department = Department.objects.get(code="table_games")
        manager = make_person(Role.SHIFT_MANAGER, facility)
        swing = Shift.objects.create(facility=facility, name="Swing", starts_at=(now - timedelta(hours=2)).time(),
                                     hours=8)
        day = Shift.objects.create(facility=facility, name="Day", starts_at=(now - timedelta(hours=10)).time(),
                                   hours=8)
        self.shift_start = now - timedelta(hours=2)
        self.previous = Roster.objects.create(facility=facility, gaming_date=now.date(), shift=day, created_by=manager)
        self.roster = Roster.objects.create(facility=facility, gaming_date=now.date(), shift=swing,
                                            created_by=manager, copied_from=self.previous)
        self.manager = manager
        self.people = 0

    def _people(self, count: int) -> list[Any]:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.hashers import make_password

        from compliance.models import Profile, regulated_bulk_create

        user_model = get_user_model()
        first = self.people
        self.people += count
        users = user_model.objects.bulk_create(
            [user_model(username=f"bench-{n:05d}", password=make_password(None)) for n in range(first, first + count)]
        )
        regulated_bulk_create(Profile, [
            Profile(user=u, full_name=f"Bench Person {n}", credential_number=f"BENCH-{n:06d}",
                    department=self.department)
            for n, u in enumerate(users, start=first)
        ])
        return users

    def block(self, index: int) -> int:
        """Block ``index``: 20 open tables, their people, cameras and history. Returns the assignments placed."""
        from django.db import transaction

        from compliance.models import GamingTable, regulated_bulk_create
        from compliance.staffing.models import Assignment, Camera, CameraCoverage, CameraOutage

        with transaction.atomic():
            tables = regulated_bulk_create(GamingTable, [
                GamingTable(facility=self.facility, number=f"T-{index * BLOCK + k + 1:03d}", game=self.games[code],
                            pit=f"Pit {index + 1}", is_open=True)
                for k, code in enumerate(BLOCK_GAMES)
            ])
            crews = [(t, p) for t, code in zip(tables, BLOCK_GAMES, strict=True) for p in CREW[code]]
            dealers = self._people(len(crews))
            floorpersons = self._people(len(tables) // 2)
            placed = [Assignment(roster=self.roster, person=person, position=position, table=table,
                                 starts_at=self.shift_start)
                      for (table, position), person in zip(crews, dealers, strict=True)]
            placed += [Assignment(roster=self.roster, person=floorpersons[k // 2], position="floorperson", table=t,
                                  starts_at=self.shift_start) for k, t in enumerate(tables)]
            # The previous shift's places, all ended at the hand-over: history the read must skip.
            history = [Assignment(roster=self.previous, person=a.person, position=a.position, table=a.table,
                                  starts_at=self.shift_start - timedelta(hours=8), ends_at=self.shift_start)
                       for a in placed]
            if index == 0:  # a dealer of the first Three Dice Football table on a break since 10 minutes ago
                placed[0].ends_at = self.now - timedelta(minutes=10)
            regulated_bulk_create(Assignment, placed + history)

            cameras: list[Any] = []
            coverage: list[tuple[int, Any, str]] = []  # (camera index, table, end)
            for table, code in zip(tables, BLOCK_GAMES, strict=True):
                ends = ["a", "b", "a"] if code == "three-dice-football" else ["a", "b", "b"]
                for k, end in enumerate(ends):
                    coverage.append((len(cameras), table, end))
                    cameras.append(Camera(facility=self.facility, code=f"C-{table.number}-{k}",
                                          stationary=not (code == "three-dice-football" and k == 2),
                                          location=table.pit))
            spare = CAMERAS_PER_BLOCK - len(cameras)  # none with 20 tables of 3 each; kept if the mix changes
            for k in range(spare):
                cameras.append(Camera(facility=self.facility, code=f"C-{index}-spare-{k}", location="Cage"))
            cameras = regulated_bulk_create(Camera, cameras)
            regulated_bulk_create(CameraCoverage, [CameraCoverage(camera=cameras[c], table=t, end=end)
                                                   for c, t, end in coverage])
            outages = [CameraOutage(camera=c, started_at=self.now - timedelta(days=3), reason="Cleaning",
                                    ended_at=self.now - timedelta(days=3) + timedelta(minutes=20),
                                    recorded_by=self.manager, ended_by=self.manager) for c in cameras]
            if index == 0:  # the end-A cameras of two Three Dice Football tables out of service now
                outages += [CameraOutage(camera=cameras[c], started_at=self.now - timedelta(minutes=5),
                                         reason="Lens fogged", recorded_by=self.manager) for c in (3, 6)]
            regulated_bulk_create(CameraOutage, outages)
        return len(placed)


def _floor(facility: Any, at: Any) -> dict[int, list[Any]]:
    from compliance.staffing.rules import evaluate
    from compliance.staffing.selectors import floor_at, rules_in_force

    return evaluate(floor_at(facility, at), rules_in_force())


def _bare_sql(facility: Any, at: Any) -> int:
    """The same rows fetched with plain SQL: open tables, their open assignments, their active coverage."""
    from django.db import connection

    from compliance.models import GamingTable
    from compliance.staffing.models import Assignment, CameraCoverage, Roster

    tables, assignments = GamingTable._meta.db_table, Assignment._meta.db_table
    rosters, coverage = Roster._meta.db_table, CameraCoverage._meta.db_table
    when = connection.ops.adapt_datetimefield_value(at)
    rows = 0
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, number, game_id FROM {tables} WHERE facility_id = %s AND is_open",  # noqa: S608
                       [facility.pk])
        rows += len(cursor.fetchall())
        cursor.execute(
            f"SELECT a.table_id, a.position, a.person_id FROM {assignments} a JOIN {rosters} r ON r.id = a.roster_id "  # noqa: S608
            f"JOIN {tables} t ON t.id = a.table_id WHERE r.facility_id = %s AND t.is_open AND a.starts_at <= %s "
            "AND (a.ends_at IS NULL OR a.ends_at > %s)", [facility.pk, when, when])
        rows += len(cursor.fetchall())
        cursor.execute(
            f"SELECT c.camera_id, c.table_id, c.end FROM {coverage} c JOIN {tables} t ON t.id = c.table_id "  # noqa: S608
            "WHERE t.facility_id = %s AND t.is_open AND c.active", [facility.pk])
        rows += len(cursor.fetchall())
    return rows


def _median_ms(function: Any, *args: Any, runs: int) -> float:
    function(*args)  # warm: the first run pays for imports and the statement cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function(*args)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _queries(function: Any, *args: Any) -> tuple[int, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        result = function(*args)
    return len(captured.captured_queries), result


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--blocks", type=int, default=10, help="blocks of 20 tables (default 10: 200 tables)")
    parser.add_argument("--runs", type=int, default=15)
    args, _unknown = parser.parse_known_args()
    url = configure("staffing")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from compliance.actors import acting_as, system_user
    from compliance.models import Facility

    began = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    from compliance.staffing.models import Assignment

    if Assignment.objects.exists():
        raise SystemExit("The benchmark needs an empty database: BENCH_DATABASE_URL points at one with rosters.")
    now = timezone.now().replace(microsecond=0)
    with acting_as(system_user()):
        facility = Facility.objects.create(code="bench", name="Benchmark Casino", certificate_holder="Bench LLC")
        seeder = Seeder(facility, now)
        placed = seeder.block(0)
        small_queries, _ = _queries(_floor, facility, now)
        small_ms = _median_ms(_floor, facility, now, runs=args.runs)
        started = time.perf_counter()
        for index in range(1, args.blocks):
            placed += seeder.block(index)
        seed_seconds = time.perf_counter() - started
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # fresh planner statistics, PostgreSQL and SQLite alike
        open_places = Assignment.objects.filter(roster=seeder.roster, ends_at__isnull=True).count()
        large_queries, found = _queries(_floor, facility, now)
        large_ms = _median_ms(_floor, facility, now, runs=args.runs)
        bare_rows = _bare_sql(facility, now)
        bare_ms = _median_ms(_bare_sql, facility, now, runs=args.runs)

    tables = args.blocks * BLOCK
    violations = sorted({(v.rule.split(":")[0], v.clause) for vs in found.values() for v in vs})
    broken = sum(bool(vs) for vs in found.values())
    print(f"database: {url.split('@')[-1]}")
    print(f"floor: {tables} open tables ({tables * 6 // 20} Three Dice Football), {open_places:,} people at or over them "
          f"now ({placed:,} placed this shift, {seeder.people:,} people), {args.blocks * CAMERAS_PER_BLOCK} cameras; seeded in {seed_seconds:.1f} s")
    print(f"floor_at + rules_in_force + evaluate, {BLOCK} tables: median {small_ms:.1f} ms, {small_queries} queries")
    print(f"floor_at + rules_in_force + evaluate, {tables} tables: median {large_ms:.1f} ms, {large_queries} queries; "
          f"{broken} tables breaking a rule ({', '.join(f'{r} § {c}' for r, c in violations)})")
    print(f"baseline: bare SQL fetch of the same {bare_rows:,} rows (tables, open assignments, coverage), "
          f"{tables} tables: median {bare_ms:.1f} ms, 3 queries")
    ratio = large_ms / bare_ms if bare_ms else float("inf")
    print(f"ratio (rules over the floor / bare SQL fetch): {ratio:.1f}x")
    constant = small_queries == large_queries
    met = large_ms < TARGET_MS and constant
    print(f"{'PASS' if met else 'MISS'}: {large_ms:.1f} ms for {tables} tables (target < {TARGET_MS:.0f} ms), "
          f"queries {small_queries} at {BLOCK} tables and {large_queries} at {tables} "
          f"({'constant' if constant else 'NOT constant'})")
    print(f"total run {time.perf_counter() - began:.1f} s")
    save("staffing", [row(f"staffing evaluation of {tables} tables", f"< {TARGET_MS:.0f} ms, queries constant",
                          f"{large_ms:.1f} ms, {large_queries} queries",
                          f"bare SQL {bare_ms:.1f} ms; {BLOCK} tables {small_ms:.1f} ms, {small_queries} queries",
                          ratio, met)])
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
