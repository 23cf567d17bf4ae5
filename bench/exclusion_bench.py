"""Benchmark: screening a 100,000-patron mailing against 200,000 list entries (§ 525.21(q)(7)).

Imports a self-exclusion list of 150,000 entries and an exclusion list of 50,000 (generated, realistic name
and birth-date spreads) through the import service, then screens a mailing of 100,000 generated patrons —
with people of the lists planted in it, written as a mailing would write them (nicknames, capitals, no
accents, typos) — through ``screening_run``, the service the mailing campaign calls: reading the entries
from the database, indexing them, screening every patron and recording the run and its matches. Prints
the time of each step and the figure.

    .venv/bin/python bench/exclusion_bench.py                 # a SQLite database of its own (temporary)
    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/exclusion_bench .venv/bin/python bench/exclusion_bench.py

On PostgreSQL the database is created (if missing) and migrated; nothing else is touched.
"""

from __future__ import annotations

import csv
import io
import os
import secrets
import sys
import time
from datetime import date, timedelta
from pathlib import Path
from random import Random
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = secrets.token_urlsafe(16)
sys.path.insert(0, str(ROOT))

from benchlib.database import configure  # noqa: E402 (bench/ is on the path: the script's directory)

SELF_EXCLUDED, INVOLUNTARY, PATRONS, PLANTED = 150_000, 50_000, 100_000, 1_000
TARGET_SECONDS = 10.0

