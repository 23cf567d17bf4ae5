"""Verifying the chains: every row against its seal and its link, every link against the one before it and
the heads the Board holds, every signed record against its signatures, and the apps' own checks.

Streams in constant memory: rows are read once, in id order, beside the links that cover them (ordered by
their first row); a link's digests are held only while the rows it covers go by. Two modes:

* **full**: every link and row (weekly by beat, and on demand);
* **incremental**: from where the last intact verification ended (each chain's last verified link, which
  must still carry the hash it had), the links and rows since, the records signed since (daily by beat).

A run takes a PostgreSQL advisory lock, so two never run at once, and stops at its time limit, saying so.
Each finding names the record the row is evidence of ("coupons.CouponReceipt #12 (its 'recorded'
signature, by Jane Doe)"), not only the row.
"""

from __future__ import annotations

import hashlib
import heapq
import hmac
import itertools
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from compliance.chain.link import Coverage, link_hash_of, runs_of
from compliance.chain.rows import SealedRow, read_rows, sealed_models
from compliance.models import ChainAnchor, ChainLink, ChainVerification, Sealed, Signature
from compliance.models.chain import decode_ids, legacy_hmac, row_digest
from compliance.seal_keys import seal_check

__all__ = ["VERIFY_CHECKS", "ChainReport", "VerificationBusy", "chain_verify", "recent_verifications",
           "verification_record"]

ALTERED = "altered since signed"
KEPT = 10_000  # findings kept in full; the rest are counted

# Checks the apps add (AppConfig.ready): each gets the report and, in the incremental mode, the instant the
# last verification covered (None: everything). coupons replays its ledger against the coupons' state.
VERIFY_CHECKS: list[Callable[[ChainReport, datetime | None], None]] = []


class VerificationBusy(Exception):
    """Another verification is running."""


class _OutOfTime(Exception):
    pass


@dataclass
class ChainReport:
    """What a verification found. ``findings``: in words, the first :data:`KEPT`; ``finding_count``: all."""

    mode: str = ChainVerification.Mode.FULL
    findings: list[str] = field(default_factory=list)
    finding_count: int = 0
    rows: int = 0
    links: int = 0
    records: int = 0
    anchors: int = 0
    pending: int = 0
    complete: bool = True
    through: dict[str, list[Any]] = field(default_factory=dict)
    started_at: datetime = field(default_factory=timezone.now)

    def add(self, kind: str, text: str) -> None:
        self.finding_count += 1
        if len(self.findings) < KEPT:
            self.findings.append(f"{kind}: {text}")

    @property
    def intact(self) -> bool:
        return self.complete and not self.finding_count

    @property
    def altered(self) -> list[str]:
        return [line for line in self.findings if not line.startswith("BROKEN LINK")]

    @property
    def broken(self) -> list[str]:
        return [line for line in self.findings if line.startswith("BROKEN LINK")]

    def lines(self) -> list[str]:
        verdict = "intact" if self.intact else ("NOT intact" if self.complete else "INCOMPLETE (time limit)")
        more = [f"… and {self.finding_count - len(self.findings):,} more"] if self.finding_count > len(self.findings) else []
        summary = (f"{self.mode} verification: {self.links:,} links, {self.rows:,} sealed rows ({self.pending:,} "
                   f"awaiting their link), {self.records:,} signed records, {self.anchors:,} anchored heads checked: "
                   f"{verdict}")
        return [*self.findings, *more, summary]


def _named(model: type[Sealed], row: SealedRow) -> str:
    owner = model.belongs_to(row.content)
    return f"{model._meta.label} #{row.id}" + (f" — {owner}" if owner else "")


class _Clock:
    def __init__(self, limit: float | None) -> None:
        self.deadline = time.monotonic() + limit if limit else None
        self.count = 0

    def tick(self) -> None:
        self.count += 1
        if self.deadline is not None and not self.count % 1000 and time.monotonic() > self.deadline:
            raise _OutOfTime


@dataclass
class _Expected:
    """A link whose rows are going by: the ids still expected and their digests."""

    chain: str
    sequence: int
    ids: Iterator[int]
    digests: bytes
    index: int = 0
    missing: int = 0


