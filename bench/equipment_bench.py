"""Equipment sweep benchmark: 1,000 open tables with a year of dice and deck logs; target < 1 s.

Standalone: uses its own SQLite file (``var/bench/equipment.sqlite3``, rebuilt each run) unless
``DATABASE_URL`` (an empty database) is given; migrates, seeds with ``regulated_bulk_create`` (history and audit rows
included), then times ``equipment.services.equipment_sweep`` and counts its queries, first over the
10 tables of a baseline seeded in the same run, then over all 1,000, and prints the ratio. It also
counts the queries of the live table board for 10 and 1,000 tables (must be equal).

    .venv/bin/python bench/equipment_bench.py [--tables 1000] [--days 365]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BASELINE_TABLES = 10
# Games of the tables, in turn: the four dice games, and one table in ten Asia Poker (dice and decks).
_DICE_GAMES = ["three-dice-football", "high-roll-dice", "props-and-hops", "sic-bo"]
GAME_CYCLE = [*_DICE_GAMES, *_DICE_GAMES, "sic-bo", "asia-poker"]


def _configure() -> None:
    if not os.environ.get("DATABASE_URL"):
        db = ROOT / "var" / "bench" / "equipment.sqlite3"
        db.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")
    os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()


def _seed_tables(facility: Any, first: int, count: int, days: int, now: Any, people: dict[str, Any]) -> int:
    """Tables first..first+count-1, open, each with `days` of daily dice changes (and 8-hourly decks)."""
    from django.db import transaction

    from compliance.models import Game, GamingTable, regulated_bulk_create
    from equipment.models import Container, DeckSet, DiceSet, EquipmentRequirement

    games = {g.code: g for g in Game.objects.filter(code__in=set(GAME_CYCLE))}
    requirements = {r.game_id: r for r in EquipmentRequirement.objects.all()}
    tables = regulated_bulk_create(
        GamingTable,
        [
            GamingTable(
                facility=facility,
                number=f"T-{n:04d}",
                game=games[GAME_CYCLE[n % len(GAME_CYCLE)]],
                pit=f"Pit {n // 50 + 1}",
                is_open=True,
            )
            for n in range(first, first + count)
        ],
    )
    dice: list[DiceSet] = []
    decks: list[DeckSet] = []
    day = timedelta(hours=24)
    for index, table in enumerate(tables, start=first):
        requirement = requirements[table.game_id]
        # Where the current set is in its 24 hours: 2 % overdue, 3 % due within 30 minutes, the rest fine.
        bucket = index % 100
        age = (
            timedelta(hours=24, minutes=20)
            if bucket < 2
            else timedelta(hours=23, minutes=45)
            if bucket < 5
            else timedelta(hours=index % 20)
        )
        current = now - age
        start = current - day * (days - 1)
        for k in range(days):
            placed = start + day * k
            dice.append(
                DiceSet(
                    facility=facility,
                    table=table,
                    placed_at=placed,
                    due_at=placed + day,
                    floorperson=people["floor"],
                    dealer=people["dealer"],
                    identifiers=f"LOT-{index}-{k}",
                    colours=requirement.dice_colours,
                    dice_count=requirement.dice_count,
                    container=Container.DICE_CUP if requirement.container == "dice_cup" else Container.SHAKER,
                    removed_at=None if k == days - 1 else placed + day,
                )
            )
        if requirement.uses_decks:
            shift = timedelta(hours=8)
            deck_current = now - timedelta(hours=index % 8)
            changes = days * 3
            for k in range(changes):
                placed = deck_current - shift * (changes - 1 - k)
                decks.append(
                    DeckSet(
                        facility=facility,
                        table=table,
                        placed_at=placed,
                        due_at=placed + shift,
                        floorperson=people["floor"],
                        dealer=people["dealer"],
                        deck_count=1,
                        back_colours="red",
                        dealt_from=DeckSet.DealtFrom.AUTOMATED_SHOE,
                        removed_at=None if k == changes - 1 else placed + shift,
                    )
                )
    with transaction.atomic():
        regulated_bulk_create(DiceSet, dice, batch_size=2000)
        if decks:
            regulated_bulk_create(DeckSet, decks, batch_size=2000)
    return len(dice) + len(decks)


class _QueryCounter:
    """Counts every statement sent to the database (robust to query-log resets by eager tasks)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        return execute(sql, params, many, context)


def _counted(function: Any, *args: Any, **kwargs: Any) -> tuple[Any, float, int]:
    from django.db import connection

    counter = _QueryCounter()
    with connection.execute_wrapper(counter):
        started = time.perf_counter()
        result = function(*args, **kwargs)
        seconds = time.perf_counter() - started
    return result, seconds, counter.count


def _time_sweep(now: Any) -> tuple[float, int, float, int, Any]:
    from compliance.actors import acting_as, system_user
    from equipment.services import equipment_sweep

    with acting_as(system_user()):
        result, first, first_queries = _counted(equipment_sweep, now=now)
        _again, again, again_queries = _counted(equipment_sweep, now=now)
    return first, first_queries, again, again_queries, result