GIVEN = ["James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth", "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen", "Christopher", "Lisa", "Daniel", "Nancy", "Matthew", "Betty", "Anthony", "Margaret", "Mark", "Sandra", "Donald", "Ashley", "Steven", "Kimberly", "Paul", "Emily", "Andrew", "Donna", "Joshua", "Michelle", "Kenneth", "Carol", "Kevin", "Amanda", "Brian", "Dorothy", "George", "Melissa", "Timothy", "Deborah", "Ronald", "Stephanie", "Edward", "Rebecca", "Jason", "Sharon", "Jeffrey", "Laura", "Ryan", "Cynthia", "Jacob", "Kathleen", "Gary", "Amy", "Nicholas", "Angela", "Eric", "Shirley", "Jonathan", "Anna", "Stephen", "Brenda", "Larry", "Pamela", "Justin", "Emma", "Scott", "Nicole", "Brandon", "Helen", "Benjamin", "Samantha", "Samuel", "Katherine", "Gregory", "Christine", "Alexander", "Debra", "Frank", "Rachel", "Patrick", "Carolyn", "Raymond", "Janet", "Jack", "Catherine", "Dennis", "Maria", "Jerry", "Heather", "Tyler", "Diane", "Aaron", "Ruth", "Jose", "Julie", "Adam", "Olivia", "Nathan", "Joyce", "Henry", "Virginia", "Douglas", "Victoria", "Zachary", "Kelly", "Peter", "Lauren", "Kyle", "Christina", "Ethan", "Joan", "Walter", "Evelyn", "Noah", "Judith", "Jeremy", "Megan", "Christian", "Andrea", "Keith", "Cheryl", "Roger", "Hannah", "Terry", "Jacqueline", "Gerald", "Martha", "Harold", "Gloria", "Sean", "Teresa", "Austin", "Ann", "Carl", "Sara", "Arthur", "Madison", "Lawrence", "Frances", "Dylan", "Kathryn", "Jesse", "Janice", "Jordan", "Jean", "Bryan", "Abigail", "Billy", "Alice", "Joe", "Judy", "Bruce", "Sophia", "Gabriel", "Grace", "Logan", "Denise", "Albert", "Amber", "Willie", "Doris", "Alan", "Marilyn", "Juan", "Danielle", "Wayne", "Beverly", "Elijah", "Isabella", "Randy", "Theresa", "Roy", "Diana", "Vincent", "Natalie", "Ralph", "Brittany", "Eugene", "Charlotte", "Russell", "Marie", "Bobby", "Kayla", "Mason", "Alexis", "Philip", "Lori", "Louis", "Seán", "José", "Zoë", "Renée"]
SURNAMES = ["Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts", "Gomez", "Phillips", "Evans", "Turner", "Diaz", "Parker", "Cruz", "Edwards", "Collins", "Reyes", "Stewart", "Morris", "Morales", "Murphy", "Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper", "Peterson", "Bailey", "Reed", "Kelly", "Howard", "Ramos", "Kim", "Cox", "Ward", "Richardson", "Watson", "Brooks", "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes", "Price", "Alvarez", "Castillo", "Sanders", "Patel", "Myers", "Long", "Ross", "Foster", "Jimenez", "Powell", "Jenkins", "Perry", "Russell", "Sullivan", "Bell", "Coleman", "Butler", "Henderson", "Barnes", "Gonzales", "Fisher", "Vasquez", "Simmons", "Romero", "Jordan", "Patterson", "Alexander", "Hamilton", "Graham", "Reynolds", "Griffin", "Wallace", "Moreno", "West", "Cole", "Hayes", "Bryant", "Herrera", "Gibson", "Ellis", "Tran", "Medina", "Aguilar", "Stevens", "Murray", "Ford", "Castro", "Marshall", "Owens", "Harrison", "Fernandez", "McDonald", "Woods", "Washington", "Kennedy", "Wells", "Vargas", "Henry", "Chen", "Freeman", "Webb", "Tucker", "Guzman", "Burns", "Crawford", "Olson", "Simpson", "Porter", "Hunter", "Gordon", "Mendez", "Silva", "Shaw", "Snyder", "Mason", "Dixon", "Muñoz", "Hunt", "Hicks", "Holmes", "Palmer", "Wagner", "Black", "Robertson", "Boyd", "Rose", "Stone", "Salazar", "Fox", "Warren", "Mills", "Meyer", "Rice", "Schmidt", "Garza", "Daniels", "Ferguson", "Nichols", "Stephens", "Soto", "Weaver", "Ryan", "Gardner", "Payne", "Grant", "Dunn", "Kelley", "Spencer", "Hawkins", "Arnold", "Pierce", "Vazquez", "Hansen", "Peters", "Santos", "Hart", "Bradley", "Knight", "Elliott", "Cunningham", "Duncan", "Armstrong", "Hudson", "Carroll", "Lane", "Riley", "Andrews", "Alvarado", "Ray", "Delgado", "Berry", "Perkins", "Hoffman", "Johnston", "Matthews", "Peña", "Richards", "O'Brien", "Kowalski", "Nowak", "Müller", "Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco"]
_SYLLABLES = ["ka", "ri", "to", "mel", "an", "dor", "vin", "sa", "lo", "be", "ter", "gus", "hal", "nik", "ost", "ram", "pel", "zer", "ull", "fa", "mo", "ce", "bri", "dan", "ev", "ki", "ro", "sha", "tov", "len", "gar", "bro", "wen", "del", "fitz"]
STREETS = ["Main", "Oak", "Pine", "Maple", "Cedar", "Elm", "Walnut", "Chestnut", "Spruce", "Market", "Front", "Church", "High", "Union", "Penn", "Liberty", "Park", "Water", "Mill", "Hill", "Ridge", "Lake", "Spring", "Locust", "Poplar", "Cherry", "Willow", "Franklin", "Jefferson", "Lincoln"]
KINDS = ["Street", "Avenue", "Road", "Drive", "Lane", "Court", "Place", "Boulevard"]
CITIES = ["Harrisburg", "Philadelphia", "Pittsburgh", "Allentown", "Erie", "Reading", "Scranton", "Bethlehem", "Lancaster", "Altoona", "York", "Wilkes-Barre", "Chester", "Williamsport", "Easton", "Lebanon", "Hazleton", "Johnstown", "Pottsville", "Bensalem"]
NICK = {"Robert": "Bob", "William": "Bill", "Elizabeth": "Liz", "Richard": "Dick", "James": "Jim",
        "Michael": "Mike", "Katherine": "Kate", "Thomas": "Tom", "Joseph": "Joe", "Margaret": "Peggy"}


