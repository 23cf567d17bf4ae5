"""Benchmark: screening a 100,000-patron mailing against 200,000 list entries (§ 525.21(q)(7)).

Imports a self-exclusion list of 150,000 entries and an exclusion list of 50,000 (generated, realistic name
and birth-date spreads) through the import service, then screens a mailing of 100,000 generated patrons —
with people of the lists planted in it, written as a mailing would write them (nicknames, capitals, no
accents, typos) — through ``screening_run``, the service the mailing campaign calls: reading the entries
from the database, indexing them, screening every patron and recording the run and its matches. Prints
the time of each step and the figure. The people come from ``compliance/exclusion/people_generator.py``, which
the generated casino (``manage.py generate_casino``) uses as well.

    .venv/bin/python bench/exclusion_bench.py                 # a SQLite database of its own (temporary)
    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/exclusion_bench .venv/bin/python bench/exclusion_bench.py

On PostgreSQL the database is created (if missing) and migrated; nothing else is touched.
"""

from __future__ import annotations

import os
import secrets
import sys
import time
from pathlib import Path
from random import Random
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = secrets.token_urlsafe(16)
sys.path.insert(0, str(ROOT))

from benchlib.database import configure  # noqa: E402 (bench/ is on the path: the script's directory)

SELF_EXCLUDED, INVOLUNTARY, PATRONS, PLANTED = 150_000, 50_000, 100_000, 1_000
TARGET_SECONDS = 10.0


def _mailing(listed: list[dict[str, Any]]) -> list[Any]:
    from compliance.exclusion.matching import Candidate
    from compliance.exclusion.people_generator import People, as_mailed

    people, rng = People(seed=2), Random(3)
    candidates = []
    for n in range(PATRONS - PLANTED):
        p = people.person()
        candidates.append(Candidate(f"P{n:06d}", f"{p['first']} {p['middle']} {p['last']}".replace("  ", " "),
                                    p["born"], f"{p['street']}, {p['city']}, PA {p['zip']}"))
    for n, p in enumerate(rng.sample(listed, PLANTED)):
        name, born, address = as_mailed(p, rng, n)
        candidates.append(Candidate(f"L{n:06d}", name, born, address))
    rng.shuffle(candidates)
    return candidates


def _seed() -> dict[str, Any]:
    from compliance.actors import acting_as
    from compliance.models import Facility
    from compliance.roles import Role
    from compliance.services import profile_create

    stamp = str(time.time_ns())[-8:]
    facility = Facility.objects.create(code=f"xbench{stamp}", name="Bench Casino", certificate_holder="Bench LLC")
    people = {
        key: profile_create(username=f"{key}{stamp}", full_name=f"Bench {key}", credential_number=f"X{stamp}{key}",
                            department_code=department, roles=[role], facilities=[facility], password=PASSWORD)
        for key, role, department in [("officer", Role.COMPLIANCE_OFFICER, "compliance"),
                                      ("mktsup", Role.MARKETING_SUPERVISOR, "marketing")]
    }
    for user in people.values():  # a password the person sets is their own, so they may sign with it
        with acting_as(user):
            user.set_password(PASSWORD)
            user.save(update_fields=["password"])
    return {"facility": facility, "people": people}


def _cold() -> None:
    """Forget what the engine remembers between runs (sounds of names, nicknames), as a fresh process would."""
    from compliance.exclusion import matching, names

    for cached in (names.phonetic, names.given_forms, matching._lookup_keys):
        cached.cache_clear()


def _timed(label: str, work: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = work()
    elapsed = time.perf_counter() - started
    print(f"  {label:<58} {elapsed:7.2f} s", flush=True)
    return result, elapsed


def main() -> int:
    url = configure("exclusion")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    from compliance.exclusion import selectors, services
    from compliance.exclusion.matching import collector_paused
    from compliance.exclusion.models import ListKind
    from compliance.exclusion.people_generator import People, list_file

    print(f"Database: {url.split('@')[-1]}; {os.cpu_count()} CPU cores")
    generator = People(seed=1)
    listed = [generator.person() for _ in range(SELF_EXCLUDED + INVOLUNTARY)]
    files = {ListKind.SELF_EXCLUSION: list_file(listed[:SELF_EXCLUDED], "SE"),
             ListKind.INVOLUNTARY: list_file(listed[SELF_EXCLUDED:], "EX")}
    candidates = _mailing(listed)
    ctx = _seed()
    facility, people = ctx["facility"], ctx["people"]
    today = selectors.facility_today(facility)
    for kind, data in files.items():
        entries = data.count(b"\n") - 1
        _timed(f"import {kind.label[:26]}… ({entries:,} entries)",
               lambda kind=kind, data=data: services.list_import(
                   facility=facility, kind=kind, board_list_date=today, data=data, file_name=f"{kind}.csv",
                   user=people["officer"], password=PASSWORD))
    lists = selectors.require_lists_current(facility, today)
    _cold()
    run, figure = _timed(f"screening_run: {PATRONS:,} patrons against {SELF_EXCLUDED + INVOLUNTARY:,} entries",
                         lambda: services.screening_run(facility=facility, subject=facility, candidates=candidates,
                                                        user=people["mktsup"]))
    _cold()
    index, index_seconds = _timed("  of which: read and index the entries",
                                  lambda: selectors.screening_index(lists.values()))
    workers = min(4, os.cpu_count() or 1)
    with collector_paused():
        _timed(f"  of which: screen {PATRONS:,} patrons ({workers} processes)",
               lambda: index.screen_all(candidates, workers=workers))
        _cold()
        _timed(f"  (screen {PATRONS:,} patrons in one process)", lambda: index.screen_all(candidates))
    print(f"  outcome of the run: {run.clear_count:,} clear, {run.excluded_count:,} excluded, {run.review_count:,} for review "
          f"({PLANTED:,} listed people planted in the mailing)")
    verdict = "within" if figure < TARGET_SECONDS else "OVER"
    print(f"Figure: screening a {PATRONS:,}-patron mailing against {len(index):,} list entries took {figure:.1f} s "
          f"({verdict} the {TARGET_SECONDS:.0f} s target)")
    from benchlib.table import row, save

    save("exclusion", [row(f"screening {PATRONS:,} patrons against {len(index):,} list entries", f"< {TARGET_SECONDS:.0f} s",
                           f"{figure:.1f} s", f"reading and indexing the entries {index_seconds:.1f} s",
                           figure / index_seconds if index_seconds else None, figure < TARGET_SECONDS)])
    return 0 if figure < TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
