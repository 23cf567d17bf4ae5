"""The evidence bundle of a facility and period: everything the Board needs to verify it by itself.

A zip, streamed as it is written (:func:`bundle_stream`), holding:

* ``records/<app.Model>.jsonl``: every regulated record of the facility created in the period, its content
  as its signatures vouch for it (canonical JSON) and the ids of its signatures;
* ``chains/<chain>.links.jsonl`` and ``chains/<chain>.rows.jsonl``: for each of the facility's chains (and
  the chains of rows with no facility), the links from the first made in the period through the first
  anchored head after it (the current head when none is anchored yet), and every row they cover, with its
  content and seal;
* ``anchors.json``: the facility's anchors from the period on;
* ``manifest.json``: the facility, the period, what is where, the SHA-256 of every other file.

``compliance/evidence/verify_bundle.py`` (one file, standard library only) checks it against the anchors the
Board received by e-mail. Bundles are read-only work: nothing is written to the database.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q
from django.utils import timezone

from compliance.chain.link import LINKS_AT_ONCE, Coverage, runs_of
from compliance.chain.rows import read_rows, sealed_models
from compliance.db_guarantees import regulated_models
from compliance.gaming_day import day_bounds
from compliance.models import ChainAnchor, ChainLink, Facility, Sealed, Signature
from compliance.models.chain import canonical

__all__ = ["FORMAT", "BundlePlan", "bundle_name", "bundle_plan", "bundle_stream"]

FORMAT = "pa-table-games-evidence/1"
FLUSH = 1 << 20


@dataclass(frozen=True)
class ChainSpan:
    chain: str
    model: type[Sealed]
    first: int
    last: int
    rows: int


@dataclass
class BundlePlan:
    """What a bundle of this facility and period will hold (read before streaming it)."""

    facility: Facility
    first_day: date
    last_day: date
    start: datetime
    end: datetime
    anchor: ChainAnchor | None
    chains: list[ChainSpan] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return sum(span.rows for span in self.chains)


def _model_of(label: str) -> type[Sealed]:
    return next(m for m in sealed_models() if m._meta.label == label)


def bundle_plan(facility: Facility, first_day: date, last_day: date) -> BundlePlan:
    start, end = day_bounds(facility, first_day)[0], day_bounds(facility, last_day)[1]
    anchor = ChainAnchor.objects.filter(facility=facility, made_at__gte=end).order_by("made_at", "pk").first()
    anchored = {chain: int(sequence) for chain, sequence, _ in (anchor.heads if anchor else [])}
    plan = BundlePlan(facility, first_day, last_day, start, end, anchor)
    links = ChainLink.objects.filter(Q(facility=facility) | Q(facility__isnull=True), scheme=2)
    for chain in sorted(links.order_by().values_list("chain", flat=True).distinct()):
        of_chain = ChainLink.objects.filter(chain=chain)
        first = of_chain.filter(linked_at__gte=start).order_by("sequence").values_list("sequence", flat=True).first()
        last = anchored.get(chain) or of_chain.order_by("-sequence").values_list("sequence", flat=True).first()
        if first is None or last is None or first > last:
            continue
        count = sum(of_chain.filter(sequence__gte=first, sequence__lte=last).values_list("row_count", flat=True))
        plan.chains.append(ChainSpan(chain, _model_of(chain.split("@", 1)[0]), first, last, count))
    return plan


def bundle_name(plan: BundlePlan) -> str:
    return f"evidence-{plan.facility.code}-{plan.first_day:%Y-%m-%d}-{plan.last_day:%Y-%m-%d}.zip"


class _Pipe(io.RawIOBase):
    """Where the zip writes; what it wrote is taken out in pieces for the response."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.parts.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        data = b"".join(self.parts)
        self.parts.clear()
        return data


class _Writer:
    def __init__(self) -> None:
        self.pipe = _Pipe()
        self.zip = zipfile.ZipFile(self.pipe, "w", compression=zipfile.ZIP_DEFLATED)
        self.sha256: dict[str, str] = {}

    def lines(self, name: str, items: Iterator[Any]) -> Iterator[bytes]:
        digest = hashlib.sha256()
        with self.zip.open(name, "w", force_zip64=True) as handle:
            for item in items:
                data = json.dumps(item, sort_keys=True, separators=(",", ":"), default=str).encode() + b"\n"
                digest.update(data)
                handle.write(data)
                if sum(len(p) for p in self.pipe.parts) >= FLUSH:
                    yield self.pipe.take()
        self.sha256[name] = digest.hexdigest()
        yield self.pipe.take()

    def whole(self, name: str, data: bytes, *, listed: bool = True) -> bytes:
        if listed:
            self.sha256[name] = hashlib.sha256(data).hexdigest()
        self.zip.writestr(name, data)
        return self.pipe.take()

    def close(self) -> bytes:
        self.zip.close()
        return self.pipe.take()


