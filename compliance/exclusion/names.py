"""Names and addresses as the exclusion screening compares them (§ 525.21(q)(7)). Pure: no Django.

A name is *folded* (accents stripped through Unicode decomposition, letters such as ø and ł spelled in
ASCII, case-folded, apostrophes dropped so O'Brien is obrien, every other mark a space), titles (Mr, Dr)
and suffixes (Jr, Sr, III) are dropped, and it is split into a given name, middle names and a surname.
The surname is *compacted*: its words joined (van der Berg, Van Der Berg and Vanderberg are one surname;
Garcia-Lopez is garcialopez). Given names are compared through their full forms (:data:`NICKNAMES`: Bob
is Robert). Phonetic keys are Metaphone codes (jellyfish): Steven and Stephen, Smith and Smyth agree.

An address is folded the same way, street words abbreviated (Street → st, Apartment → apt, North → n),
state names written as their postal codes, and reduced to a key: the street line and the 5-digit ZIP.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

import jellyfish

from compliance.exclusion.nicknames import NICKNAMES

__all__ = [
    "PersonName",
    "address_key",
    "entry_names",
    "fold",
    "given_forms",
    "names_from_text",
    "parse_name",
    "phonetic",
    "serialise_names",
]

TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "rev", "sir", "prof", "fr", "hon"})
SUFFIXES = frozenset({"jr", "jnr", "sr", "snr", "ii", "iii", "iv", "2nd", "3rd", "4th", "esq", "md", "phd", "dds"})
# Words that belong to the surname that follows them (Ludwig van Beethoven's surname is van Beethoven).
PARTICLES = frozenset({
    "van", "von", "de", "der", "den", "del", "della", "da", "di", "du", "la", "le", "dos", "das", "st", "ter",
    "ten", "mac", "mc", "al", "el", "bin", "ibn", "ap",
})
_SPELLED = str.maketrans({
    "ø": "o", "Ø": "o", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ł": "l", "Ł": "l", "đ": "d", "Đ": "d",
    "ð": "d", "þ": "th", "Þ": "th", "ı": "i", "ß": "ss", "'": "", "’": "", "‘": "", "`": "", "´": "",
    "#": " apt ",
})
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")  # one space for each run of anything else
_NOT_ALNUM_OR_COMMA = re.compile(r"[^a-z0-9,]+")


def _plain(text: str) -> str:
    """``text`` in ASCII, lower case, apostrophes dropped and ``#`` read as "apt" (marks still in place)."""
    if text.isascii():  # most text: a few quick replacements instead of a character-by-character table
        if "'" in text or "`" in text:
            text = text.replace("'", "").replace("`", "")
        if "#" in text:
            text = text.replace("#", " apt ")
        return text.lower()
    text = text.translate(_SPELLED)
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()


def fold(text: str) -> str:
    """``text`` in lower-case ASCII words separated by single spaces: accents, case and marks gone."""
    return _NOT_ALNUM.sub(" ", _plain(text)).strip()


class PersonName(NamedTuple):
    """One way of writing a person's name, folded. ``kind``: "name" (as written), "alias" (an alias the
    list gives), "part" (one word of a compound surname: agreement on it is never an exact match)."""

    first: str
    middles: tuple[str, ...]
    last: str
    kind: str = "name"

    @property
    def text(self) -> str:
        if self.middles:
            return " ".join(p for p in (self.first, *self.middles, self.last) if p)
        return f"{self.first} {self.last}" if self.first else self.last

    @property
    def short(self) -> str:
        """Given name and surname: what the same-birthday sift compares."""
        return f"{self.first} {self.last}" if self.first else self.last


def _words(text: str) -> list[str]:
    words = fold(text).split()
    while words and words[0] in TITLES and len(words) > 1:
        words.pop(0)
    return [w for i, w in enumerate(words) if i == 0 or w not in SUFFIXES]


