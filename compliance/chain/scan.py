"""The row scan: each sealed row against its seal and against the digest its link keeps, in id order.

Rows are read once, in id order, beside the links that cover them (ordered by their first row); a link's
digests are held only while the rows it covers go by, so memory does not grow with the table. A large table
is scanned by as many processes as the machine has cores, each over its own range of ids, in one snapshot
of the database (:mod:`compliance.chain.parallel`).
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import hmac
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from compliance.chain.link import LINKS_AT_ONCE, Coverage, runs_of
from compliance.chain.parallel import parallel_worth_it, scan_in_parallel
from compliance.chain.report import ChainReport, Clock, named
from compliance.chain.rows import read_value_runs, read_values, row_reader
from compliance.models import ChainLink, Sealed, Signature
from compliance.seal_keys import LEGACY_KEY_ID, key_ring, seal_check

__all__ = ["Expected", "RowScan", "after", "links_by_first_row", "verify_rows"]

try:  # OpenSSL's HMAC object itself: its copy, update and hexdigest in C, without hmac.HMAC's wrapping in Python
    from _hashlib import hmac_new as _openssl_hmac

    def _keyed(key: bytes) -> Any:
        return _openssl_hmac(key, digestmod="sha256")
except ImportError:  # a Python built without OpenSSL
    def _keyed(key: bytes) -> Any:
        return hmac.new(key, digestmod=hashlib.sha256)


@dataclass
class Expected:
    """A link whose rows are going by: the ids still expected and their digests."""

    chain: str
    sequence: int
    ids: Iterator[int]
    digests: bytes
    index: int = 0
    missing: int = 0


def _clipped(ids: str, low: int | None, high: int | None) -> tuple[Iterator[int], int]:
    """A link's ids within ``low``–``high``, and how many of its ids come before ``low`` (its digests' offset)."""
    if "-" not in ids:  # no run longer than one id (the chains of facilities whose rows interleave): parsed in C
        listed = list(map(int, filter(None, ids.split(","))))
        start = 0 if low is None else bisect.bisect_left(listed, low)
        end = len(listed) if high is None else bisect.bisect_right(listed, high)
        return iter(listed[start:end]), start
    runs = list(runs_of(ids))
    before = sum(min(last, low - 1) - first + 1 for first, last in runs if low is not None and first < low)
    inside = ((max(first, low or first), min(last, high if high is not None else last)) for first, last in runs)
    return itertools.chain.from_iterable(range(first, last + 1) for first, last in inside), before


def links_by_first_row(label: str, snapshot: int, chains: dict[str, int] | None, *, low: int | None = None,
                       high: int | None = None) -> Iterator[tuple[Expected, int]]:
    """The model's links (``chains``: only those after each chain's verified one) in order of their first row,
    each with the id at which the scan takes it up; ``low``–``high``: only their rows in that range."""
    links = ChainLink.objects.filter(model=label, scheme=2, pk__lte=snapshot)
    if chains is not None:
        links = links.filter(after(chains))
    if low is not None:
        links = links.filter(last_id__gte=low)
    if high is not None:
        links = links.filter(first_id__lte=high)
    rows = links.order_by("first_id", "pk").values_list("chain", "sequence", "ids", "digests", "first_id")
    for chain, sequence, ids, digests, first_id in rows.iterator(chunk_size=LINKS_AT_ONCE):
        clipped, offset = _clipped(ids, low, high)
        yield Expected(chain, sequence, clipped, bytes(digests), index=offset), max(first_id, low or first_id)


class RowScan:
    """Rows in id order, as :func:`~compliance.chain.rows.read_values` gives them, against the links expecting
    them: each row's seal recomputed under the key it names, its digest against the one its link keeps."""

    def __init__(self, model: type[Sealed], report: ChainReport, clock: Clock) -> None:
        self.model, self.report, self.clock = model, report, clock
        self.reader = row_reader(model)
        self.ring = key_ring()
        # Each key's HMAC with the key absorbed once: a row's is a copy of it fed the row's content (hmac.digest
        # would absorb the key anew for every row, twice the work for a row's few hundred bytes).
        self.macs = {key_id: _keyed(key) for key_id, key in self.ring.keys.items()}
        self.heap: list[tuple[int, int, Expected]] = []
        self.order = itertools.count()

    def push(self, expected: Expected) -> None:
        following = next(expected.ids, None)
        if following is not None:
            heapq.heappush(self.heap, (following, next(self.order), expected))

    def gone(self, pk: int, expected: Expected) -> None:
        expected.missing += 1
        if expected.missing <= 20:
            self.report.add("BROKEN LINK", f"{expected.chain} link {expected.sequence}: row #{pk} it covers is gone "
                                           f"({self.model._meta.label} #{pk} deleted)")
        expected.index += 1

    def linked_twice(self, pk: int) -> None:
        while self.heap and self.heap[0][0] == pk:
            _, _, twice = heapq.heappop(self.heap)
            self.report.add("BROKEN LINK", f"{twice.chain} link {twice.sequence}: row #{pk} is linked twice")
            twice.index += 1
            self.push(twice)

    def unlinked(self, values: tuple[Any, ...], floor: int) -> None:
        if values[0] <= floor:
            self.report.add("BROKEN LINK", f"{self.named(values)}: appeared among the linked rows without a link "
                                           "(inserted behind the chain's back)")
        else:
            self.report.pending += 1

    def named(self, values: tuple[Any, ...]) -> str:
        return named(self.model, self.reader.row(values))

    def run(self, rows: Iterator[tuple[Any, ...]], links: Iterator[tuple[Expected, int]], floor: int) -> None:
        try:
            self._run(rows, links, floor)
        finally:  # stopped early (the time limit): close the cursors now, inside the transaction they belong to
            for stream in (rows, links):
                close = getattr(stream, "close", None)
                if close is not None:
                    close()

    def _run(self, rows: Iterator[tuple[Any, ...]], links: Iterator[tuple[Expected, int]], floor: int) -> None:
        upcoming = next(links, None)
        heap, clock, report, order = self.heap, self.clock, self.report, self.order
        encode, sha256, compare = self.reader.encode, hashlib.sha256, hmac.compare_digest
        macs, legacy = self.macs, self.macs.get(LEGACY_KEY_ID)
        seen = 0
        try:
            for values in rows:  # the hottest loop of a verification: inlined, locals only
                pk, seal = values[0], values[1]
                clock.tick()
                seen += 1
                while upcoming is not None and upcoming[1] <= pk:
                    self.push(upcoming[0])
                    upcoming = next(links, None)
                while heap and heap[0][0] < pk:
                    missing, _, expected = heapq.heappop(heap)
                    self.gone(missing, expected)
                    self.push(expected)
                payload = encode(values).encode()
                intact = False
                if seal:  # the seal is the HMAC of the content under the key it names (inlined: the hottest lines)
                    key_id, colon, mac = seal.partition(":")
                    keyed = macs.get(key_id) if colon else legacy
                    if keyed is not None:
                        digest = keyed.copy()
                        digest.update(payload)
                        intact = compare(mac if colon else seal, digest.hexdigest())
                if not intact:  # missing, of an unknown key, or wrong: the application never makes such a row
                    report.add("FORGED", f"{self.named(values)}: {seal_check(seal, payload, self.ring)}")
                if heap and heap[0][0] == pk:
                    expected = heap[0][2]
                    at = expected.index * 32
                    if intact and expected.digests[at:at + 32] != sha256(payload + b"\n" + seal.encode()).digest():
                        report.add("ALTERED", f"{self.named(values)}: changed since it was linked in {expected.chain} "
                                              f"link {expected.sequence} (its seal was made anew: someone holding the "
                                              "key rewrote it)")
                    expected.index += 1
                    following = next(expected.ids, None)
                    if following is None:
                        heapq.heappop(heap)
                    else:
                        heapq.heapreplace(heap, (following, next(order), expected))
                    if heap and heap[0][0] == pk:
                        self.linked_twice(pk)
                else:
                    self.unlinked(values, floor)
        finally:
            report.rows += seen
        self.finish(upcoming, links)

    def finish(self, upcoming: tuple[Expected, int] | None, links: Iterator[tuple[Expected, int]]) -> None:
        """After the last row: whatever the links still expect is gone."""
        while upcoming is not None:
            self.push(upcoming[0])
            upcoming = next(links, None)
        while self.heap:
            pk, _, expected = heapq.heappop(self.heap)
            self.gone(pk, expected)
            self.push(expected)