def _links_by_first_row(label: str, snapshot: int, chains: dict[str, int] | None) -> Iterator[tuple[_Expected, int]]:
    links = ChainLink.objects.filter(model=label, scheme=2, pk__lte=snapshot)
    if chains is not None:  # incremental: only the links after each chain's verified one
        wanted = Q(pk__in=[])
        for chain, sequence in chains.items():
            wanted |= Q(chain=chain, sequence__gt=sequence)
        links = links.filter(wanted)
    rows = links.order_by("first_id", "pk").values_list("chain", "sequence", "ids", "digests", "first_id")
    for chain, sequence, ids, digests, first_id in rows.iterator(chunk_size=200):
        yield _Expected(chain, sequence, decode_ids(ids), bytes(digests)), first_id


class _RowScan:
    """Rows in id order against the links expecting them."""

    def __init__(self, model: type[Sealed], report: ChainReport, clock: _Clock) -> None:
        self.model, self.report, self.clock = model, report, clock
        self.heap: list[tuple[int, int, _Expected]] = []
        self.order = itertools.count()

    def push(self, expected: _Expected) -> None:
        following = next(expected.ids, None)
        if following is not None:
            heapq.heappush(self.heap, (following, next(self.order), expected))

    def gone(self, pk: int, expected: _Expected) -> None:
        expected.missing += 1
        if expected.missing <= 20:
            self.report.add("BROKEN LINK", f"{expected.chain} link {expected.sequence}: row #{pk} it covers is gone "
                                           f"({self.model._meta.label} #{pk} deleted)")
        expected.index += 1

    def match(self, row: SealedRow) -> bool:
        matched = False
        while self.heap and self.heap[0][0] == row.id:
            _, _, expected = heapq.heappop(self.heap)
            if matched:
                self.report.add("BROKEN LINK", f"{expected.chain} link {expected.sequence}: row #{row.id} is linked twice")
            else:
                stored = expected.digests[expected.index * 32:(expected.index + 1) * 32]
                if stored != row_digest(row.payload, row.seal) and not seal_check(row.seal, row.payload):
                    self.report.add("ALTERED", f"{_named(self.model, row)}: changed since it was linked in "
                                               f"{expected.chain} link {expected.sequence} (its seal was made anew: "
                                               "someone holding the key rewrote it)")
                matched = True
            expected.index += 1
            self.push(expected)
        return matched

    def run(self, rows: Iterator[SealedRow], links: Iterator[tuple[_Expected, int]], floor: int,
            elsewhere: Coverage | None) -> None:
        upcoming = next(links, None)
        for row in rows:
            self.clock.tick()
            self.report.rows += 1
            while upcoming is not None and upcoming[1] <= row.id:
                self.push(upcoming[0])
                upcoming = next(links, None)
            while self.heap and self.heap[0][0] < row.id:
                pk, _, expected = heapq.heappop(self.heap)
                self.gone(pk, expected)
                self.push(expected)
            problem = seal_check(row.seal, row.payload)
            if problem:  # missing, of an unknown key, or wrong: the application never makes such a row
                self.report.add("FORGED", f"{_named(self.model, row)}: {problem}")
            if not self.match(row) and not (elsewhere is not None and elsewhere.covers(row.id)):
                if row.id <= floor:
                    self.report.add("BROKEN LINK", f"{_named(self.model, row)}: appeared among the linked rows "
                                                   "without a link (inserted behind the chain's back)")
                else:
                    self.report.pending += 1
        while upcoming is not None:
            self.push(upcoming[0])
            upcoming = next(links, None)
        while self.heap:
            pk, _, expected = heapq.heappop(self.heap)
            self.gone(pk, expected)
            self.push(expected)


def _check_link(report: ChainReport, chain: str, sequence: int, previous_hash: str, values: dict[str, Any]) -> None:
    problem = ""
    if values["sequence"] != sequence:
        problem = f"link {sequence} is missing"
    elif values["previous"] != previous_hash:
        problem = "it does not follow the previous link"
    elif link_hash_of(chain, values["sequence"], values["previous"], values["ids"], bytes(values["digests"])) != \
            values["link_hash"]:
        problem = "its hash does not match its rows' digests (the link was rewritten)"
    elif seal_check(values["link_mac"], values["link_hash"].encode()):
        problem = "its seal does not match its hash (the link was rewritten without the key)"
    if problem:
        report.add("BROKEN LINK", f"{chain} link {values['sequence']} (rows #{values['first_id']}–#{values['last_id']}): "
                                  f"{problem}")