def _links(span: ChainSpan) -> Iterator[dict[str, Any]]:
    links = ChainLink.objects.filter(chain=span.chain, sequence__gte=span.first, sequence__lte=span.last)
    for link in links.order_by("sequence").iterator(chunk_size=LINKS_AT_ONCE):
        yield {"sequence": link.sequence, "previous": link.previous, "link_hash": link.link_hash, "ids": link.ids,
               "digests": bytes(link.digests).hex(), "linked_at": link.linked_at.isoformat(), "mac": link.link_mac}


def _rows(span: ChainSpan, seen: set[int] | None) -> Iterator[dict[str, Any]]:
    links = ChainLink.objects.filter(chain=span.chain, sequence__gte=span.first, sequence__lte=span.last)
    for ids, first_id, last_id in links.order_by("sequence").values_list("ids", "first_id", "last_id").iterator():
        covered = Coverage(runs_of(ids))
        for row in read_rows(span.model, above=first_id - 1, upto=last_id):
            if covered.covers(row.id):
                if seen is not None:
                    seen.add(row.id)
                yield {"id": row.id, "content": row.content, "seal": row.seal, "of": span.model.belongs_to(row.content)}


def _records(plan: BundlePlan, anchored_signatures: set[int], model: Any) -> Iterator[dict[str, Any]]:
    records = model._base_manager.filter(facility=plan.facility, created_at__gte=plan.start,
                                         created_at__lt=plan.end).order_by("pk")
    content_type = ContentType.objects.get_for_model(model)
    for chunk in _chunks(records.iterator(chunk_size=500), 500):
        signatures: dict[int, list[int]] = defaultdict(list)
        for pk, object_id in Signature.objects.filter(content_type=content_type, object_id__in=[r.pk for r in chunk]) \
                .order_by("pk").values_list("pk", "object_id"):
            signatures[object_id].append(pk)
        for record in chunk:
            given = signatures.get(record.pk, [])
            yield {"model": model._meta.label, "id": record.pk, "name": str(record),
                   "content": json.loads(canonical(record.signable_content())),
                   "signatures": [pk for pk in given if pk in anchored_signatures],
                   "signatures_after_the_bundle": [pk for pk in given if pk not in anchored_signatures]}


def _chunks(items: Iterator[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _file_of(chain: str, what: str) -> str:
    return f"chains/{chain}.{what}.jsonl"


def _manifest(plan: BundlePlan, writer: _Writer, record_files: list[str], user: Any) -> dict[str, Any]:
    notes = []
    if plan.anchor is None:
        notes.append("No anchor was made after the period's end yet: the chains run to their current heads, which the "
                     "Board does not hold yet; rows after the last anchor you hold are not proven by it.")
    return {
        "format": FORMAT,
        "facility": {"id": plan.facility.pk, "code": plan.facility.code, "name": plan.facility.name},
        "period": {"first_gaming_day": plan.first_day.isoformat(), "last_gaming_day": plan.last_day.isoformat(),
                   "from": plan.start.isoformat(), "until": plan.end.isoformat()},
        "made_at": timezone.now().isoformat(), "made_by": getattr(user, "username", ""),
        "anchored_by": plan.anchor.as_document() if plan.anchor else None,
        "content_types": {str(ct.pk): f"{ct.app_label}.{ct.model_class()._meta.object_name}"  # type: ignore[union-attr]
                          for ct in ContentType.objects.all() if ct.model_class() is not None},
        "chains": [{"chain": s.chain, "first_link": s.first, "last_link": s.last, "rows": _file_of(s.chain, "rows"),
                    "links": _file_of(s.chain, "links")} for s in plan.chains],
        "records": record_files,
        "files": writer.sha256,
        "notes": notes,
    }


def bundle_stream(plan: BundlePlan, *, user: Any = None) -> Iterator[bytes]:
    """The bundle's bytes, piece by piece."""
    writer = _Writer()
    signatures: set[int] = set()
    for span in plan.chains:
        yield from writer.lines(_file_of(span.chain, "links"), _links(span))
        seen = signatures if span.model is Signature else None
        yield from writer.lines(_file_of(span.chain, "rows"), _rows(span, seen))
    record_files = []
    for model in regulated_models():
        name = f"records/{model._meta.label}.jsonl"
        record_files.append(name)
        yield from writer.lines(name, _records(plan, signatures, model))
    anchors = ChainAnchor.objects.filter(facility=plan.facility, made_at__gte=plan.start).order_by("made_at", "pk")
    yield writer.whole("anchors.json", json.dumps([a.as_document() for a in anchors], indent=1).encode())
    manifest = _manifest(plan, writer, record_files, user)
    yield writer.whole("manifest.json", json.dumps(manifest, indent=1, sort_keys=True).encode(), listed=False)
    yield writer.close()