def verify_rows(model: type[Sealed], report: ChainReport, clock: Clock, snapshot: int,
                 start: dict[str, int] | None) -> set[int]:
    """The row scan of one model (``start``: incremental, from each chain's verified link); the ids it saw
    (signatures only, for the records they sign)."""
    label = model._meta.label
    floor = ChainLink.objects.filter(model=label, scheme=2, pk__lte=snapshot).order_by("-pk").values_list(
        "floor", flat=True).first() or 0
    links = links_by_first_row(label, snapshot, start)
    if start is None and parallel_worth_it(model):
        scan_in_parallel(model, report, clock, snapshot, floor)
        return set()
    if start is None:
        rows = read_values(model)
    else:  # the rows the new links cover, and those no link covers yet: nothing else is read
        every_link = Coverage.of_links(label, floor, before_pk=snapshot)
        waiting = every_link.waiting(model, floor)
        new_links = ChainLink.objects.filter(after(start), model=label, scheme=2, pk__lte=snapshot)
        runs = Coverage([*waiting, *(run for ids in new_links.values_list("ids", flat=True).iterator()
                                     for run in runs_of(ids))]).runs
        rows = read_value_runs(model, [(first, last) for first, last in runs])
    seen: set[int] = set()
    scan = RowScan(model, report, clock)
    scan.run(_noting(rows, seen) if model is Signature else rows, links, floor)
    return seen


def after(start: dict[str, int]) -> Q:
    wanted = Q(pk__in=[])
    for chain, sequence in start.items():
        wanted |= Q(chain=chain, sequence__gt=sequence)
    return wanted


def _noting(rows: Iterator[tuple[Any, ...]], seen: set[int]) -> Iterator[tuple[Any, ...]]:
    for values in rows:
        seen.add(values[0])
        yield values


