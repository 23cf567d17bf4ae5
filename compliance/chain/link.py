"""Joining sealed rows to their chains: one chain per facility and sealed model, the work linear in the rows.

:func:`chain_link` (beat every minute, and on demand) reads a model's rows above its *floor* (every row
at or below it is linked) that no link above the floor covers yet (the gaps between the links' runs of ids, found
by probing the primary key's index at each gap's ends, not by reading every id), once, in id order, and files
each one's digest in its facility's chain, a link per 50,000 rows or per run. Each link keeps the
digests, their SHA-256 with the chain, sequence, previous hash and ids (``link_hash``: anyone holding the
rows can recompute it, no key needed) and that hash sealed with the key (``link_mac``).

A row whose transaction commits after a higher id was linked is found by the next run (it scans above the
floor); the floor rises only past links older than every transaction still running, so no row is lost or
linked twice. Linkers of one model take turns (a PostgreSQL advisory lock: the application's role may only
read and add chain links); an insert never waits for a linker.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import Max, Q
from django.utils import timezone

from compliance.chain.rows import read_value_runs, row_reader, rows_in_spans, sealed_models
from compliance.models import ChainLink, Facility, Sealed
from compliance.models.chain import encode_ids, row_digest
from compliance.seal_keys import seal_of

__all__ = ["BATCH", "LINKS_AT_ONCE", "Coverage", "chain_heads", "chain_link", "chain_link_all", "chain_link_digests",
           "link_hash_of", "runs_of"]

BATCH = 50_000
# Links fetched at once where their digests are read: a full link's are 1.6 MB (32 bytes a row), held by the
# database driver outside Python until the next fetch.
LINKS_AT_ONCE = 4
# How long before the oldest running transaction a link must be for the floor to pass it.
MARGIN = timedelta(seconds=60)
LAST_ID = 2**63 - 1  # a bigint key's largest


def link_hash_of(chain: str, sequence: int, previous: str, ids: str, digests: bytes) -> str:
    """A link's hash: SHA-256 of its chain, sequence, previous hash and ids, then its rows' digests."""
    digest = hashlib.sha256(f"{chain}\n{sequence}\n{previous}\n{ids}\n".encode())
    digest.update(digests)
    return digest.hexdigest()


def runs_of(ids: str) -> Iterable[tuple[int, int]]:
    """``1-250,252`` as (1, 250), (252, 252)."""
    for run in filter(None, ids.split(",")):
        first, _, last = run.partition("-")
        yield int(first), int(last or first)


class Coverage:
    """Which ids some links cover, asked in ascending order (runs merged, a pointer moving forward)."""

    def __init__(self, runs: Iterable[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for first, last in sorted(runs):
            if merged and first <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        self.runs = merged
        self.at = 0

    def covers(self, pk: int) -> bool:
        while self.at < len(self.runs) and self.runs[self.at][1] < pk:
            self.at += 1
        return self.at < len(self.runs) and self.runs[self.at][0] <= pk

    def gaps(self, above: int, through: int = LAST_ID) -> list[tuple[int, int]]:
        """The spans of ids after ``above`` and up to ``through`` that no run covers, ascending: where the rows
        waiting for a link are (:func:`compliance.chain.rows.rows_in_spans` finds them)."""
        spans, first = [], above + 1
        for low, high in self.runs:
            if first > through:
                break
            if low > first:
                spans.append((first, min(low - 1, through)))
            first = max(first, high + 1)
        if first <= through:
            spans.append((first, through))
        return spans

    def waiting(self, model: type[Sealed], above: int, through: int = LAST_ID) -> list[tuple[int, int]]:
        """The runs of ``model``'s rows after ``above`` (up to ``through``) that no run covers, ascending: each the
        lowest and highest id of the rows between two covered runs (the ids alone, two index probes a gap)."""
        return rows_in_spans(model, self.gaps(above, through))

    @classmethod
    def of_links(cls, label: str, above: int, *, before_pk: int | None = None) -> Coverage:
        links = ChainLink.objects.filter(model=label, scheme=2, last_id__gt=above)
        if before_pk is not None:
            links = links.filter(pk__lte=before_pk)
        runs = ((max(first, above + 1), last) for ids in links.values_list("ids", flat=True).iterator()
                for first, last in runs_of(ids) if last > above)
        return cls(runs)


def _horizon() -> datetime:
    """Before this instant, every transaction that could still add a row had already begun (PostgreSQL: the
    oldest running transaction in this database; SQLite has one writer at a time)."""
    now = timezone.now()
    if connection.vendor != "postgresql":
        return now - MARGIN
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT min(xact_start) FROM pg_stat_activity WHERE datname = current_database() "
            "AND xact_start IS NOT NULL AND pid <> pg_backend_pid()"
        )
        oldest = cursor.fetchone()[0]
    return min(oldest, now) - MARGIN if oldest else now - MARGIN


def _take_turns(label: str) -> None:
    """Linkers of one model take turns until their transaction ends; inserts never ask."""
    if connection.vendor == "postgresql":
        key = int.from_bytes(hashlib.sha256(f"audit-chain:{label}".encode()).digest()[:8], "big", signed=True)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def _floor(label: str) -> int:
    return ChainLink.objects.filter(model=label, scheme=2).order_by("-pk").values_list("floor", flat=True).first() or 0


def _settled(label: str, floor: int) -> int:
    """The highest id every row up to which exists by now: the last row of links made before the horizon."""
    found = ChainLink.objects.filter(model=label, scheme=2, last_id__gt=floor, linked_at__lt=_horizon()).aggregate(
        top=Max("last_id"))["top"]
    return max(floor, found or 0)


class _Linker:
    def __init__(self, model: type[Sealed]) -> None:
        self.model, self.label = model, model._meta.label
        self.started = timezone.now()
        self.heads: dict[str, tuple[int, str]] = {}
        self.made = 0

    def head(self, chain: str) -> tuple[int, str]:
        if chain not in self.heads:
            last = ChainLink.objects.filter(chain=chain).order_by("-sequence").values_list(
                "sequence", "link_hash").first()
            self.heads[chain] = (int(last[0]), str(last[1])) if last else (0, "")
        return self.heads[chain]

    def emit(self, facility_id: int | None, batch: list[tuple[int, bytes]], floor: int) -> None:
        chain = self.model.chain_label(facility_id)
        sequence, previous = self.head(chain)
        sequence += 1
        ids = encode_ids(pk for pk, _ in batch)
        digests = b"".join(digest for _, digest in batch)
        link_hash = link_hash_of(chain, sequence, previous, ids, digests)
        ChainLink.objects.create(
            chain=chain, model=self.label, facility_id=facility_id, scheme=2, sequence=sequence, previous=previous,
            link_hash=link_hash, link_mac=seal_of(link_hash.encode()), ids=ids, first_id=batch[0][0],
            last_id=batch[-1][0], row_count=len(batch), floor=floor, linked_at=self.started, digests=digests,
        )
        self.heads[chain] = (sequence, link_hash)
        self.made += 1


@transaction.atomic
def chain_link(model: type[Sealed]) -> int:
    """Join the model's unlinked rows to their facilities' chains; the number of links made."""
    linker = _Linker(model)
    _take_turns(linker.label)
    floor = _floor(linker.label)
    new_floor = _settled(linker.label, floor)
    coverage = Coverage.of_links(linker.label, floor)
    runs = coverage.waiting(model, floor)  # the ids alone, and only those no link covers: index probes
    pending: dict[int | None, list[tuple[int, bytes]]] = defaultdict(list)
    encode = row_reader(model).encode
    for values in read_value_runs(model, runs):  # then only the rows to link, whole: (id, seal, ..., facility)
        facility_id = values[-1]
        batch = pending[facility_id]
        batch.append((values[0], row_digest(encode(values).encode(), values[1])))
        if len(batch) >= BATCH:
            linker.emit(facility_id, batch, new_floor)
            batch.clear()
    for facility_id, batch in pending.items():
        if batch:
            linker.emit(facility_id, batch, new_floor)
    return linker.made


@transaction.atomic
def chain_link_digests(model: type[Sealed], facility_id: int | None, digests: list[tuple[int, bytes]], *,
                       committed_through: int | None = None) -> int:
    """File links for rows the caller has just written and digested itself (``row_digest`` of each row's canonical
    content and seal, as :func:`chain_link` computes it), in id order: the generator of a year
    (:mod:`compliance.scale_sql`) writes millions of rows in SQL and computes their digests there, rather than have
    the linker read them back. The links are made as :func:`chain_link` makes them (the same hash, ids, 50,000 rows
    a link, the turns) in the caller's transaction; their floor is the chain's floor as it stands (rows below these
    may be unlinked) raised past every row that is linked already, so the next :func:`chain_link` does not read the
    rows these links cover and finds the rest.

    ``committed_through``: the caller is the model's only writer and every row up to this id is committed (the
    generator's redemptions, each hour's sessions committed before their digests are filed): the floor may rise
    that far without waiting for the horizon, which only guards against another writer's transaction still in
    flight. Without it, links filed within the horizon's minute leave the floor behind them, and with no later row
    to link it stays there: at the end of a generated year a week of redemptions (485,000) above it, read again by
    every link and every report's anchor (360 ms each)."""
    if not digests:
        return 0
    linker = _Linker(model)
    _take_turns(linker.label)
    floor = _linked_through(linker.label, model, _floor(linker.label), committed_through)
    ordered = sorted(digests)
    for start in range(0, len(ordered), BATCH):
        linker.emit(facility_id, ordered[start:start + BATCH], floor)
    return linker.made