def _walk_chains(label: str, report: ChainReport, snapshot: int, since: dict[str, list[Any]] | None,
                 anchored: dict[str, dict[int, tuple[str, str]]]) -> dict[str, int]:
    """Each chain of the model in sequence: continuity, hashes, seals, anchored heads. The sequence each
    chain was verified from (incremental) for the row scan."""
    chains = sorted(ChainLink.objects.filter(model=label, scheme=2, pk__lte=snapshot).values_list(
        "chain", flat=True).distinct())
    start: dict[str, int] = {}
    for chain in chains:
        verified_seq, verified_hash = (since or {}).get(chain, [0, ""])
        start[chain] = int(verified_seq)
        links = ChainLink.objects.filter(chain=chain, pk__lte=snapshot, sequence__gte=max(1, int(verified_seq)))
        previous, sequence, last = "", max(1, int(verified_seq)), 0
        fields = ("sequence", "previous", "link_hash", "link_mac", "ids", "digests", "first_id", "last_id")
        for values in links.order_by("sequence").values(*fields).iterator(chunk_size=200):
            if since is not None and values["sequence"] == int(verified_seq) and verified_seq:
                if values["link_hash"] != verified_hash:
                    report.add("BROKEN LINK", f"{chain} link {verified_seq}: its hash changed since it was last verified")
                previous, sequence, last = values["link_hash"], sequence + 1, values["sequence"]
                continue
            report.links += 1
            _check_link(report, chain, sequence, previous, values)
            anchor = anchored.get(chain, {}).get(values["sequence"])
            if anchor is not None:
                _check_anchored(report, chain, values["sequence"], values["link_hash"], *anchor)
            previous, sequence, last = values["link_hash"], values["sequence"] + 1, values["sequence"]
        if last:
            report.through[chain] = [last, previous]
        for seq, (_held, when) in anchored.get(chain, {}).items():
            if seq > last:
                report.add("ANCHOR", f"{chain}: the Board holds link {seq} ({when}), the database ends at link {last}: "
                                     "rows and links after it were deleted (the chain was cut short)")
    for chain, held in anchored.items():
        if chain.startswith(f"{label}@") and chain not in chains:
            report.add("ANCHOR", f"{chain}: the Board holds links up to {max(held)}, the database has none")
    return start


def _check_anchored(report: ChainReport, chain: str, sequence: int, stored: str, anchored: str, when: str) -> None:
    report.anchors += 1
    if stored != anchored:
        report.add("ANCHOR", f"{chain} link {sequence}: the Board holds hash {anchored[:16]}… ({when}), the database "
                             f"{stored[:16]}…: the chain was rewritten, reordered or cut at or before that link")


def _verify_rows(model: type[Sealed], report: ChainReport, clock: _Clock, snapshot: int,
                 start: dict[str, int] | None) -> set[int]:
    """The row scan of one model; the ids it saw (signatures only, for the records they sign)."""
    label = model._meta.label
    floor = ChainLink.objects.filter(model=label, scheme=2, pk__lte=snapshot).order_by("-pk").values_list(
        "floor", flat=True).first() or 0
    if start is None:
        links = _links_by_first_row(label, snapshot, None)
        rows = read_rows(model)
        elsewhere = None
    else:
        firsts = [first for first in (ChainLink.objects.filter(chain=chain, sequence__gt=seq, pk__lte=snapshot)
                  .order_by("first_id").values_list("first_id", flat=True).first() for chain, seq in start.items())
                  if first is not None]
        begin = min([*firsts, floor + 1])
        links = _links_by_first_row(label, snapshot, start)
        rows = read_rows(model, above=begin - 1)
        elsewhere = _covered_before(label, snapshot, start, begin)
    seen: set[int] = set()
    scan = _RowScan(model, report, clock)
    scan.run(_noting(rows, seen) if model is Signature else rows, links, floor, elsewhere)
    return seen


def _covered_before(label: str, snapshot: int, start: dict[str, int], begin: int) -> Coverage:
    """Ids the already verified links cover from ``begin`` on (rows the increment meets but need not check)."""
    earlier = Q(pk__in=[])
    for chain, seq in start.items():
        earlier |= Q(chain=chain, sequence__lte=seq)
    links = ChainLink.objects.filter(earlier, model=label, scheme=2, last_id__gte=begin, pk__lte=snapshot)
    return Coverage(run for ids in links.values_list("ids", flat=True).iterator() for run in runs_of(ids))


