"""The rule that decides whether a patron is a person on an exclusion list (§ 525.21(q)(7)). Pure: no Django.

For one patron and one list entry, weighed on three kinds of evidence:

* the **name** — *exact* when a name of the patron (as written, or an alias) agrees with a name of the entry
  (its name or one of its aliases) once folded (:mod:`compliance.exclusion.names`: accents, case,
  punctuation, titles and suffixes gone, surname words joined, nicknames read as their full names), and their
  middle names agree when both give one; otherwise a *score* out of 100 (surname and given name compared by
  edit distance, sound-alike names scored as close, given name and surname swapped tried too);
* the **date of birth** — the same; *near* (one of year, month or day off by one digit or two swapped digits,
  or day and month swapped); different; or unknown (missing on either side);
* the **address** — the same (street line and ZIP once folded and abbreviated); *similar* (same ZIP, street
  alike); different; or unknown.

:func:`judge`:

``EXCLUDED`` — the same person, taken off the mailing without asking anyone:
    an exact name **and** the same date of birth, or — a date of birth missing on either side — the same
    address.
``REVIEW`` — possibly the same person; a compliance officer decides, and the mailing waits:
    * an exact name with no date of birth on one side (and not the same address), or a near date of birth,
      or a different date of birth but the same or a similar address;
    * a similar name (:data:`NAME_SIMILAR` or more) with the same or a near date of birth, or the same or a
      similar address.
``CLEAR`` — everything else, including the same name with a clearly different date of birth and no like
    address (the John Smith born in 1950 is not the John Smith born in 1985).

Every error the rule can make on a matter of judgement errs towards REVIEW: a patron kept off one mailing
by mistake costs little; an excluded person mailed a coupon is what § 525.21(q)(7) forbids.
"""

from __future__ import annotations

from datetime import date
from enum import IntEnum, StrEnum

from jellyfish import damerau_levenshtein_distance
from rapidfuzz import fuzz

from compliance.exclusion.names import PersonName, given_forms, phonetic

__all__ = [
    "NAME_SIMILAR",
    "RANK",
    "Birth",
    "Outcome",
    "Place",
    "birth_evidence",
    "birth_reason",
    "judge",
    "name_exact",
    "name_reason",
    "name_score",
    "place_evidence",
    "place_reason",
]

NAME_SIMILAR = 85  # out of 100


class Outcome(StrEnum):
    CLEAR = "clear"
    REVIEW = "review"
    EXCLUDED = "excluded"


RANK = {Outcome.CLEAR: 0, Outcome.REVIEW: 1, Outcome.EXCLUDED: 2}



class Birth(IntEnum):
    UNKNOWN = 0
    DIFFERENT = 1
    NEAR = 2
    SAME = 3


class Place(IntEnum):
    UNKNOWN = 0
    DIFFERENT = 1
    SIMILAR = 2
    SAME = 3



# --- comparing one patron's name with one entry's --------------------------------------------------------


def _firsts_agree(a: str, b: str) -> bool:
    return a == b or bool(given_forms(a) & given_forms(b))


