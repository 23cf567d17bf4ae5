"""Signed records against the content hash their signatures hold; the first scheme's links as they were made."""

from __future__ import annotations

import hmac
from collections import defaultdict
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from compliance.chain.report import ALTERED, ChainReport, Clock
from compliance.chain.rows import sealed_models
from compliance.models import ChainLink, Sealed, Signature
from compliance.models.chain import decode_ids, legacy_hmac

__all__ = ["model_of", "verify_legacy_links", "verify_signed_records"]


def verify_legacy_links(report: ChainReport, clock: Clock) -> None:
    """Links of the first scheme (one chain per model, before chains had digests), still checked as made."""
    mac = legacy_hmac()
    # order_by(): the model's ordering (chain, sequence) would otherwise make DISTINCT return every link
    chains = ChainLink.objects.filter(scheme=1).order_by().values_list("chain", flat=True).distinct()
    for chain in sorted(set(chains)):
        model = model_of(chain)
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


def model_of(chain: str) -> type[Sealed] | None:
    label = chain.split("@", 1)[0]
    return next((m for m in sealed_models() if m._meta.label == label), None)


def verify_signed_records(report: ChainReport, clock: Clock, only: set[int] | None) -> None:
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


def _records_of(report: ChainReport, clock: Clock, signatures: list[tuple[Any, ...]]) -> None:
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