def _split_plain(words: list[str], kind: str) -> list[PersonName]:
    """"Given middle surname": the last word, with the particles before it, is the surname."""
    if not words:
        return []
    if len(words) == 1:
        return [PersonName("", (), words[0], kind)]
    start = len(words) - 1
    while start > 1 and words[start - 1] in PARTICLES:
        start -= 1
    names = [PersonName(words[0], tuple(words[1:start]), "".join(words[start:]), kind)]
    if start == len(words) - 1 and len(words) >= 3 and len(words[-2]) > 1 and words[-2] not in PARTICLES:
        # "Mary Smith Jones" may be Mary Smith-Jones: the last two words as one surname too.
        names.append(PersonName(words[0], tuple(words[1:-2]), "".join(words[-2:]), kind))
    return names


def parse_name(text: str, kind: str = "name") -> list[PersonName]:
    """The ways ``text`` ("Robert J. Smith Jr.", "Smith, Robert J", "José Álvarez-Núñez") names a person."""
    if "," in text:
        surname, _, given = text.partition(",")
        last_words = [w for w in fold(surname).split() if w not in SUFFIXES]
        given_words = [w for w in _words(given) if w not in SUFFIXES]
        if last_words and given_words:
            return [PersonName(given_words[0], tuple(given_words[1:]), "".join(last_words), kind)]
        text = f"{given} {surname}"
    return _split_plain(_words(text), kind)


def entry_names(first: str, middle: str, last: str, aliases: list[str]) -> list[PersonName]:
    """The ways a list entry (CSV columns first_name, middle_name, last_name, aliases) names its person."""
    given = _words(first)
    surname_words = [w for w in fold(last).split() if w not in SUFFIXES]
    surname = "".join(surname_words)
    middles = tuple(given[1:]) + tuple(fold(middle).split())
    names = [PersonName(given[0] if given else "", middles, surname, "name")] if surname else []
    parts = [w for w in surname_words if w not in PARTICLES]
    if len(parts) >= 2:
        names.extend(PersonName(names[0].first, middles, part, "part") for part in parts)
    for alias in aliases:
        alias_words = _words(alias)
        if len(alias_words) == 1 and surname:
            # An alias of one word is a given name the person goes by ("Bobby").
            names.append(PersonName(alias_words[0], (), surname, "alias"))
        else:
            names.extend(parse_name(alias, "alias"))
    return _unique(names)


def _unique(names: list[PersonName]) -> list[PersonName]:
    seen: set[tuple[str, tuple[str, ...], str]] = set()
    kept = []
    for name in names:
        key = (name.first, name.middles, name.last)
        if key not in seen and name.last:
            seen.add(key)
            kept.append(name)
    return kept


def serialise_names(names: list[PersonName]) -> str:
    """Names as one stored text (the entry's ``name_keys``): a line each, ``kind|first|middles|last``."""
    return "\n".join(f"{n.kind}|{n.first}|{' '.join(n.middles)}|{n.last}" for n in names)


def names_from_text(stored: str) -> list[PersonName]:
    names = []
    for line in stored.split("\n"):
        kind, first, middles, last = line.split("|")
        names.append(PersonName(first, tuple(middles.split()) if middles else (), last, kind))
    return names


@lru_cache(maxsize=65536)
def given_forms(given: str) -> frozenset[str]:
    """The full forms of a folded given name: itself and what it is a nickname of."""
    return frozenset((given, *NICKNAMES.get(given, ())))


@lru_cache(maxsize=262144)
def phonetic(word: str) -> str:
    """The word's Metaphone code (its first letters when it has none, e.g. a number)."""
    if not word:
        return ""
    return jellyfish.metaphone(word) or word[:4]


# --- addresses --------------------------------------------------------------------------------------------

