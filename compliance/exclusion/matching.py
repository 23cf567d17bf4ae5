"""The screening engine: which patrons of a mailing are on an exclusion list (§ 525.21(q)(7)). Pure: no Django.

Each :class:`Candidate` (a patron a mailing would reach) is compared with the entries of the lists in
force (:class:`ListEntry`, keys stored at import) and gets one :class:`Outcome` — ``EXCLUDED``, ``REVIEW``
or ``CLEAR`` — by the rule of :mod:`compliance.exclusion.rule`, with the entry that decided it, the name
score and the reasons in words (:class:`Screening`).

No patron is compared with every entry. :class:`ExclusionIndex` indexes the entries by blocking keys —
the Metaphone code of the surname with that of each full form of the given name (or its initial), the date
of birth, and the address — and a patron is compared only with the entries sharing a key; those sharing
only a date of birth are first sifted with one vectorised edit-distance call. Every pair the rule could
call more than CLEAR shares a key: an exact name shares the name key; a similar name needs the same date
of birth (the birth key), or the same address (the address key), or sounds alike (the name key). Left out:
a similar name whose surname sounds different, supported only by a near date of birth or a similar (not
the same) address.
A large mailing is screened on every core (:meth:`ExclusionIndex.screen_all`).
"""

from __future__ import annotations

import gc
import multiprocessing
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import NamedTuple

from rapidfuzz import fuzz, process

from compliance.exclusion.names import (
    PersonName,
    address_key,
    given_forms,
    names_from_text,
    parse_name,
    phonetic,
    serialise_names,
)
from compliance.exclusion.rule import (
    NAME_SIMILAR,
    RANK,
    Birth,
    Outcome,
    Place,
    birth_evidence,
    birth_reason,
    judge,
    name_exact,
    name_reason,
    name_score,
    place_evidence,
    place_reason,
)

__all__ = [
    "NAME_SIMILAR",
    "Candidate",
    "ExclusionIndex",
    "ListEntry",
    "Outcome",
    "Screening",
    "block_keys",
    "candidate_names",
    "collector_paused",
    "short_names",
]

_SIFT = 60  # a same-birthday entry whose name sorts this far from the patron's is not looked at again


@dataclass(frozen=True)
class Candidate:
    """A patron a mailing would reach. ``key`` is the caller's own identifier (a player's club number)."""

    key: str
    full_name: str
    date_of_birth: date | None
    address: str
    aliases: tuple[str, ...] = ()


class ListEntry(NamedTuple):
    """An entry of a list in force as stored at import (``id``: the stored entry's primary key): its names
    as :func:`~compliance.exclusion.names.serialise_names` wrote them, its date of birth, its address key,
    its blocking keys (:func:`block_keys`) and its names as given name and surname (:func:`short_names`).
    The index parses the names only of the entries it compares."""

    id: int
    name_keys: str
    date_of_birth: date | None
    address_key: str
    block_keys: str
    short_names: str

    @classmethod
    def of(cls, pk: int, names: Sequence[PersonName], born: date | None, address: str) -> ListEntry:
        return cls(pk, serialise_names(list(names)), born, address, " ".join(block_keys(names)), short_names(names))


@dataclass(frozen=True)
class Screening:
    """What the engine found for one candidate: the outcome, the entry that decided it (none when clear),
    the name score (0–100), the reasons in words, and other entries that gave the same outcome."""

    candidate: Candidate
    outcome: Outcome
    entry_id: int | None = None
    score: int = 0
    reasons: tuple[str, ...] = ()
    also: tuple[int, ...] = ()


def candidate_names(candidate: Candidate) -> list[PersonName]:
    names = parse_name(candidate.full_name)
    surname = names[0].last if names else ""
    for alias in candidate.aliases:
        alias_names = parse_name(alias, "alias")
        if len(alias_names) == 1 and not alias_names[0].first and surname:
            alias_names = [PersonName(alias_names[0].last, (), surname, "alias")]
        names.extend(alias_names)
    return names


# --- the index -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Pair:
    outcome: Outcome
    score: int
    entry: ListEntry
    name: PersonName
    listed: PersonName
    birth: Birth
    place: Place

    @property
    def rank(self) -> tuple[int, int, int, int]:
        return (RANK[self.outcome], self.birth, self.place, self.score)


