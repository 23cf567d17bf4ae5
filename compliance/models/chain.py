"""Seals and the hash chain: evidence no one can rewrite unseen, not even with the database.

Every signature, audit event, coupon ledger line, redemption, report file, anchor and verification is
*sealed* in its own INSERT: ``seal`` is ``<key id>:`` and an HMAC-SHA256 of the row's canonical content
under the audit chain key (:mod:`compliance.seal_keys`), a secret kept out of the database; the column is
NOT NULL. Sealing needs nothing but the row itself, so concurrent inserts never wait on each other.

A frequent job (:mod:`compliance.chain`) then links the sealed rows into chains, one per facility and
kind (rows with no facility in chains of their own), of :class:`ChainLink` rows. A link names the rows
it covers and keeps each row's digest (SHA-256 of its canonical content and seal); its ``link_hash`` is a
plain SHA-256 over the chain, its sequence, the previous link's hash, the ids and the digests, so anyone
holding the rows can recompute it without the key; ``link_mac`` seals that hash with the key. The
facility's chain heads are anchored outside the casino (:class:`ChainAnchor`, e-mailed to the Board), so
even someone holding the key cannot rewrite, reorder or cut short what came before an anchor unseen.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from django.db import models
from django.utils import timezone

from compliance.bounds import COUNT_FROM_ONE, ROW_ID, ROW_POSITION, Bounds
from compliance.models.base import AppendOnly, RegulatedQuerySet, _plain
from compliance.seal_keys import LEGACY_KEY_ID, key_ring, seal_check, seal_of

__all__ = ["ChainLink", "Sealed", "canonical", "chain_hmac", "decode_ids", "encode_ids", "legacy_hmac",
           "row_digest", "seal_rows"]

# Fields a seal does not cover: the row's id (assigned by the database after the seal is computed;
# the chain binds it) and the seal itself.
_UNSEALED = frozenset({"id", "seal"})


def chain_hmac() -> hmac.HMAC:
    """A fresh HMAC-SHA256 under the current chain key."""
    return hmac.new(key_ring().current, digestmod=hashlib.sha256)


def legacy_hmac() -> hmac.HMAC | None:
    """An HMAC-SHA256 under key 1, the key of the links made before chains had digests (None: not held)."""
    key = key_ring().keys.get(LEGACY_KEY_ID)
    return hmac.new(key, digestmod=hashlib.sha256) if key is not None else None


def canonical(content: dict[str, Any]) -> bytes:
    """The bytes a seal and a digest are made of: sorted keys, no spaces, anything else as text."""
    return json.dumps(content, sort_keys=True, separators=(",", ":"), default=str).encode()


def row_digest(payload: bytes, seal: str | None) -> bytes:
    """A row's entry in its link: SHA-256 of its canonical content and its seal."""
    return hashlib.sha256(payload + b"\n" + (seal or "").encode()).digest()


def _stored(field: models.Field[Any, Any], value: Any) -> Any:
    """The value as it will read back from the database, so the seal computed before the insert is the
    one recomputed later (JSON through its encoder, text-typed input through ``to_python``)."""
    if isinstance(field, models.JSONField):
        return json.loads(json.dumps(value, cls=field.encoder))
    if value is None:
        return None
    try:
        return _plain(field.to_python(value))
    except Exception:
        return _plain(value)


class Sealed(models.Model):
    """A row sealed with the chain key at insert (see the module docstring)."""

    # Set in the row's own INSERT, never after: NOT NULL in the database (PostgreSQL; a trigger on SQLite,
    # where changing the column would rebuild the table and drop its triggers).
    seal = models.CharField(
        max_length=100, editable=False,
        help_text="The key's id and the HMAC-SHA256 of the row's content under that audit chain key",
    )

    # The lookup from a row to its facility: each facility's rows form chains of their own.
    chain_facility: ClassVar[str] = "facility"

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._state.adding:
            self.seal = self.compute_seal()
        super().save(*args, **kwargs)

    @classmethod
    def chain_label(cls, facility_id: int | None = None) -> str:
        """The chain of this model's rows of one facility (``@-``: rows with no facility)."""
        return f"{cls._meta.label}@{facility_id if facility_id is not None else '-'}"

    @classmethod
    def belongs_to(cls, content: dict[str, Any]) -> str:
        """The record a row of this model is evidence of, in words, from its sealed content (a signature names
        the record it signs; a ledger line, its document). Models override it."""
        return ""

    def sealed_content(self) -> dict[str, Any]:
        content = {
            f.attname: _stored(f, getattr(self, f.attname))
            for f in self._meta.concrete_fields
            if f.name not in _UNSEALED
        }
        return content | {"model": self._meta.label}

    def canonical_content(self) -> bytes:
        return canonical(self.sealed_content())

    def compute_seal(self) -> str:
        return seal_of(self.canonical_content())

    def seal_problem(self) -> str:
        """Why the row fails its seal ("" when it holds): none, an unknown key, or content changed."""
        return seal_check(self.seal, self.canonical_content())

    def seal_intact(self) -> bool:
        """False when the row has no seal or no longer matches it."""
        return not self.seal_problem()


