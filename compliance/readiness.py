"""One answer to "may this table be open and take a wager now": every chapter's requirements of a table, met or
not, from one service every screen and the API ask (the board, the table page, Open, the dashboards, the
redemption API and table screen, the wager-limit pages).

Each domain app registers a *requirement source* in its ``AppConfig.ready`` (so the foundation imports no app):
a function given the facility, some of its tables and an instant, answering ``{table id: [Unmet, ...]}`` in a
fixed number of queries however many tables it is given. For a **closed** table a source says what must hold
before it opens; for an **open** table, what has stopped holding (a camera out, a dealer gone without relief, a
certification lapsed, dice overdue, limits withdrawn): an open table with anything unmet is *in breach* and must
be closed or the breach cured (``compliance.breaches`` records the period).

A regulation's requirement is never waived by a signature. Only a requirement the facility's own internal
controls add (``Unmet.overridable``) may be met by a signed override, which an *override consumer* (registered
by the app that keeps the override) takes when the table opens.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from compliance.after_response import after_response
from compliance.models import Facility, GamingTable

__all__ = [
    "Readiness",
    "Unmet",
    "facility_readiness",
    "facility_readiness_now",
    "generation_bump",
    "open_refusal",
    "register_override_consumer",
    "register_source",
    "sources",
    "table_readiness",
    "table_readiness_now",
    "tables_readiness",
    "watched_models",
]


@dataclass(frozen=True)
class Unmet:
    """One requirement a table does not meet now."""

    code: str  # stable: "equipment:dice", "staffing:three-dealers", "cameras", "limits", "provider:12"
    clause: str  # "577.9(b)"; "" only for a facility's internal control with no clause of the seeds
    words: str  # the sentence a person reads, naming the clause and the way out
    short: str  # what a board cell shows: "new dice", "three dealers"
    who: str  # who can meet it: "a floorperson", "surveillance", "the compliance officer"
    link: str = ""  # where they meet it
    overridable: bool = False  # only the facility's own internal controls: a signed override may meet it


@dataclass(frozen=True)
class Readiness:
    """A table's state at one instant, and every requirement it does not meet."""

    table_id: int
    number: str
    is_open: bool
    at: datetime
    unmet: tuple[Unmet, ...] = ()

    @property
    def ready(self) -> bool:
        """Closed: may open now. Open: may keep gaming (no breach)."""
        return not self.unmet

    @property
    def in_breach(self) -> bool:
        return self.is_open and bool(self.unmet)

    @property
    def takes_wagers(self) -> bool:
        """Open and every requirement met: the table may take a wager (a coupon's redemption) now."""
        return self.is_open and not self.unmet

    @property
    def blocking(self) -> tuple[Unmet, ...]:
        """What no override meets: every regulation's requirement."""
        return tuple(u for u in self.unmet if not u.overridable)

    @property
    def verdict(self) -> str:
        """"open", "breach", "ready" or "not-ready"."""
        if self.is_open:
            return "breach" if self.unmet else "open"
        return "not-ready" if self.unmet else "ready"

    @property
    def verdict_words(self) -> str:
        count = len(self.unmet)
        if self.is_open:
            return "Open" if not count else f"Open in breach of {count} requirement{'s' if count != 1 else ''}: " \
                                             "close the table or cure the breach"
        return "Ready to open" if not count else f"Not ready: {count} requirement{'s' if count != 1 else ''} unmet"

    @property
    def tone(self) -> str:
        return {"open": "ok", "ready": "ok", "breach": "alert", "not-ready": "warn"}[self.verdict]

    def sentence(self) -> str:
        """Every unmet requirement's words, in the order the sources gave them."""
        return " ".join(u.words for u in self.unmet)


Source = Callable[[Facility, Sequence[GamingTable], datetime], Mapping[int, Sequence[Unmet]]]
OverrideConsumer = Callable[[GamingTable, datetime, Any, Sequence[Unmet]], "Sequence[str]"]


@dataclass
class _Registered:
    name: str
    source: Source
    models: tuple[type, ...] = field(default_factory=tuple)


_SOURCES: list[_Registered] = []
_CONSUMERS: list[OverrideConsumer] = []


def register_source(name: str, source: Source, *, models: Iterable[type] = ()) -> None:
    """Add a requirement source (once per name). ``models``: the records whose writes can change its answer."""
    for registered in _SOURCES:
        if registered.name == name:
            registered.source, registered.models = source, tuple(models)
            return
    _SOURCES.append(_Registered(name, source, tuple(models)))


def sources() -> list[str]:
    return [r.name for r in _SOURCES]


_WATCHED: dict[tuple[object, ...], frozenset[type]] = {}