def _surname_keys(name: PersonName) -> tuple[str, str]:
    """The name's key by full given names (``n:``) and by initial (``i:``)."""
    surname = phonetic(name.last)
    return f"n:{surname}:", f"i:{surname}:"


def block_keys(names: Sequence[PersonName]) -> list[str]:
    """An entry's blocking keys: the surname's sound with each full form of the given name's sound
    (``n:SM0:RBRT``; an initial or no given name as written, ``n:SM0:r``), and with the initial (``i:SM0:r``)."""
    keys: dict[str, None] = {}
    for name in names:
        by_name, by_initial = _surname_keys(name)
        if len(name.first) > 1:
            keys.update((f"{by_name}{phonetic(form)}", None) for form in given_forms(name.first))
        else:
            keys[f"{by_name}{name.first}"] = None
        if name.first:
            keys[f"{by_initial}{name.first[0]}"] = None
    return list(keys)


@lru_cache(maxsize=131072)
def _lookup_keys(first: str, last: str) -> tuple[str, ...]:
    """The keys a patron's name looks up: its full given names, an entry written with only the initial,
    and — when the patron gives only an initial — every entry with that initial."""
    by_name, by_initial = _surname_keys(PersonName(first, (), last))
    if len(first) > 1:
        return (*(f"{by_name}{phonetic(form)}" for form in given_forms(first)), f"{by_name}{first[0]}")
    if first:
        return (f"{by_initial}{first}",)
    return (by_name,)


def short_names(names: Sequence[PersonName]) -> str:
    """Given name and surname of each name, a line each: what the same-birthday sift compares."""
    return "\n".join(name.short for name in names)