_ADDRESS_WORDS = {
    "street": "st", "str": "st", "avenue": "ave", "av": "ave", "road": "rd", "drive": "dr", "lane": "ln",
    "boulevard": "blvd", "court": "ct", "place": "pl", "terrace": "ter", "circle": "cir", "highway": "hwy",
    "parkway": "pkwy", "pike": "pk", "square": "sq", "apartment": "apt", "unit": "apt", "suite": "ste",
    "floor": "fl", "building": "bldg", "north": "n", "south": "s", "east": "e", "west": "w", "northeast": "ne",
    "northwest": "nw", "southeast": "se", "southwest": "sw", "mount": "mt", "fort": "ft", "route": "rt",
    "first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th", "post": "po",
}
_STATES = {
    "alabama": "al", "alaska": "ak", "arizona": "az", "arkansas": "ar", "california": "ca", "colorado": "co",
    "connecticut": "ct", "delaware": "de", "district of columbia": "dc", "florida": "fl", "georgia": "ga",
    "hawaii": "hi", "idaho": "id", "illinois": "il", "indiana": "in", "iowa": "ia", "kansas": "ks",
    "kentucky": "ky", "louisiana": "la", "maine": "me", "maryland": "md", "massachusetts": "ma", "michigan": "mi",
    "minnesota": "mn", "mississippi": "ms", "missouri": "mo", "montana": "mt", "nebraska": "ne", "nevada": "nv",
    "new hampshire": "nh", "new jersey": "nj", "new mexico": "nm", "new york": "ny", "north carolina": "nc",
    "north dakota": "nd", "ohio": "oh", "oklahoma": "ok", "oregon": "or", "pennsylvania": "pa",
    "rhode island": "ri", "south carolina": "sc", "south dakota": "sd", "tennessee": "tn", "texas": "tx",
    "utah": "ut", "vermont": "vt", "virginia": "va", "washington": "wa", "west virginia": "wv",
    "wisconsin": "wi", "wyoming": "wy",
}
_STATE_CODES = frozenset(_STATES.values())
_ZIP_AT_END = re.compile(r"(?:^|\s)(\d{5})(?:\s\d{4})?$")
_UNIT_WORDS = frozenset({"apt", "apartment", "unit", "suite", "ste"})


def _street_words(folded: str) -> str:
    return " ".join([_ADDRESS_WORDS.get(w, w) for w in folded.split()])


def _without_state(words: list[str]) -> list[str]:
    """``words`` without a state written last (a postal code, or a name such as "new york")."""
    if words and words[-1] in _STATE_CODES:
        return words[:-1]
    for size in (3, 2, 1):
        if len(words) > size and " ".join(words[-size:]) in _STATES:
            return words[:-size]
    return words


def _folded_parts(address: str) -> list[str]:
    """The comma-separated parts of ``address``, each folded (one pass over the whole text)."""
    return [part for part in (p.strip() for p in _NOT_ALNUM_OR_COMMA.sub(" ", _plain(address)).split(",")) if part]


def address_key(address: str) -> str:
    """``street|zip5`` for an address written on one line ("12 Main Street, Apt 4, Harrisburg, PA
    17101-1234"); ``street|rest`` without a ZIP; "" with no street number at all (nothing to compare)."""
    parts = _folded_parts(address)
    if not parts:
        return ""
    whole = " ".join(parts)
    found = _ZIP_AT_END.search(whole)
    zip5 = found.group(1) if found else ""
    if len(parts) > 1:
        street = _street_words(parts[0])
        if len(parts) > 2 and parts[1].split(" ", 1)[0] in _UNIT_WORDS:
            street = f"{street} {_street_words(parts[1])}"
    else:
        street = _street_words(" ".join(_without_state(whole[: found.start()].split() if found else whole.split())))
    if not any(c.isdigit() for c in street):
        return ""  # a city or a name with no house number or box: nothing to compare
    if zip5:
        return f"{street}|{zip5}"
    return f"{street}|{_street_words(' '.join(_without_state(' '.join(parts[1:]).split())))}"