def _noting(rows: Iterator[SealedRow], seen: set[int]) -> Iterator[SealedRow]:
    for row in rows:
        seen.add(row.id)
        yield row


def _verify_legacy_links(report: ChainReport, clock: _Clock) -> None:
    """Links of the first scheme (one chain per model, before chains had digests), still checked as made."""
    mac = legacy_hmac()
    chains = ChainLink.objects.filter(scheme=1).values_list("chain", flat=True).distinct()
    for chain in sorted(set(chains)):
        model = _model_of(chain)
        previous, expected = "", 1
        for link in ChainLink.objects.filter(chain=chain, scheme=1).order_by("sequence").iterator(chunk_size=100):
            clock.tick()
            report.links += 1
            ids = list(decode_ids(link.ids))
            seals = dict(model._base_manager.filter(pk__in=ids).values_list("pk", "seal")) if model else {}
            problem = _legacy_problem(link, expected, previous, ids, seals, mac)
            if problem:
                report.add("BROKEN LINK", f"{chain} link {link.sequence} (first scheme): {problem}")
            previous, expected = link.link_hash, link.sequence + 1


def _legacy_problem(link: ChainLink, expected: int, previous: str, ids: list[int], seals: dict[int, str],
                    mac: Any) -> str:
    if link.sequence != expected:
        return f"link {expected} is missing"
    if link.previous != previous:
        return "it does not follow the previous link"
    missing = [pk for pk in ids if pk not in seals]
    if missing:
        return f"row(s) #{', #'.join(map(str, missing[:20]))} it covers are gone"
    if mac is None:
        return "key 1, which made these links, is not held (AUDIT_CHAIN_RETIRED_KEYS)"
    digest = mac.copy()
    digest.update(f"{link.chain}\n{link.sequence}\n{link.previous}\n".encode())
    late = link.late_seals or {}
    for pk in ids:
        digest.update(f"{pk}:{seals[pk] or late.get(str(pk), '')}\n".encode())
    if not hmac.compare_digest(link.link_hash, digest.hexdigest()):
        return "its hash does not match its rows' seals (a row's seal was rewritten, or the link was)"
    return ""


def _model_of(chain: str) -> type[Sealed] | None:
    label = chain.split("@", 1)[0]
    return next((m for m in sealed_models() if m._meta.label == label), None)


def _verify_signed_records(report: ChainReport, clock: _Clock, only: set[int] | None) -> None:
    """Each signed record's content against the hash its signatures vouch for, in chunks of records."""
    signatures = Signature.objects.order_by("content_type_id", "object_id", "pk")
    if only is not None:  # the records signed since the last verification, with all their signatures
        by_type: dict[int, set[int]] = defaultdict(set)
        for type_id, object_id in Signature.objects.filter(pk__in=only).values_list("content_type_id", "object_id"):
            by_type[type_id].add(object_id)
        wanted = Q(pk__in=[])
        for type_id, object_ids in by_type.items():
            wanted |= Q(content_type_id=type_id, object_id__in=sorted(object_ids))
        signatures = signatures.filter(wanted)
    rows = signatures.values_list("content_type_id", "object_id", "slot", "printed_name", "content_hash")
    chunk: list[tuple[Any, ...]] = []
    for values in rows.iterator(chunk_size=2000):
        chunk.append(values)
        if len(chunk) >= 2000 and chunk[-1][:2] != chunk[-2][:2]:
            _records_of(report, clock, chunk[:-1])
            chunk = chunk[-1:]
    _records_of(report, clock, chunk)


def _records_of(report: ChainReport, clock: _Clock, signatures: list[tuple[Any, ...]]) -> None:
    by_type: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for values in signatures:
        by_type[values[0]].append(values)
    for type_id, group in by_type.items():
        model = ContentType.objects.get_for_id(type_id).model_class()
        if model is None:
            continue
        records = model._base_manager.in_bulk({values[1] for values in group})
        hashes: dict[int, str] = {}
        for _, object_id, slot, printed_name, content_hash in group:
            clock.tick()
            record, name = records.get(object_id), f"{model._meta.label} #{object_id}"
            if record is None:
                report.add("ALTERED", f"{name}: signed ('{slot}', by {printed_name}) but gone")
                continue
            if object_id not in hashes:
                report.records += 1
                hashes[object_id] = record.content_hash()  # type: ignore[attr-defined]
            if hashes[object_id] != content_hash:
                report.add("ALTERED", f"{name} ({record}): {ALTERED} — its content no longer matches the '{slot}' "
                                      f"signature of {printed_name}")


