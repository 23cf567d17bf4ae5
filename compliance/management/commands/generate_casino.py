"""``manage.py generate_casino``: a year (or more) of a large casino in PostgreSQL, as the application would have
written it (issue 27; :mod:`compliance.scale`).

    manage.py generate_casino --years 1 --tables 200 --redemptions-per-quarter 5000000 --seed 1

On a fresh database (migrated; no facility of ``--facility`` yet): the foundation's demo people and a floor of
``--tables`` tables, then each app's part (its ``apps.py`` declares it) for every gaming day ending yesterday, then
the audit chain linked. The same seed gives the same casino. Prints each part's time and the rows of each table.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.backends.signals import connection_created
from django.test.utils import override_settings

from compliance.actors import acting_as, system_user
from compliance.chain import chain_link_all
from compliance.gaming_day import day_bounds, gaming_day
from compliance.models import Facility
from compliance.registry import scale_seeders
from compliance.scale import ScalePlan, travel
from compliance.scale_beside import Beside, run_part
from compliance.scale_floor import floor_scale_seed

# Signatures check the signer's password each time: the generator's people sign with a throwaway password
# (compliance.demo.signing_passwords) hashed fast, or a year's signatures would take half an hour of PBKDF2.
_FAST = ["django.contrib.auth.hashers.MD5PasswordHasher", "django.contrib.auth.hashers.PBKDF2PasswordHasher"]


@contextmanager
def _commits_not_awaited() -> Iterator[None]:
    """The generator's sessions (its own and the second writer's, forked) commit without waiting for the WAL to reach
    the disk (``synchronous_commit`` off: thousands of small transactions a day, each a signed service call). A crash
    can lose the last moments of a run, never part of a transaction: what was written is whole, and the run is
    started again on a fresh database anyway. Every other session keeps the server's setting."""
    def each(sender: Any, connection: Any, **kwargs: Any) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit TO off")

    connection_created.connect(each, dispatch_uid="generate_casino.commits")
    if connection.connection is not None:
        each(None, connection)
    try:
        yield
    finally:
        connection_created.disconnect(dispatch_uid="generate_casino.commits")
        if connection.connection is not None and not connection.in_atomic_block:
            with connection.cursor() as cursor:
                cursor.execute("RESET synchronous_commit")


@contextmanager
def _tasks_quiet() -> Iterator[None]:
    """The tasks the generated year runs in the command (reports, anchors) each log a line when they end, and the
    broker's client says once that it assumed localhost: the command's output is the parts' report, so those loggers
    say only what went wrong while it runs (their levels put back after)."""
    quiet = {"celery.app.trace": logging.WARNING, "kombu.connection": logging.ERROR}
    saved = {name: logging.getLogger(name).level for name in quiet}
    for name, level in quiet.items():
        logging.getLogger(name).setLevel(level)
    try:
        yield
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


@contextmanager
def _collector_relaxed() -> Iterator[None]:
    """Python's cycle collector run less often while the generator writes: it allocates millions of short-lived
    tuples a day (each redemption's row, its digests), and at the interpreter's default (a young collection every 700
    allocations, a full one every hundred of those) a 20-day run spent 19 s of its processes' CPU collecting, most of
    it in 79 full collections over the heap of Django's models and the kept digests (``gc.callbacks``, 30 Nov 2026);
    with a young collection every 100,000 allocations, 3.5 s in 74 collections, the largest resident set the same
    (428 MB). The generator's cycles (a queryset's, a traceback's) are few and still collected. What is loaded before
    it writes is frozen out of the collector's walks. The thresholds put back after (a test calls the command in
    its own process)."""
    saved = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()