def _linked_through(label: str, model: type[Sealed], floor: int, committed_through: int | None = None) -> int:
    """The highest id every row up to which exists and is linked: the settled id (:func:`_settled`, or the id the
    model's only writer has committed through) or, when a row at or below it is not linked yet, the id before that
    row (the ids above the floor read alone, index-only)."""
    settled = max(_settled(label, floor), committed_through or 0)
    waiting = Coverage.of_links(label, floor).waiting(model, floor, settled)
    return waiting[0][0] - 1 if waiting else settled


def chain_link_all() -> int:
    """Link every sealed model's waiting rows; the number of links made."""
    return sum(chain_link(model) for model in sealed_models())


def chain_heads(facility: Facility | None = None) -> list[list[object]]:
    """``[[chain, sequence, link hash], ...]`` of the facility's chains and of the chains of rows with no
    facility (every chain, with no facility given), as an anchor records them."""
    links = ChainLink.objects.filter(scheme=2)
    if facility is not None:
        links = links.filter(Q(facility=facility) | Q(facility__isnull=True))
    tops = links.order_by().values("chain").annotate(top=Max("sequence"))
    wanted = Q()
    for top in tops:
        wanted |= Q(chain=top["chain"], sequence=top["top"])
    if not tops:
        return []
    heads = ChainLink.objects.filter(wanted).values_list("chain", "sequence", "link_hash")
    return sorted([chain, int(sequence), str(link_hash)] for chain, sequence, link_hash in heads)