def _db_anchors(since: datetime | None) -> dict[str, dict[int, tuple[str, str]]]:
    anchors = ChainAnchor.objects.order_by("made_at")
    if since is not None:
        anchors = anchors.filter(made_at__gte=since)
    held: dict[str, dict[int, tuple[str, str]]] = defaultdict(dict)
    for anchor in anchors.iterator():
        if not anchor.seal_intact():
            continue  # reported as forged by its own chain's row scan
        for chain, sequence, link_hash in anchor.heads:
            held[chain][int(sequence)] = (str(link_hash), f"anchor #{anchor.pk} of {anchor.made_at:%Y-%m-%d %H:%M}")
    return held


def _merge(*sources: dict[str, dict[int, tuple[str, str]]]) -> dict[str, dict[int, tuple[str, str]]]:
    merged: dict[str, dict[int, tuple[str, str]]] = defaultdict(dict)
    for source in sources:
        for chain, held in source.items():
            for sequence, value in held.items():
                if sequence in merged[chain] and merged[chain][sequence][0] != value[0]:
                    merged[chain][sequence] = value  # the Board's copy wins over the database's own
                merged[chain].setdefault(sequence, value)
    return merged


def _lock() -> Any:
    if connection.vendor != "postgresql":
        return None
    key = int.from_bytes(hashlib.sha256(b"audit-chain:verify").digest()[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        if not cursor.fetchone()[0]:
            raise VerificationBusy("Another verification of the audit chain is running; this one was not started.")
    return key


def _unlock(key: Any) -> None:
    if key is not None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [key])


def _last_intact() -> ChainVerification | None:
    return ChainVerification.objects.filter(complete=True, intact=True).order_by("-finished_at", "-pk").first()


def chain_verify(*, incremental: bool = False, anchors: dict[str, dict[int, tuple[str, str]]] | None = None,
                 time_limit: float | None = None) -> ChainReport:
    """Verify every chain (``incremental``: since the last intact verification), checking the heads the Board
    holds (``anchors``: ``{chain: {sequence: (hash, where it came from)}}``) besides the database's own."""
    previous = _last_intact() if incremental else None
    report = ChainReport(mode=ChainVerification.Mode.INCREMENTAL if previous else ChainVerification.Mode.FULL)
    clock = _Clock(time_limit)
    key = _lock()
    outermost = not connection.in_atomic_block
    try:
        with transaction.atomic():
            if outermost and connection.vendor == "postgresql":  # one snapshot for rows and links alike
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            _verify_all(report, clock, previous, anchors or {})
    except _OutOfTime:
        report.complete = False
        report.findings.append(f"INCOMPLETE: stopped at the time limit ({time_limit or 0:.0f} s) after {report.rows:,} "
                               "rows: what follows was not verified")
    finally:
        _unlock(key)
    return report


def _verify_all(report: ChainReport, clock: _Clock, previous: ChainVerification | None,
                anchors: dict[str, dict[int, tuple[str, str]]]) -> None:
    snapshot = ChainLink.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    since = previous.through if previous else None
    held = _merge(anchors, _db_anchors(previous.started_at if previous else None))
    signatures_seen: set[int] | None = None
    for model in sealed_models():
        label = model._meta.label
        start = _walk_chains(label, report, snapshot, since, held)
        seen = _verify_rows(model, report, clock, snapshot, start if since is not None else None)
        if model is Signature:
            signatures_seen = seen
    if since is None:
        _verify_legacy_links(report, clock)
    _verify_signed_records(report, clock, signatures_seen if since is not None else None)
    for check in VERIFY_CHECKS:
        check(report, previous.started_at if previous else None)


def recent_verifications(limit: int = 10) -> list[ChainVerification]:
    return list(ChainVerification.objects.order_by("-finished_at", "-pk")[:limit])


def verification_record(report: ChainReport, *, user: Any = None) -> ChainVerification:
    """Keep what a verification found (sealed, append-only); the next increment starts from an intact one."""
    return ChainVerification.objects.create(
        mode=report.mode, started_at=report.started_at, finished_at=timezone.now(), complete=report.complete,
        intact=report.intact, rows=report.rows, links=report.links, records=report.records, anchors=report.anchors,
        finding_count=report.finding_count, findings=report.findings[:500], through=report.through,
        requested_by=user,
    )