class Command(BaseCommand):
    help = "Fill PostgreSQL with a year of a large casino, sealed and chained, reproducible from its seed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--years", type=float, default=1.0, help="gaming days ending yesterday: 365 × years")
        parser.add_argument("--days", type=int, default=None, help="or a number of gaming days (overrides --years)")
        parser.add_argument("--tables", type=int, default=200)
        parser.add_argument("--redemptions-per-quarter", type=int, default=5_000_000)
        parser.add_argument("--exclusion-entries", type=int, default=200_000)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--any-order", action="store_true",
                            help="redeem any of the day's handed-out coupons in any order, as in life (the coupon "
                                 "ranges split around each kept coupon: about 6 times slower); by default the first "
                                 "of the day's block, in serial order")
        parser.add_argument("--beat-postings", action="store_true",
                            help="with --any-order, post each hour's redemptions to the ledger as beat does (each "
                                 "splits the range it falls in: about 20 times slower); by default finance's "
                                 "processing posts the day")
        parser.add_argument("--one-writer", action="store_true",
                            help="write every part in this process, one after the other; by default the floor's "
                                 "parts (staffing, equipment) are written in a second process beside the coupons "
                                 "(compliance/scale_turns.py; about a quarter faster on 2 cores)")
        parser.add_argument("--floor-through-services", action="store_true",
                            help="write the equipment logs' dice and deck changes and inspections one by one "
                                 "through the services, as the floorpersons' forms do; by default each day's are "
                                 "written in bulk as the services write them (equipment/scale_bulk.py; the same "
                                 "rows, about ten times less of the machine)")
        parser.add_argument("--facility", default="demo", help="the facility's code (it must not exist yet)")

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("generate_casino fills PostgreSQL (it writes by COPY): set DATABASE_URL to a "
                               "postgres:// database, migrated and empty")
        if Facility.objects.filter(code=options["facility"]).exists():
            raise CommandError(f"Facility {options['facility']!r} exists already: generate into a fresh database "
                               "(createdb, migrate) or name another facility with --facility")
        days = options["days"] or round(365 * options["years"])
        for name in ("tables", "redemptions_per_quarter", "exclusion_entries"):
            if options[name] < 1:
                raise CommandError(f"--{name.replace('_', '-')} must be at least 1")
        if not 1 <= days <= 3660:
            raise CommandError("between 1 and 3,660 gaming days (ten years)")
        started = time.perf_counter()
        # DEBUG off while it writes (the development default has it on): Django would keep the text of every
        # statement, each hour's redemptions spelled out in it, and time each through its debug cursor.
        with (override_settings(PASSWORD_HASHERS=_FAST, DEBUG=False), _commits_not_awaited(), _tasks_quiet(),
              _collector_relaxed()):
            plan = self._floor(options, days)
            self._parts(plan, one_process=options["one_writer"])
            began = time.perf_counter()
            links = chain_link_all()
            self.stdout.write(f"  audit chain: {links:,} link(s) ({time.perf_counter() - began:,.0f} s)")
        self._analyze()
        self.stdout.write(self.style.SUCCESS(
            f"Generated {days} gaming days of {plan.facility.name} ({plan.first_day} to {plan.last_day}), "
            f"{plan.tables} tables, seed {plan.seed}, in {time.perf_counter() - started:,.0f} s"))
        self._counts()

    def _parts(self, plan: ScalePlan, *, one_process: bool) -> None:
        """Every app's part by stage; those ``beside`` in a second process beside the later ones
        (compliance.scale_beside), which a part that ``waits`` waits for."""
        seeders = scale_seeders()
        beside = [] if one_process else [(c, s) for c, s in seeders if s.beside]
        second: Beside | None = None
        try:
            for config, seeder in seeders:
                if (config, seeder) in beside:
                    second = second or Beside(beside, plan, self.stdout.write)
                    continue
                if seeder.waits and second is not None:
                    second.join()
                    second = None
                run_part(config, seeder, plan, self.stdout.write)
            if second is not None:
                second.join()
                second = None
        except RuntimeError as failed:
            raise CommandError(str(failed)) from failed
        finally:
            if second is not None:
                second.stop()

    def _floor(self, options: dict[str, Any], days: int) -> ScalePlan:
        facility_day = gaming_day(Facility(code="-", name="-"))
        first_day = facility_day - timedelta(days=days)
        plan = ScalePlan(facility=Facility(code=options["facility"]), first_day=first_day, days=days,
                         tables=options["tables"], redemptions_per_quarter=options["redemptions_per_quarter"],
                         seed=options["seed"], exclusion_entries=options["exclusion_entries"],
                         any_order=options["any_order"] or options["beat_postings"],
                         beat_postings=options["beat_postings"],
                         floor_through_services=options["floor_through_services"],
                         say=lambda words: self.stdout.write(words))
        with travel(day_bounds(plan.facility, first_day)[0] - timedelta(hours=12)), acting_as(system_user()):
            self.stdout.write(f"  floor: {floor_scale_seed(plan=plan)}")
        return plan

    def _analyze(self) -> None:
        """The planner's statistics and the visibility map of a database in service, where autovacuum keeps them:
        a PostgreSQL with autovacuum off, as CI's image has it, never vacuums the generated tables, and their
        index-only scans then read the table's pages too (docs/scale.md, "Eighteenth session")."""
        with connection.cursor() as cursor:  # VACUUM runs only outside a transaction (a caller's test may hold one)
            cursor.execute("ANALYZE" if connection.in_atomic_block else "VACUUM (ANALYZE)")

    def _counts(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE n_live_tup >= 1000 "
                           "ORDER BY n_live_tup DESC LIMIT 25")
            for name, rows in cursor.fetchall():
                self.stdout.write(f"    {name:<48} {rows:>14,}")
