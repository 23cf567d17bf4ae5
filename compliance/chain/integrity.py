"""What a page or an export marks: rows changed since sealed, records changed since signed (one query each)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models

from compliance.chain.rows import read_rows
from compliance.models import RegulatedRecord, Sealed, Signature
from compliance.seal_keys import seal_check

__all__ = ["ALTERED", "altered_ids", "altered_records", "integrity_cell"]

ALTERED = "altered since signed"


def altered_ids(model: type[models.Model], ids: Iterable[int]) -> set[int]:
    """Of these rows of a sealed model, those with no seal or changed since sealed: one query."""
    wanted = sorted(set(ids))
    if not wanted or not issubclass(model, Sealed):
        return set()
    return {row.id for row in read_rows(model, ids=wanted) if seal_check(row.seal, row.payload)}


def altered_records(keys: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    """Of these (content type id, record id) pairs, the signed records whose content no longer matches a
    signature, or one of whose signatures fails its seal: a query for the signatures, the records and each kind of
    their child rows, per type."""
    by_type: dict[int, set[int]] = defaultdict(set)
    for type_id, object_id in keys:
        by_type[type_id].add(object_id)
    altered: set[tuple[int, int]] = set()
    for type_id, object_ids in by_type.items():
        model = ContentType.objects.get_for_id(type_id).model_class()
        if model is None or not issubclass(model, RegulatedRecord):
            continue
        signatures: dict[int, list[Signature]] = defaultdict(list)
        for signature in Signature.objects.filter(content_type_id=type_id, object_id__in=sorted(object_ids)):
            signatures[signature.object_id].append(signature)
        records: dict[Any, Any] = model._base_manager.in_bulk(list(signatures))
        model.read_content_of(list(records.values()))  # their child rows: one query a kind, not one a record
        for object_id, given in signatures.items():
            record = records.get(object_id)
            content = record.content_hash() if record is not None else ""
            if any(s.content_hash != content or not s.seal_intact() for s in given):
                altered.add((type_id, object_id))
    return altered


def integrity_cell(altered: bool) -> str:
    """The words an export prints beside a row changed since it was sealed or signed (empty otherwise)."""
    return ALTERED if altered else ""