def _board_queries(facility: Any, now: Any) -> tuple[int, int, float]:
    """The live board's queries, rows and time: its clocks and every table's readiness (compliance.readiness,
    every chapter's requirements)."""
    from equipment.selectors import board_rows

    def render() -> int:
        rows = board_rows(facility, now)
        [(c.tone, c.text, row.needs) for row in rows for c in row.clocks]
        return len(rows)

    render()  # warm: imports, templates of the words, the rules' caches
    count, seconds, queries = _counted(render)
    return queries, count, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--days", type=int, default=365)
    args, _unknown = parser.parse_known_args()
    _configure()

    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from compliance.actors import acting_as, system_user
    from compliance.models import Facility
    from compliance.roles import Role
    from tests.factories import make_person

    began = time.perf_counter()
    call_command("migrate", verbosity=0)
    from equipment.models import DiceSet

    if DiceSet.objects.exists():
        raise SystemExit("The benchmark needs an empty database: DATABASE_URL points at one with equipment logs.")
    now = timezone.now().replace(microsecond=0)
    print(f"database: {connection.vendor}; {args.tables} tables, {args.days} days of logs")
    with acting_as(system_user()):
        facility = Facility.objects.create(code="bench", name="Benchmark Casino", certificate_holder="Bench LLC")
        people = {"floor": make_person(Role.FLOORPERSON, facility), "dealer": make_person(Role.DEALER, facility)}
        make_person(Role.SHIFT_MANAGER, facility)

        seeded = _seed_tables(facility, 0, BASELINE_TABLES, args.days, now, people)
        base_first, base_q1, base_again, base_q2, base_result = _time_sweep(now)
        board_q_small, _, board_small_s = _board_queries(facility, now)

        started = time.perf_counter()
        seeded += _seed_tables(facility, BASELINE_TABLES, args.tables - BASELINE_TABLES, args.days, now, people)
        seed_seconds = time.perf_counter() - started
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # fresh planner statistics, PostgreSQL and SQLite alike
        first, q1, again, q2, result = _time_sweep(now)
        board_q_large, board_rows_large, board_large_s = _board_queries(facility, now)

    print(f"seeded {seeded:,} dice/deck log rows (+ history and audit rows) in {seed_seconds:.1f} s")
    print(
        f"baseline sweep over {BASELINE_TABLES} tables: first run {base_first * 1000:.1f} ms ({base_q1} queries, "
        f"{len(base_result.raised)} alerts raised and mailed), rerun {base_again * 1000:.1f} ms ({base_q2} queries)"
    )
    print(
        f"sweep over {args.tables} tables: first run {first * 1000:.1f} ms ({q1} queries, {len(result.due)} due or "
        f"overdue, {len(result.raised)} alerts raised), rerun {again * 1000:.1f} ms ({q2} queries, nothing new)"
    )
    ratio = again / base_again if base_again else float("inf")
    print(f"ratio (rerun, {args.tables} / {BASELINE_TABLES} tables): {ratio:.1f}x")
    verdict = "PASS" if first < 1.0 and again < 1.0 else "FAIL"
    print(f"target: sweep over {args.tables} tables < 1 s -> {verdict}")
    board_verdict = "constant" if board_q_small == board_q_large else "NOT constant"
    print(f"table board with every table's readiness: {board_small_s * 1000:.0f} ms for {BASELINE_TABLES} tables, "
          f"{board_large_s * 1000:.0f} ms for {args.tables} ({board_large_s / board_small_s:.1f}x)")
    print(
        f"table board: {board_q_small} query for {BASELINE_TABLES} tables, {board_q_large} for "
        f"{board_rows_large} tables ({board_verdict})"
    )
    print("(queries include BEGIN/COMMIT on SQLite; finding the due sets is ONE query, see due_in_play)")
    print(f"total run {time.perf_counter() - began:.1f} s")
    from benchlib.table import row, save

    save("equipment", [
        row(f"equipment sweep over {args.tables} tables (first run / rerun)", "< 1 s",
            f"{first * 1000:.0f} / {again * 1000:.0f} ms, {q1} queries",
            f"{BASELINE_TABLES} tables: {base_first * 1000:.0f} / {base_again * 1000:.0f} ms", ratio, verdict == "PASS"),
        row(f"table board with readiness, {args.tables} tables", "queries constant",
            f"{board_large_s * 1000:.0f} ms, {board_q_large} queries",
            f"{BASELINE_TABLES} tables: {board_small_s * 1000:.0f} ms, {board_q_small} queries",
            board_large_s / board_small_s if board_small_s else None, board_q_small == board_q_large)])
    return 0 if verdict == "PASS" and board_q_small == board_q_large else 1


if __name__ == "__main__":
    raise SystemExit(main())