class ExclusionIndex:
    """The entries of the lists in force, indexed for screening. Build it once per screening run."""

    def __init__(self, entries: Iterable[ListEntry | tuple[int, str, date | None, str, str, str]]) -> None:
        """``entries``: :class:`ListEntry` values, or plain tuples of the same six fields (as the database
        returns them)."""
        self.entries: list[tuple[int, str, date | None, str, str, str]] = list(entries)
        self._names: dict[int, list[PersonName]] = {}
        self._by_key: dict[str, list[int]] = defaultdict(list)
        self._by_birth: dict[date, tuple[list[str], list[int]]] = {}
        self._by_address: dict[str, list[int]] = defaultdict(list)
        by_key, by_birth, by_address = self._by_key, self._by_birth, self._by_address
        for position, (_, name_keys, born, address, keys, shorts) in enumerate(self.entries):
            for key in (keys or " ".join(block_keys(names_from_text(name_keys)))).split():
                by_key[key].append(position)
            if born is not None:
                texts, positions = by_birth.get(born) or by_birth.setdefault(born, ([], []))
                if "\n" in shorts:
                    more = shorts.split("\n")
                    texts.extend(more)
                    positions.extend([position] * len(more))
                else:
                    texts.append(shorts)
                    positions.append(position)
            if address:
                by_address[address].append(position)

    def __len__(self) -> int:
        return len(self.entries)

    def _names_of(self, position: int) -> list[PersonName]:
        names = self._names.get(position)
        if names is None:
            names = self._names[position] = names_from_text(self.entries[position][1])  # name_keys
        return names

    def _blocked(self, names: Sequence[PersonName], born: date | None, address: str) -> set[int]:
        """The entries sharing a blocking key with the patron: all this patron is compared with."""
        found: set[int] = set()
        by_key = self._by_key
        for name in names:
            for key in _lookup_keys(name.first, name.last):
                found.update(by_key.get(key, ()))
        if born is not None and born in self._by_birth:
            texts, positions = self._by_birth[born]
            for name in names:
                for _, _, at in process.extract(name.short, texts, scorer=fuzz.token_sort_ratio, limit=None,
                                                score_cutoff=_SIFT):
                    found.add(positions[at])
        if address:
            found.update(self._by_address.get(address, ()))
        return found

    def _compare(self, candidate: Candidate, names: Sequence[PersonName], address: str,
                 position: int) -> _Pair | None:
        """The strongest outcome between the patron and the entry, ``None`` when it can only be CLEAR.

        The evidence is weighed first: with a different date of birth and no like address nothing makes a
        pair more than CLEAR, and without a date of birth or address to support it only an exact name can."""
        entry = ListEntry._make(self.entries[position])
        birth = birth_evidence(candidate.date_of_birth, entry.date_of_birth)
        place = place_evidence(address, entry.address_key)
        if birth == Birth.DIFFERENT and place < Place.SIMILAR:
            return None
        supported = birth >= Birth.NEAR or place >= Place.SIMILAR
        best: _Pair | None = None
        for name in names:
            for listed in self._names_of(position):
                exact = name_exact(name, listed)
                if not (exact or supported):
                    continue
                score = 100 if exact else name_score(name, listed)
                outcome = judge(exact, score, birth, place)
                if outcome == Outcome.CLEAR:
                    continue
                pair = _Pair(outcome, score, entry, name, listed, birth, place)
                if best is None or pair.rank > best.rank:
                    best = pair
        return best

    def screen(self, candidate: Candidate) -> Screening:
        names = candidate_names(candidate)
        address = address_key(candidate.address)
        compared = (self._compare(candidate, names, address, at)
                    for at in sorted(self._blocked(names, candidate.date_of_birth, address)))
        pairs = [p for p in compared if p is not None]
        if not pairs:
            return Screening(candidate, Outcome.CLEAR)
        pairs.sort(key=lambda p: p.rank, reverse=True)
        top = pairs[0]
        reasons: tuple[str, ...] = (
            name_reason(top.name, top.listed, name_exact(top.name, top.listed), top.score),
            birth_reason(candidate.date_of_birth, top.entry.date_of_birth, top.birth),
            place_reason(address, top.entry.address_key, top.place),
        )
        also = tuple(p.entry.id for p in pairs[1:] if p.outcome == top.outcome)
        if also:
            reasons += (f"Also resembles {len(also)} other list entr{'y' if len(also) == 1 else 'ies'}.",)
        return Screening(candidate, top.outcome, top.entry.id, top.score, reasons, also)

    def screen_all(self, candidates: Iterable[Candidate], *, workers: int = 1) -> list[Screening]:
        """Every candidate screened, in order. With ``workers`` > 1 a large mailing is split among that
        many forked processes, which read the index their parent built (nothing is copied to them but the
        slice bounds; only the excluded and review outcomes come back). Where no process can be forked (a
        daemonic worker, a platform without fork) the candidates are screened here, one after another."""
        candidates = list(candidates)
        if workers > 1 and len(candidates) >= PARALLEL_FROM:
            found = self._screen_forked(candidates, workers)
            if found is not None:
                return found
        return [self.screen(candidate) for candidate in candidates]

    def _screen_forked(self, candidates: list[Candidate], workers: int) -> list[Screening] | None:
        global _FORKED
        try:
            context = multiprocessing.get_context("fork")
        except ValueError:
            return None
        size = -(-len(candidates) // (workers * 4))
        slices = [(start, min(start + size, len(candidates))) for start in range(0, len(candidates), size)]
        _FORKED = (self, candidates)
        gc.freeze()  # the workers' collector leaves the index alone: no time spent, no pages copied
        try:
            with context.Pool(workers) as pool:
                parts = pool.map(_screen_slice, slices)
        except (OSError, AssertionError):  # "daemonic processes are not allowed to have children", no memory
            return None
        finally:
            gc.unfreeze()
            _FORKED = None
        screenings = [Screening(candidate, Outcome.CLEAR) for candidate in candidates]
        for part in parts:
            for at, found in part:
                screenings[at] = found
        return screenings


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while hundreds of thousands of long-lived rows are built: it
    would walk them all again and again for nothing (none of them forms a cycle). Back on afterwards."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


PARALLEL_FROM = 20_000  # smaller mailings are screened in the calling process: forking costs more than it saves
_FORKED: tuple[ExclusionIndex, list[Candidate]] | None = None  # what the forked workers read


def _screen_slice(bounds: tuple[int, int]) -> list[tuple[int, Screening]]:
    """In a forked worker: the candidates of ``bounds`` that are not clear, with their positions."""
    assert _FORKED is not None
    index, candidates = _FORKED
    found = []
    for at in range(*bounds):
        screening = index.screen(candidates[at])
        if screening.outcome != Outcome.CLEAR:
            found.append((at, screening))
    return found
