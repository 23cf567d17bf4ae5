"""Generated people with the spreads of real names, for the Board's lists and mailings that are not real (the
exclusion benchmark, ``bench/exclusion_bench.py``, and the generated casino, ``compliance/exclusion/scale.py`` and
``coupons/scale_mailing.py``). Pure: no Django.

:class:`People` draws people; :func:`list_file` writes them as the Board's list file this system imports
(:mod:`compliance.exclusion.csv_format`); :func:`as_mailed` writes a listed person as a mailing list would (a
nickname, capitals, no accents, two letters swapped), the variations screening must still find (§ 525.21(q)(7)).
Reproducible: every choice comes from the generator's seed.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import date, timedelta
from random import Random
from typing import Any

from compliance.exclusion.names import fold

__all__ = ["CITIES", "GIVEN", "NICK", "STREETS", "SURNAMES", "People", "as_mailed", "list_file"]

GIVEN = (
    "James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth", "William",
    "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen", "Christopher", "Lisa",
    "Daniel", "Nancy", "Matthew", "Betty", "Anthony", "Margaret", "Mark", "Sandra", "Donald", "Ashley", "Steven",
    "Kimberly", "Paul", "Emily", "Andrew", "Donna", "Joshua", "Michelle", "Kenneth", "Carol", "Kevin", "Amanda",
    "Brian", "Dorothy", "George", "Melissa", "Timothy", "Deborah", "Ronald", "Stephanie", "Edward", "Rebecca", "Jason",
    "Sharon", "Jeffrey", "Laura", "Ryan", "Cynthia", "Jacob", "Kathleen", "Gary", "Amy", "Nicholas", "Angela", "Eric",
    "Shirley", "Jonathan", "Anna", "Stephen", "Brenda", "Larry", "Pamela", "Justin", "Emma", "Scott", "Nicole",
    "Brandon", "Helen", "Benjamin", "Samantha", "Samuel", "Katherine", "Gregory", "Christine", "Alexander", "Debra",
    "Frank", "Rachel", "Patrick", "Carolyn", "Raymond", "Janet", "Jack", "Catherine", "Dennis", "Maria", "Jerry",
    "Heather", "Tyler", "Diane", "Aaron", "Ruth", "Jose", "Julie", "Adam", "Olivia", "Nathan", "Joyce", "Henry",
    "Virginia", "Douglas", "Victoria", "Zachary", "Kelly", "Peter", "Lauren", "Kyle", "Christina", "Ethan", "Joan",
    "Walter", "Evelyn", "Noah", "Judith", "Jeremy", "Megan", "Christian", "Andrea", "Keith", "Cheryl", "Roger",
    "Hannah", "Terry", "Jacqueline", "Gerald", "Martha", "Harold", "Gloria", "Sean", "Teresa", "Austin", "Ann", "Carl",
    "Sara", "Arthur", "Madison", "Lawrence", "Frances", "Dylan", "Kathryn", "Jesse", "Janice", "Jordan", "Jean",
    "Bryan", "Abigail", "Billy", "Alice", "Joe", "Judy", "Bruce", "Sophia", "Gabriel", "Grace", "Logan", "Denise",
    "Albert", "Amber", "Willie", "Doris", "Alan", "Marilyn", "Juan", "Danielle", "Wayne", "Beverly", "Elijah",
    "Isabella", "Randy", "Theresa", "Roy", "Diana", "Vincent", "Natalie", "Ralph", "Brittany", "Eugene", "Charlotte",
    "Russell", "Marie", "Bobby", "Kayla", "Mason", "Alexis", "Philip", "Lori", "Louis", "Seán", "José", "Zoë", "Renée",
)
SURNAMES = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Hernandez",
    "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez",
    "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen",
    "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall",
    "Rivera", "Campbell", "Mitchell", "Carter", "Roberts", "Gomez", "Phillips", "Evans", "Turner", "Diaz", "Parker",
    "Cruz", "Edwards", "Collins", "Reyes", "Stewart", "Morris", "Morales", "Murphy", "Cook", "Rogers", "Gutierrez",
    "Ortiz", "Morgan", "Cooper", "Peterson", "Bailey", "Reed", "Kelly", "Howard", "Ramos", "Kim", "Cox", "Ward",
    "Richardson", "Watson", "Brooks", "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes",
    "Price", "Alvarez", "Castillo", "Sanders", "Patel", "Myers", "Long", "Ross", "Foster", "Jimenez", "Powell",
    "Jenkins", "Perry", "Russell", "Sullivan", "Bell", "Coleman", "Butler", "Henderson", "Barnes", "Gonzales", "Fisher",
    "Vasquez", "Simmons", "Romero", "Jordan", "Patterson", "Alexander", "Hamilton", "Graham", "Reynolds", "Griffin",
    "Wallace", "Moreno", "West", "Cole", "Hayes", "Bryant", "Herrera", "Gibson", "Ellis", "Tran", "Medina", "Aguilar",
    "Stevens", "Murray", "Ford", "Castro", "Marshall", "Owens", "Harrison", "Fernandez", "McDonald", "Woods",
    "Washington", "Kennedy", "Wells", "Vargas", "Henry", "Chen", "Freeman", "Webb", "Tucker", "Guzman", "Burns",
    "Crawford", "Olson", "Simpson", "Porter", "Hunter", "Gordon", "Mendez", "Silva", "Shaw", "Snyder", "Mason", "Dixon",
    "Muñoz", "Hunt", "Hicks", "Holmes", "Palmer", "Wagner", "Black", "Robertson", "Boyd", "Rose", "Stone", "Salazar",
    "Fox", "Warren", "Mills", "Meyer", "Rice", "Schmidt", "Garza", "Daniels", "Ferguson", "Nichols", "Stephens", "Soto",
    "Weaver", "Ryan", "Gardner", "Payne", "Grant", "Dunn", "Kelley", "Spencer", "Hawkins", "Arnold", "Pierce",
    "Vazquez", "Hansen", "Peters", "Santos", "Hart", "Bradley", "Knight", "Elliott", "Cunningham", "Duncan",
    "Armstrong", "Hudson", "Carroll", "Lane", "Riley", "Andrews", "Alvarado", "Ray", "Delgado", "Berry", "Perkins",
    "Hoffman", "Johnston", "Matthews", "Peña", "Richards", "O'Brien", "Kowalski", "Nowak", "Müller", "Rossi", "Russo",
    "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco",
)
SYLLABLES = (
    "ka", "ri", "to", "mel", "an", "dor", "vin", "sa", "lo", "be", "ter", "gus", "hal", "nik", "ost", "ram", "pel",
    "zer", "ull", "fa", "mo", "ce", "bri", "dan", "ev", "ki", "ro", "sha", "tov", "len", "gar", "bro", "wen", "del",
    "fitz",
)
STREETS = (
    "Main", "Oak", "Pine", "Maple", "Cedar", "Elm", "Walnut", "Chestnut", "Spruce", "Market", "Front", "Church", "High",
    "Union", "Penn", "Liberty", "Park", "Water", "Mill", "Hill", "Ridge", "Lake", "Spring", "Locust", "Poplar",
    "Cherry", "Willow", "Franklin", "Jefferson", "Lincoln",
)
KINDS = (
    "Street", "Avenue", "Road", "Drive", "Lane", "Court", "Place", "Boulevard",
)
CITIES = (
    "Harrisburg", "Philadelphia", "Pittsburgh", "Allentown", "Erie", "Reading", "Scranton", "Bethlehem", "Lancaster",
    "Altoona", "York", "Wilkes-Barre", "Chester", "Williamsport", "Easton", "Lebanon", "Hazleton", "Johnstown",
    "Pottsville", "Bensalem",
)
NICK = {
    "Robert": "Bob", "William": "Bill", "Elizabeth": "Liz", "Richard": "Dick", "James": "Jim", "Michael": "Mike",
    "Katherine": "Kate", "Thomas": "Tom", "Joseph": "Joe", "Margaret": "Peggy",
}


class People:
    """Generated people with the spreads of real names: the commonest given name about 1.5% of people, the
    commonest surname about 0.8% (Smith is 0.83% in the 2010 census), the 300 common surnames about 27%, and
    a long tail of rarer ones; births spread over 68 years; a date of birth for 98% of people (the Board's
    lists carry one); random Pennsylvania addresses."""

    def __init__(self, seed: int) -> None:
        self.rng = Random(seed)  # noqa: S311 (made-up people, not secrets)
        self.given_weights = [1 / (i + 1) ** 0.3 for i in range(len(GIVEN))]
        self.surname_weights = [1 / (i + 1) ** 0.5 for i in range(len(SURNAMES))]

    def surname(self) -> str:
        if self.rng.random() < 0.27:
            return self.rng.choices(SURNAMES, self.surname_weights)[0]
        return "".join(self.rng.choice(SYLLABLES) for _ in range(self.rng.choice((2, 3, 3)))).capitalize()

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


def list_file(people: Sequence[dict[str, Any]], prefix: str, ids: Sequence[int] | None = None) -> bytes:
    """The Board's list file of ``people``: Board ids ``prefix-1``, ``prefix-2``, … (or ``prefix-<ids[n]>``, so a
    person keeps their id from one version of the list to the next); every third person with a nickname of the
    given name as an alias."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["board_id", "last_name", "first_name", "middle_name", "aliases", "date_of_birth", "address",
                     "city", "state", "zip"])
    for n, p in enumerate(people, 1):
        number = ids[n - 1] if ids is not None else n
        alias = f"{NICK[p['first']]} {p['last']}" if p["first"] in NICK and number % 3 == 0 else ""
        writer.writerow([f"{prefix}-{number}", p["last"], p["first"], p["middle"], alias,
                         p["born"].isoformat() if p["born"] else "", p["street"], p["city"], "PA", p["zip"]])
    return buffer.getvalue().encode()


def as_mailed(p: dict[str, Any], rng: Random, n: int) -> tuple[str, date | None, str]:
    """A listed person as a mailing list writes them (by ``n``: nickname, capitals, no accents, or a typo): the
    name, the date of birth and the address on one line."""
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