def watched_models() -> frozenset[type]:
    """Every record whose writes can change some table's readiness (``compliance.breaches`` listens on every save,
    so the set is kept per registry, not rebuilt)."""
    key = tuple((id(r), *r.models) for r in _SOURCES)
    found = _WATCHED.get(key)
    if found is None:
        found = _WATCHED[key] = frozenset(m for r in _SOURCES for m in r.models) | {GamingTable}
    return found


def register_override_consumer(consumer: OverrideConsumer) -> None:
    """``consumer(table, at, user, overridable unmet)`` marks a signed override used by this opening and returns
    the codes it meets (none: no override there)."""
    if consumer not in _CONSUMERS:
        _CONSUMERS.append(consumer)


def _tables(tables: Iterable[GamingTable]) -> list[GamingTable]:
    """The tables as the database has them now (open or closed, their game): one query, never a caller's stale
    copy."""
    ids = [t.pk for t in tables]
    by_id = {t.pk: t for t in GamingTable.objects.filter(pk__in=ids).select_related("game")}
    return [by_id[pk] for pk in ids if pk in by_id]


def tables_readiness(facility: Facility, tables: Iterable[GamingTable], at: datetime | None = None
                     ) -> dict[int, Readiness]:
    """The readiness of ``tables`` (all of ``facility``) at ``at``: each source asked once for all of them."""
    at = at or timezone.now()
    listed = [t for t in _tables(tables) if t.facility_id == facility.pk]
    found: dict[int, list[Unmet]] = {t.pk: [] for t in listed}
    if listed:
        for registered in _SOURCES:
            for table_id, unmet in registered.source(facility, listed, at).items():
                if table_id in found:
                    found[table_id].extend(unmet)
    return {t.pk: Readiness(t.pk, t.number, t.is_open, at, tuple(found[t.pk])) for t in listed}


def facility_readiness(facility: Facility, at: datetime | None = None) -> dict[int, Readiness]:
    """Every table of the facility, in a fixed number of queries."""
    tables = GamingTable.objects.filter(facility=facility).select_related("game").order_by("pit", "number")
    return tables_readiness(facility, tables, at)


def table_readiness(table: GamingTable, at: datetime | None = None) -> Readiness:
    """One table's readiness: what every screen shows and what Open and a redemption obey."""
    facility = table.facility
    return tables_readiness(facility, [table], at)[table.pk]


def open_refusal(table: GamingTable, at: datetime, user: Any) -> str | None:
    """Why ``table`` may not open at ``at`` (every unmet requirement, each with its clause), or None.

    Only requirements of the facility's own internal controls may be met by a signed override; a consumer
    marks the override used inside the opening's transaction. A regulation's requirement never is."""
    state = table_readiness(table, at)
    if not state.unmet:
        return None
    blocking = list(state.blocking)
    overridable = [u for u in state.unmet if u.overridable]
    if overridable and not blocking:
        met: set[str] = set()
        for consumer in _CONSUMERS:
            met |= set(consumer(table, at, user, overridable))
        overridable = [u for u in overridable if u.code not in met]
        if not overridable:
            return None
    return f"Table {table.number} cannot open: " + " ".join(u.words for u in [*blocking, *overridable])


# --- the hot path: a redemption asks many times a second ---------------------------------------------------------
#
# The verdict of one table is kept in the cache under the facility's *generation*, which every write to a record a
# source reads bumps (``compliance.breaches``' receiver: at the write and again after commit, so a verdict computed
# between the two is never kept as current), and under a 5-second bucket of the clock, so what time alone changes
# (dice overdue, a limit change's minute) is seen within seconds. The answer is the same service's; only its
# reuse is bounded.
#
# When a bucket turns, the scan that finds no verdict of the new bucket but one of the last, of the same generation
# (nothing it reads was written since), is answered with that one, and the facility's verdicts are computed again
# once the answer has gone (compliance.after_response), by one process (a key added to the cache says which): so no
# scan waits for the whole floor's verdicts (one table: about 15 ms; 200 tables: far more), and the workers do not
# all compute them at the same moment (issue 27: every worker did, every five seconds, and the redemptions' p99 at
# 300 a second was their wait). A verdict is so at most two buckets old (10 s) — still "within seconds" — and after
# any write it is never reused: a new generation is computed at once, in the scan that finds it.

CACHE_SECONDS = 5


def _generation_key(facility_id: int) -> str:
    return f"readiness:generation:{facility_id}"


