"""The screening engine's rule, case by case (pure: no database). Exact → EXCLUDED; near → REVIEW; else CLEAR."""

from __future__ import annotations

import time
from datetime import date, timedelta
from random import Random

import pytest

from compliance.exclusion.matching import Candidate, ExclusionIndex, ListEntry, Outcome
from compliance.exclusion.names import address_key, entry_names

E = Outcome.EXCLUDED
R = Outcome.REVIEW
C = Outcome.CLEAR


def _entry(pk: int, first: str, last: str, born: date | None = None, *, middle: str = "",
           aliases: tuple[str, ...] = (), address: str = "") -> ListEntry:
    return ListEntry.of(pk, entry_names(first, middle, last, list(aliases)), born, address_key(address))


INDEX = ExclusionIndex([
    _entry(1, "Robert", "Smith", date(1970, 3, 4), middle="James", aliases=("Bobby Smith",),
           address="12 Main Street, Harrisburg, PA, 17101"),
    _entry(2, "José", "Álvarez", date(1980, 1, 2)),
    _entry(3, "Stephen", "Smyth", None, address="5 Oak Avenue, Erie, PA, 16501"),
    _entry(4, "Katherine", "Walsh", date(1965, 7, 8), aliases=("Kay Brennan",)),
    _entry(5, "Seán", "O'Brien", date(1959, 12, 1)),
    _entry(6, "Elizabeth", "Moretti", date(1975, 5, 6), aliases=("Liz Moretti",)),
    _entry(7, "William", "Garcia-Lopez", date(1988, 8, 18)),
])


def screen(name: str, born: date | None = None, address: str = "", aliases: tuple[str, ...] = ()) -> tuple[
        Outcome, int | None]:
    found = INDEX.screen(Candidate("k", name, born, address, aliases))
    return found.outcome, found.entry_id


@pytest.mark.parametrize(("name", "born", "expected"), [
    ("Robert Smith", date(1970, 3, 4), (E, 1)),                 # as listed (middle name absent on the mailing)
    ("ROBERT J. SMITH JR.", date(1970, 3, 4), (E, 1)),          # case, initial, suffix
    ("Smith, Robert", date(1970, 3, 4), (E, 1)),                # surname first
    ("Bob Smith", date(1970, 3, 4), (E, 1)),                    # nickname
    ("Bobby Smith", date(1970, 3, 4), (E, 1)),                  # alias on the list
    ("Jose Alvarez", date(1980, 1, 2), (E, 2)),                 # accents
    ("sean obrien", date(1959, 12, 1), (E, 5)),                 # accents and apostrophe
    ("Kay Brennan", date(1965, 7, 8), (E, 4)),                  # alias
    ("Liz Moretti", date(1975, 5, 6), (E, 6)),                  # alias and nickname
    ("Beth Moretti", date(1975, 5, 6), (E, 6)),                 # nickname of the listed name
    ("Bill Garcia Lopez", date(1988, 8, 18), (E, 7)),           # hyphen written as a space, nickname
])
def test_exact_matches_are_excluded(name, born, expected):
    assert screen(name, born) == expected


def test_an_exact_name_without_a_date_of_birth_is_excluded_on_the_same_address():
    assert screen("STEPHEN SMYTH", None, "5 Oak Ave, Erie, PA 16501") == (E, 3)
    # A phonetic spelling is never exact: the same address makes it a possible match, for review.
    assert screen("Steven Smyth", None, "5 Oak Ave, Erie, PA 16501") == (R, 3)


@pytest.mark.parametrize(("name", "born", "address", "expected"), [
    ("Robert Smiht", date(1970, 3, 4), "", (R, 1)),              # a typo, same date of birth
    ("Roberto Smith", date(1970, 3, 4), "", (R, 1)),             # a near given name
    ("Catherine Walsh", date(1965, 7, 8), "", (R, 4)),           # a phonetic variant
    ("Steven Smith", None, "5 Oak Avenue, Erie, PA 16501", (R, 3)),  # sounds alike, same address
    ("Robert Smith", date(1970, 4, 3), "", (R, 1)),              # day and month swapped
    ("Robert Smith", date(1970, 3, 5), "", (R, 1)),              # one digit off
    ("Robert Smith", None, "", (R, 1)),                          # the same name, nothing to tell them apart
    ("Robert Smith", date(1985, 9, 20), "12 Main St, Harrisburg, PA 17101", (R, 1)),  # other birthday, same home
    ("Smith Robert", date(1970, 3, 4), "", (R, 1)),              # given name and surname swapped
    ("Maria Garcia", date(1988, 8, 18), "", (C, None)),          # another person born that day
    ("William Garcia", date(1988, 8, 18), "", (R, 7)),           # part of a compound surname
])
def test_near_matches_wait_for_review(name, born, address, expected):
    assert screen(name, born, address) == expected


@pytest.mark.parametrize(("name", "born", "address"), [
    ("Robert Smith", date(1985, 9, 20), ""),                     # same name, clearly another date of birth
    ("Robert Smith", date(1985, 9, 20), "9 Elm St, Pittsburgh, PA 15201"),
    ("Roberta Smithson", date(1970, 3, 4), ""),                  # same birthday, another name
    ("Mary Jones", None, ""),
    ("Robert Smiht", None, ""),                                  # a similar name with no evidence
])
def test_other_people_are_clear(name, born, address):
    assert screen(name, born, address) == (C, None)


def test_a_patron_alias_is_screened_too():
    assert screen("Kate Brennan", date(1965, 7, 8), aliases=("Katherine Walsh",)) == (E, 4)


def test_reasons_say_in_words_why():
    found = INDEX.screen(Candidate("p-1", "Bob Smith", date(1970, 3, 4), ""))
    assert found.reasons[0].startswith("Name: 'bob smith' agrees with the name 'robert james smith'")
    assert "bob is read as robert" in found.reasons[0]
    assert found.reasons[1] == "Date of birth: the same, 1970-03-04."
    assert found.reasons[2] == "Address: none on the mailing record to compare."
    near = INDEX.screen(Candidate("p-2", "Robert Smith", date(1970, 4, 3), ""))
    assert near.reasons[1] == ("Date of birth: 1970-04-03 against 1970-03-04 on the list, one digit or a day/month "
                               "swap apart.")


def test_screening_compares_only_entries_sharing_a_blocking_key(monkeypatch):
    """No all-pairs comparison: a patron is compared with a handful of 20,000 entries, not all of them."""
    rng = Random(7)
    syllables = ["ka", "lo", "mi", "ran", "tes", "vo", "zu", "bel", "dor", "fin", "gar", "hul"]
    entries = [_entry(pk, rng.choice(["Ann", "Paul", "Rosa", "Ivan", "Mei"]),
                      "".join(rng.choice(syllables) for _ in range(3)),
                      date(1940, 1, 1) + timedelta(days=rng.randrange(25000))) for pk in range(20000)]
    index = ExclusionIndex(entries)
    compared: list[int] = []
    original = ExclusionIndex._compare

    def counting(self, candidate, names, address, position):
        compared.append(position)
        return original(self, candidate, names, address, position)

    monkeypatch.setattr(ExclusionIndex, "_compare", counting)
    started = time.perf_counter()
    for n in range(1000):
        index.screen(Candidate(str(n), f"Paul {''.join(rng.choice(syllables) for _ in range(3))}",
                               date(1940, 1, 1) + timedelta(days=rng.randrange(25000)), ""))
    assert len(compared) < 1000 * 20  # all pairs would be 20,000,000
    assert time.perf_counter() - started < 5
