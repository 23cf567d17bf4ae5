"""Verifying the chains: every row against its seal and its link, every link against the one before it and
the heads the Board holds, every signed record against its signatures, and the apps' own checks.

Streams in constant memory (the row scan: :mod:`compliance.chain.scan`). Two modes:

* **full**: every link and row (weekly by beat, and on demand);
* **incremental**: from where the last intact verification ended (each chain's last verified link, which
  must still carry the hash it had), the links and rows since, the records signed since (daily by beat).

A run takes a PostgreSQL advisory lock, so two never run at once, and stops at its time limit, saying so.
Each finding names the record the row is evidence of ("coupons.CouponReceipt #12 (its 'recorded'
signature, by Jane Doe)"), not only the row.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from compliance.chain.link import LINKS_AT_ONCE, link_hash_of
from compliance.chain.records import verify_legacy_links, verify_signed_records
from compliance.chain.report import ChainReport, Clock, OutOfTime
from compliance.chain.rows import sealed_models
from compliance.chain.scan import verify_rows
from compliance.models import ChainAnchor, ChainLink, ChainVerification, Signature
from compliance.seal_keys import seal_check

__all__ = ["VERIFY_CHECKS", "ChainReport", "VerificationBusy", "chain_verify", "recent_verifications",
           "verification_record"]

# Checks the apps add (AppConfig.ready): each gets the report and, in the incremental mode, the instant the
# last verification covered (None: everything). coupons replays its ledger against the coupons' state.
VERIFY_CHECKS: list[Callable[[ChainReport, datetime | None], None]] = []


class VerificationBusy(Exception):
    """Another verification is running."""


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
    # order_by(): the model's ordering (chain, sequence) would otherwise make DISTINCT return every link once
    chains = sorted(ChainLink.objects.filter(model=label, scheme=2, pk__lte=snapshot).order_by().values_list(
        "chain", flat=True).distinct())
    start: dict[str, int] = {}
    for chain in chains:
        verified_seq, verified_hash = (since or {}).get(chain, [0, ""])
        start[chain] = int(verified_seq)
        links = ChainLink.objects.filter(chain=chain, pk__lte=snapshot, sequence__gte=max(1, int(verified_seq)))
        previous, sequence, last = "", max(1, int(verified_seq)), 0
        fields = ("sequence", "previous", "link_hash", "link_mac", "ids", "digests", "first_id", "last_id")
        for values in links.order_by("sequence").values(*fields).iterator(chunk_size=LINKS_AT_ONCE):
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


def _db_anchors(since: datetime | None) -> dict[str, dict[int, tuple[str, str]]]:
    anchors = ChainAnchor.objects.order_by("made_at")
    if since is not None:
        anchors = anchors.filter(made_at__gte=since)
    held: dict[str, dict[int, tuple[str, str]]] = defaultdict(dict)
    for anchor in anchors.iterator():
        if not anchor.seal_intact():
            continue  # reported as forged by its own chain's row scan
        for chain, sequence, link_hash in anchor.heads:
            held[chain][int(sequence)] = (str(link_hash), f"anchor #{anchor.pk} of {timezone.localtime(anchor.made_at):%-d %b %Y %H:%M}")
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
    clock = Clock(time_limit)
    key = _lock()
    outermost = not connection.in_atomic_block
    try:
        with transaction.atomic():
            if outermost and connection.vendor == "postgresql":  # one snapshot for rows and links alike
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            connection._verify_snapshot_ok = outermost  # type: ignore[attr-defined]  # others may share it
            try:
                _verify_all(report, clock, previous, anchors or {})
            finally:
                connection._verify_snapshot_ok = False  # type: ignore[attr-defined]
    except OutOfTime:
        report.complete = False
        report.findings.append(f"INCOMPLETE: stopped at the time limit ({time_limit or 0:.0f} s) after {report.rows:,} "
                               "rows: what follows was not verified")
    finally:
        _unlock(key)
    return report


def _verify_all(report: ChainReport, clock: Clock, previous: ChainVerification | None,
                anchors: dict[str, dict[int, tuple[str, str]]]) -> None:
    snapshot = ChainLink.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    since = previous.through if previous else None
    held = _merge(anchors, _db_anchors(previous.started_at if previous else None))
    signatures_seen: set[int] | None = None
    for model in sealed_models():
        label = model._meta.label
        start = _walk_chains(label, report, snapshot, since, held)
        seen = verify_rows(model, report, clock, snapshot, start if since is not None else None)
        if model is Signature:
            signatures_seen = seen
    if since is None:
        verify_legacy_links(report, clock)
    verify_signed_records(report, clock, signatures_seen if since is not None else None)
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