def generation_bump(facility_id: int | None) -> None:
    """Every cached verdict of the facility (None: of every facility) is out of date."""
    from django.core.cache import cache

    if facility_id is None:
        for pk in Facility.objects.values_list("pk", flat=True):
            generation_bump(pk)
        return
    key = _generation_key(facility_id)
    try:
        cache.incr(key)
    except ValueError:  # never set, or evicted: a value no earlier generation had
        cache.set(key, _fresh_generation(), None)


def _fresh_generation() -> int:
    """A generation no verdict kept in the cache can carry: the clock in nanoseconds. Counting from 1 again after the
    cache lost the key (evicted: the embedded file cache culls a third of its files past 300) could meet a verdict
    computed before a write under the same number."""
    return time.time_ns()


def _generation(found: object, facility_id: int) -> int:
    """The facility's generation as read (``found``), or, if the cache has none, a fresh one set now (``add``:
    of two workers finding none at once, both read the one that won)."""
    from django.core.cache import cache

    if isinstance(found, int):
        return found
    key = _generation_key(facility_id)
    cache.add(key, _fresh_generation(), None)
    value = cache.get(key)
    return value if isinstance(value, int) else _fresh_generation()


def table_readiness_now(table: GamingTable) -> Readiness:
    """:func:`table_readiness` now, reused for at most a few seconds while nothing it reads was written.

    A verdict is kept with the generation it was computed under, and both are read in one round trip (a redemption
    asks on every scan): a verdict of another generation is computed again. One table found wanting computes every
    table of its facility at once (:func:`facility_readiness`, each source asked once for all of them) and keeps each:
    a floor of 200 tables scanning computes its verdicts once every few seconds, not 200 times."""
    from django.core.cache import cache

    at = timezone.now()
    generation_key = _generation_key(table.facility_id)
    bucket = int(at.timestamp()) // CACHE_SECONDS
    this, last = _verdict_key(table.facility_id, table.pk, bucket), _verdict_key(table.facility_id, table.pk, bucket - 1)
    found = cache.get_many([generation_key, this, last])
    generation = _generation(found.get(generation_key), table.facility_id)
    kept = _of_generation(found.get(this), generation)
    if kept is not None:
        return kept
    earlier = _of_generation(found.get(last), generation)
    if earlier is not None:  # the bucket has just turned and nothing was written: answer now, compute after
        if cache.add(f"readiness:{table.facility_id}:{generation}:computing:{bucket}", 1, CACHE_SECONDS * 2):
            after_response(functools.partial(_keep_facility_verdicts, table.facility, generation, bucket))
        return earlier
    return _keep_facility_verdicts(table.facility, generation, bucket).get(table.pk) or table_readiness(table, at)


def _of_generation(kept: object, generation: int) -> Readiness | None:
    """A kept verdict, if it was computed under ``generation``."""
    if isinstance(kept, tuple) and len(kept) == 2 and kept[0] == generation and isinstance(kept[1], Readiness):
        return kept[1]
    return None


def _keep_facility_verdicts(facility: Facility, generation: int, bucket: int) -> dict[int, Readiness]:
    """Every table's verdict now, kept for ``bucket`` under ``generation`` (read before computing: a write meanwhile
    bumps it, and the verdicts kept under the old one are never reused). The facility's whole answer of this bucket
    and generation is reused if a screen computed it already (one computation a bucket, whichever of the two kinds
    of caller asks first)."""
    from django.core.cache import cache

    states = facility_readiness_now(facility)
    cache.set_many({_verdict_key(facility.pk, pk, bucket): (generation, each) for pk, each in states.items()},
                   CACHE_SECONDS * 2)
    return states


def facility_readiness_now(facility: Facility, every_table: Iterable[GamingTable] | None = None
                           ) -> dict[int, Readiness]:
    """:func:`facility_readiness` now, reused like :func:`table_readiness_now` (the facility's generation, a
    few-second bucket of the clock): the live screens — each role's dashboard panels, the table board, the table
    chooser — ask it several times a request and every few seconds, and over a large floor each answer reads the whole
    floor (issue 27: a dashboard computed it three times, 0.5 s each at 200 tables). ``every_table``: the facility's
    tables, when the caller has read them all already (the board), to spare reading them again."""
    from django.core.cache import cache

    at = timezone.now()
    generation = _generation(cache.get(_generation_key(facility.pk)), facility.pk)
    key = f"readiness:{facility.pk}:{generation}:all:{int(at.timestamp()) // CACHE_SECONDS}"
    found = cache.get(key)
    if isinstance(found, dict):
        return found
    states = facility_readiness(facility, at) if every_table is None else tables_readiness(facility, every_table, at)
    cache.set(key, states, CACHE_SECONDS * 2)
    return states


def _verdict_key(facility_id: int, table_id: int, bucket: int) -> str:
    return f"readiness:{facility_id}:{table_id}:{bucket}"
