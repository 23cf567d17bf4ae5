"""The catalogue of clauses this system implements, and how code cites them.

One row per obligation of ``shared/CLAUSES.md`` (the rows are data, in :mod:`compliance.clause_rows`) (58 Pa. Code, Part VII, Subpart K). Models, views
and reports cite clauses with references such as ``"525.21(j)"`` or ``"525.21(g)(5)"``;
:func:`cite` resolves a reference to its catalogue row and refuses one the catalogue does not hold,
so a typo in a citation fails at import time instead of printing a wrong clause on a Board document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from compliance.clause_rows import ROWS

__all__ = ["CATALOGUE", "Citation", "Clause", "cite", "clauses_matching", "recodification"]

CODE = "58 Pa. Code"


@dataclass(frozen=True)
class Clause:
    key: str  # as written in the catalogue, e.g. "525.21(b)(1)–(2)"
    obligation: str
    area: str
    capabilities: tuple[str, ...]
    anchors: tuple[str, ...] = field(default=())

    @property
    def label(self) -> str:
        return f"{CODE} § {self.key}"

    @property
    def chapter(self) -> str:
        return self.key.split(".", 1)[0]


@dataclass(frozen=True)
class Citation:
    """A reference as code wrote it, resolved against the catalogue."""

    ref: str
    clauses: tuple[Clause, ...]

    @property
    def label(self) -> str:
        return f"{CODE} § {self.ref}"

    @property
    def current(self) -> str:
        return recodification(self.ref)

    def __str__(self) -> str:
        return self.label


_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"]
_SECTION = re.compile(r"^(\d+[a-z]?\.\d+)")
_GROUP = re.compile(r"\(([0-9a-z]+)\)(?:–\(([0-9a-z]+)\))?")


def _expand(first: str, last: str | None) -> list[str]:
    if last is None:
        return [first]
    if first.isdigit() and last.isdigit():
        return [str(n) for n in range(int(first), int(last) + 1)]
    if first in _ROMAN and last in _ROMAN:
        return _ROMAN[_ROMAN.index(first) : _ROMAN.index(last) + 1]
    return [chr(c) for c in range(ord(first), ord(last) + 1)]


def _anchors(key: str) -> tuple[str, ...]:
    anchors: list[str] = []
    section = ""
    for piece in (p.strip() for p in key.split(",")):
        match = _SECTION.match(piece)
        if match:
            section = match.group(1)
            piece = piece[match.end() :]
        prefixes = [section]
        for first, last in _GROUP.findall(piece):
            prefixes = [f"{p}({part})" for p in prefixes for part in _expand(first, last or None)]
        anchors.extend(prefixes)
    return tuple(anchors)


def _c(key: str, obligation: str, area: str, capabilities: tuple[str, ...]) -> Clause:
    return Clause(key, obligation, area, capabilities, _anchors(key))


CATALOGUE: tuple[Clause, ...] = tuple(_c(*row) for row in ROWS)

# Chapters later recodified (public sources; shown beside the clause of the texts above).
_RECODIFIED = {"521": "601a", "525": "603a (§§ 603a.20–603a.21)", "577": "661a", "528": "613a"}


def recodification(ref: str) -> str:
    chapter = ref.split(".", 1)[0]
    now = _RECODIFIED.get(chapter)
    return f"now codified in {CODE} ch. {now}" if now else ""


def _matches(anchor: str, ref: str) -> bool:
    return anchor == ref or anchor.startswith(ref + "(") or ref.startswith(anchor + "(")


def clauses_matching(ref: str) -> tuple[Clause, ...]:
    """Catalogue rows a reference touches; the reference may itself be a range or list ("575.3(c)(1)–(2)")."""
    wanted = _anchors(ref) or (ref,)
    return tuple(c for c in CATALOGUE if any(_matches(a, w) for a in c.anchors for w in wanted))


@cache
def cite(ref: str) -> Citation:
    """Resolve ``ref`` ("525.21(j)", "575.3(c)(1)") or raise ``KeyError`` if the catalogue lacks it."""
    ref = ref.strip().removeprefix("§").strip()
    found = clauses_matching(ref)
    if not found:
        raise KeyError(f"{ref!r} is not in the citation catalogue (compliance/clause_rows.py)")
    return Citation(ref, found)