def seal_rows(objs: Iterable[models.Model]) -> None:
    """Seal rows about to be bulk-inserted (``RegulatedQuerySet.bulk_create`` calls this)."""
    for obj in objs:
        if isinstance(obj, Sealed):
            obj.seal = obj.compute_seal()


def encode_ids(ids: Iterable[int]) -> str:
    """Sorted ids as compact runs: ``1-250,252,260-300``."""
    runs: list[str] = []
    start = previous = None
    for current in sorted(ids):
        if start is None:
            start = previous = current
        elif current == previous + 1:  # type: ignore[operator]
            previous = current
        else:
            runs.append(f"{start}" if start == previous else f"{start}-{previous}")
            start = previous = current
    if start is not None:
        runs.append(f"{start}" if start == previous else f"{start}-{previous}")
    return ",".join(runs)


def decode_ids(text: str) -> Iterator[int]:
    for run in filter(None, text.split(",")):
        first, _, last = run.partition("-")
        yield from range(int(first), int(last or first) + 1)


SCHEME = Bounds(1, 2)


class ChainLinkQuerySet(RegulatedQuerySet["ChainLink"]):
    pass


class ChainLink(AppendOnly):
    """One batch of a table's sealed rows joined to the chain.

    Scheme 2 (every link made since chains were per facility): ``link_hash`` = SHA-256 over the chain,
    sequence, previous hash, ``ids`` and ``digests`` (each covered row's :func:`row_digest`, in id order);
    ``link_mac`` seals ``link_hash`` with the key. ``model`` is the sealed model's label, ``facility`` the
    chain's facility (none: the chain of rows with no facility). ``floor``: every row of the *model* with
    an id at or below it is covered by some link (the linker rescans only above it).

    Scheme 1 (the links made before, one chain per model, kept as they were and still verified):
    ``link_hash`` = HMAC(key 1, chain, sequence, previous, each covered row's id and seal); ``late_seals``
    the seals computed at linking for rows inserted before sealing existed.
    """

    append_only_what = "Chain links"

    chain = models.CharField(max_length=100, help_text="The sealed model's label and the facility (@id, @- for none)")
    model = models.CharField(max_length=100, blank=True, help_text="The sealed model's label (scheme 2)")
    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, null=True, blank=True,
                                 related_name="+")
    scheme = models.PositiveSmallIntegerField(default=1, validators=SCHEME.validators)
    sequence = models.PositiveBigIntegerField(validators=ROW_ID.validators)
    previous = models.CharField(max_length=64, blank=True, help_text="link_hash of the previous link")
    link_hash = models.CharField(max_length=64)
    ids = models.TextField(help_text="Ids of the rows covered, as runs (1-250,252)")
    first_id = models.BigIntegerField(validators=ROW_ID.validators)
    last_id = models.BigIntegerField(validators=ROW_ID.validators)
    row_count = models.PositiveIntegerField(validators=COUNT_FROM_ONE.validators)
    floor = models.BigIntegerField(default=0, validators=ROW_POSITION.validators)
    late_seals = models.JSONField(default=dict, blank=True)
    linked_at = models.DateTimeField(default=timezone.now)
    digests = models.BinaryField(default=b"", blank=True, help_text="Each covered row's SHA-256 digest, in id order")
    link_mac = models.CharField(max_length=100, blank=True, help_text="link_hash sealed with the key (scheme 2)")

    objects = ChainLinkQuerySet.as_manager()

    class Meta:
        ordering = ["chain", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["chain", "sequence"], name="chain_link_sequence_once"),
            *ROW_ID.checks("sequence", "first_id", "last_id"),
            *COUNT_FROM_ONE.checks("row_count"),
            *ROW_POSITION.checks("floor"),
            *SCHEME.checks("scheme"),
        ]
        indexes = [
            models.Index(fields=["chain", "last_id"], name="chain_link_last_id"),
            models.Index(fields=["model", "last_id"], name="chain_link_model_last_id"),
            models.Index(fields=["model", "first_id"], name="chain_link_model_first_id"),
            models.Index(fields=["model", "linked_at"], name="chain_link_model_linked_at"),
        ]

    def __str__(self) -> str:
        return f"{self.chain} link {self.sequence} ({self.row_count} rows)"