class People:
    """Generated people with the spreads of real names: the commonest given name about 1.5% of people, the
    commonest surname about 0.8% (Smith is 0.83% in the 2010 census), the 300 common surnames about 27%, and
    a long tail of rarer ones; births spread over 68 years; a date of birth for 98% of people (the Board's
    lists carry one); random Pennsylvania addresses."""

    def __init__(self, seed: int) -> None:
        self.rng = Random(seed)
        self.given_weights = [1 / (i + 1) ** 0.3 for i in range(len(GIVEN))]
        self.surname_weights = [1 / (i + 1) ** 0.5 for i in range(len(SURNAMES))]

    def surname(self) -> str:
        if self.rng.random() < 0.27:
            return self.rng.choices(SURNAMES, self.surname_weights)[0]
        return "".join(self.rng.choice(_SYLLABLES) for _ in range(self.rng.choice((2, 3, 3)))).capitalize()

    def person(self) -> dict[str, Any]:
        rng = self.rng
        zip_code = f"{rng.randrange(15001, 19641):05d}"
        return {
            "first": rng.choices(GIVEN, self.given_weights)[0], "last": self.surname(),
            "middle": rng.choice(GIVEN)[0] if rng.random() < 0.4 else "",
            "born": date(1935, 1, 1) + timedelta(days=rng.randrange(25_000)) if rng.random() < 0.98 else None,
            "street": f"{rng.randrange(1, 9999)} {rng.choice(STREETS)} {rng.choice(KINDS)}",
            "city": rng.choice(CITIES), "zip": zip_code,
        }


def _list_file(people: list[dict[str, Any]], prefix: str) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["board_id", "last_name", "first_name", "middle_name", "aliases", "date_of_birth", "address",
                     "city", "state", "zip"])
    for n, p in enumerate(people, 1):
        alias = f"{NICK[p['first']]} {p['last']}" if p["first"] in NICK and n % 3 == 0 else ""
        writer.writerow([f"{prefix}-{n}", p["last"], p["first"], p["middle"], alias,
                         p["born"].isoformat() if p["born"] else "", p["street"], p["city"], "PA", p["zip"]])
    return buffer.getvalue().encode()


def _as_mailed(p: dict[str, Any], rng: Random, n: int) -> tuple[str, date | None, str]:
    """A listed person as a mailing list writes them: nickname, capitals, no accents, or a typo."""
    from compliance.exclusion.names import fold

    first, last, born = p["first"], p["last"], p["born"]
    style = n % 4
    if style == 0:
        name = f"{NICK.get(first, first)} {last}"
    elif style == 1:
        name = f"{first} {p['middle']} {last}".upper()
    elif style == 2:
        name = fold(f"{first} {last}").title()
    else:
        at = rng.randrange(1, max(2, len(last) - 1))
        name = f"{first} {last[:at]}{last[at + 1:at + 2]}{last[at:at + 1]}{last[at + 2:]}"  # two letters swapped
    return name, born, f"{p['street']}, {p['city']}, PA {p['zip']}"


def _mailing(listed: list[dict[str, Any]]) -> list[Any]:
    from compliance.exclusion.matching import Candidate

    people, rng = People(seed=2), Random(3)
    candidates = []
    for n in range(PATRONS - PLANTED):
        p = people.person()
        candidates.append(Candidate(f"P{n:06d}", f"{p['first']} {p['middle']} {p['last']}".replace("  ", " "),
                                    p["born"], f"{p['street']}, {p['city']}, PA {p['zip']}"))
    for n, p in enumerate(rng.sample(listed, PLANTED)):
        name, born, address = _as_mailed(p, rng, n)
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

    print(f"Database: {url.split('@')[-1]}; {os.cpu_count()} CPU cores")
    generator = People(seed=1)
    listed = [generator.person() for _ in range(SELF_EXCLUDED + INVOLUNTARY)]
    files = {ListKind.SELF_EXCLUSION: _list_file(listed[:SELF_EXCLUDED], "SE"),
             ListKind.INVOLUNTARY: _list_file(listed[SELF_EXCLUDED:], "EX")}
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