def _middles_agree(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return not a or not b or a[0][0] == b[0][0]


def _given_similarity(a: str, b: str) -> float:
    if not a or not b:
        return 50.0 if a == b else 40.0
    if _firsts_agree(a, b):
        return 100.0
    if len(a) == 1 or len(b) == 1:
        return 80.0 if a[0] == b[0] else 0.0
    best = max(fuzz.ratio(x, y) for x in given_forms(a) for y in given_forms(b))
    return max(best, 90.0) if phonetic(a) == phonetic(b) else best


def _surname_similarity(a: str, b: str) -> float:
    ratio = fuzz.ratio(a, b)
    return max(ratio, 90.0) if phonetic(a) == phonetic(b) else ratio


def name_exact(c: PersonName, e: PersonName) -> bool:
    return (e.kind != "part" and c.last == e.last and _firsts_agree(c.first, e.first)
            and _middles_agree(c.middles, e.middles))


def name_score(c: PersonName, e: PersonName) -> int:
    """0–100: how alike two names are (100: they agree exactly)."""
    if name_exact(c, e):
        return 100
    score = 0.55 * _surname_similarity(c.last, e.last) + 0.45 * _given_similarity(c.first, e.first)
    if c.first and e.first and score < NAME_SIMILAR:  # given name and surname written the other way round
        score = max(score, 0.55 * fuzz.ratio(c.first, e.last) + 0.45 * fuzz.ratio(c.last, e.first) - 5)
    if not _middles_agree(c.middles, e.middles):
        score -= 10
    if e.kind == "part":
        score = min(score, 95)
    return max(0, round(score))


def _one_slip(a: int, b: int, width: int) -> bool:
    """Two numbers written ``width`` digits wide differ by one digit typed wrong or two swapped."""
    return damerau_levenshtein_distance(f"{a:0{width}d}", f"{b:0{width}d}") == 1


def birth_evidence(a: date | None, b: date | None) -> Birth:
    """SAME; NEAR (one of year, month or day off by one digit or two swapped digits, or day and month
    swapped); DIFFERENT; or UNKNOWN when either side has none."""
    if a is None or b is None:
        return Birth.UNKNOWN
    if a == b:
        return Birth.SAME
    if a.year == b.year:
        if a.month == b.month:
            return Birth.NEAR if _one_slip(a.day, b.day, 2) else Birth.DIFFERENT
        if a.day == b.day:
            return Birth.NEAR if _one_slip(a.month, b.month, 2) else Birth.DIFFERENT
        return Birth.NEAR if (a.month, a.day) == (b.day, b.month) else Birth.DIFFERENT
    if a.month == b.month and a.day == b.day and _one_slip(a.year, b.year, 4):
        return Birth.NEAR
    return Birth.DIFFERENT


def place_evidence(a: str, b: str) -> Place:
    if not a or not b:
        return Place.UNKNOWN
    if a == b:
        return Place.SAME
    street_a, _, where_a = a.partition("|")
    street_b, _, where_b = b.partition("|")
    if where_a and where_a == where_b and fuzz.token_set_ratio(street_a, street_b) >= 90:
        return Place.SIMILAR
    return Place.DIFFERENT


def judge(exact: bool, score: int, birth: Birth, place: Place) -> Outcome:
    """The rule of the module docstring, for one patron and one entry."""
    if exact:
        if birth == Birth.SAME or (birth == Birth.UNKNOWN and place == Place.SAME):
            return Outcome.EXCLUDED
        if birth in (Birth.UNKNOWN, Birth.NEAR) or place >= Place.SIMILAR:
            return Outcome.REVIEW
        return Outcome.CLEAR
    if score >= NAME_SIMILAR and (birth >= Birth.NEAR or place >= Place.SIMILAR):
        return Outcome.REVIEW
    return Outcome.CLEAR


# --- reasons in words ------------------------------------------------------------------------------------


def name_reason(c: PersonName, e: PersonName, exact: bool, score: int) -> str:
    which = {"alias": "the alias", "part": "part of the compound surname of"}.get(e.kind, "the name")
    whose = "an alias of the patron, " if c.kind == "alias" else ""
    if exact:
        nickname = f" ({c.first} is read as {e.first})" if c.first != e.first and c.first and e.first else ""
        return (f"Name: {whose}{c.text!r} agrees with {which} {e.text!r} on the list once accents, case, "
                f"punctuation and suffixes are set aside{nickname}.")
    sounds = " (the surnames sound alike)" if phonetic(c.last) == phonetic(e.last) else ""
    return f"Name: {whose}{c.text!r} resembles {which} {e.text!r} on the list, {score}/100{sounds}."


def birth_reason(candidate: date | None, listed: date | None, birth: Birth) -> str:
    if birth == Birth.SAME:
        return f"Date of birth: the same, {listed}."
    if birth == Birth.NEAR:
        return f"Date of birth: {candidate} against {listed} on the list, one digit or a day/month swap apart."
    if birth == Birth.DIFFERENT:
        return f"Date of birth: {candidate} against {listed} on the list, different."
    missing = "the mailing record" if candidate is None else "the list entry"
    return f"Date of birth: none on {missing}, so it cannot tell the two apart."


def _place_words(key: str) -> str:
    street, _, where = key.partition("|")
    return f"{street}, {'ZIP ' if where.isdigit() else ''}{where}".rstrip(", ")


def place_reason(candidate: str, listed: str, place: Place) -> str:
    if place == Place.SAME:
        return f"Address: the same, {_place_words(listed)}."
    if place == Place.SIMILAR:
        return f"Address: {_place_words(candidate)} is close to {_place_words(listed)} on the list, same ZIP."
    if place == Place.DIFFERENT:
        return f"Address: {_place_words(candidate)} against {_place_words(listed)} on the list, different."
    missing = "the mailing record" if not candidate else "the list entry"
    return f"Address: none on {missing} to compare."
