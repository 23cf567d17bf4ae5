"""Seals and the keyed hash chain: evidence no one can rewrite unseen, not even with the database.

Every signature, audit event and coupon ledger line is *sealed* as it is inserted: ``seal`` is an
HMAC-SHA256 of the row's content under ``settings.AUDIT_CHAIN_KEY``, a secret kept out of the
database. Sealing needs nothing but the row itself, so concurrent inserts never wait on each other.
A frequent job (:mod:`compliance.chain`) then links the sealed rows of each table into a chain of
:class:`ChainLink` rows: each link names the rows it covers and carries an HMAC over the previous
link's hash and every covered row's seal. Whoever changes a row must recompute its seal, which needs
the key; whoever removes or adds a row breaks a link.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from compliance.bounds import COUNT_FROM_ONE, ROW_ID, ROW_POSITION
from compliance.models.base import AppendOnly, RegulatedQuerySet, _plain

__all__ = ["ChainLink", "Sealed", "chain_hmac", "decode_ids", "encode_ids", "seal_rows"]

# Fields a seal does not cover: the row's id (assigned by the database after the seal is computed;
# the chain binds it) and the seal itself.
_UNSEALED = frozenset({"id", "seal"})


def _key() -> bytes:
    key = settings.AUDIT_CHAIN_KEY
    if not key:
        raise RuntimeError("AUDIT_CHAIN_KEY is not set: rows cannot be sealed")
    return key.encode()


def chain_hmac() -> hmac.HMAC:
    """A fresh HMAC-SHA256 under the chain key."""
    return hmac.new(_key(), digestmod=hashlib.sha256)


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

    # Null for rows inserted before sealing existed; nullable also so that SQLite adds the column in
    # place rather than rebuilding the table, which would drop the table's append-only triggers.
    seal = models.CharField(
        max_length=64, null=True, blank=True, editable=False,
        help_text="HMAC-SHA256 of the row's content under the audit chain key (empty: inserted before sealing)",
    )

    # The chain a model's rows are linked in: its label, unless a model says otherwise.
    chain_name: ClassVar[str] = ""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._state.adding:
            self.seal = self.compute_seal()
        super().save(*args, **kwargs)

    @classmethod
    def chain_label(cls) -> str:
        return cls.chain_name or cls._meta.label

    def sealed_content(self) -> dict[str, Any]:
        content = {
            f.attname: _stored(f, getattr(self, f.attname))
            for f in self._meta.concrete_fields
            if f.name not in _UNSEALED
        }
        return content | {"model": self._meta.label}

    def compute_seal(self) -> str:
        mac = chain_hmac()
        mac.update(json.dumps(self.sealed_content(), sort_keys=True, separators=(",", ":"), default=str).encode())
        return mac.hexdigest()

    def seal_intact(self) -> bool:
        """True unless the row's content no longer matches its seal (rows from before sealing: True)."""
        return not self.seal or hmac.compare_digest(self.seal, self.compute_seal())


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


class ChainLinkQuerySet(RegulatedQuerySet["ChainLink"]):
    pass


class ChainLink(AppendOnly):
    """One batch of a table's sealed rows joined to the chain.

    ``link_hash`` = HMAC(key, chain, sequence, previous, each covered row's id and seal in id order).
    ``floor``: every row of the chain with an id at or below it is covered by this link or an earlier
    one (the linker rescans only above it). ``late_seals``: seals computed at linking for rows inserted
    before sealing existed (their ``seal`` is empty).
    """

    append_only_what = "Chain links"

    chain = models.CharField(max_length=100, help_text="The label of the sealed model")
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

    objects = ChainLinkQuerySet.as_manager()

    class Meta:
        ordering = ["chain", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["chain", "sequence"], name="chain_link_sequence_once"),
            *ROW_ID.checks("sequence", "first_id", "last_id"),
            *COUNT_FROM_ONE.checks("row_count"),
            *ROW_POSITION.checks("floor"),
        ]
        indexes = [models.Index(fields=["chain", "last_id"], name="chain_link_last_id")]

    def __str__(self) -> str:
        return f"{self.chain} link {self.sequence} ({self.row_count} rows)"
