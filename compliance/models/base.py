"""The base classes every regulated model stands on.

``AuditedModel``: every change is kept by django-simple-history with the acting user
(:mod:`compliance.actors`) and indexed in :class:`~compliance.models.AuditEvent`. Writes that would
skip history (``QuerySet.update``, ``bulk_update``, plain ``bulk_create``, queryset ``delete``) raise
:class:`RegulatedWriteError`; bulk inserts go through :func:`regulated_bulk_create`, which writes
the history rows and audit events too.

``RegulatedRecord``: a record of a regulated form or ledger entry. It belongs to a facility, cites
its clause, declares the signatures it needs, and once any signature is given it is never edited or
deleted: a correction is a new record that points at the one it corrects, with a reason
(``compliance.services.record_correct``). Both stay visible.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from django.conf import settings
from django.contrib.contenttypes.fields import GenericRelation
from django.db import models, transaction
from django.utils import timezone
from simple_history.models import HistoricalRecords
from simple_history.utils import bulk_update_with_history, get_history_manager_for_model

from compliance.actors import current_actor, history_user_getter
from compliance.citations import Citation, cite

if TYPE_CHECKING:
    from compliance.models.signatures import Signature, SignatureRequirement

__all__ = [
    "AppendOnly",
    "AuditedModel",
    "RegulatedQuerySet",
    "RegulatedRecord",
    "RegulatedWriteError",
    "SignedPart",
    "SignedRecordError",
    "regulated_bulk_create",
    "regulated_bulk_update",
]


class RegulatedWriteError(RuntimeError):
    """A write that would bypass history or change a regulated record in place."""


class SignedRecordError(RegulatedWriteError):
    """A signed record was about to be edited or deleted."""


_bulk_with_history: contextvars.ContextVar[bool] = contextvars.ContextVar("bulk_with_history", default=False)

M = TypeVar("M", bound=models.Model)


class RegulatedQuerySet(models.QuerySet[M, M]):
    def update(self, **kwargs: Any) -> int:
        if _bulk_with_history.get():  # bulk_update's own statement, its history written beside it
            return super().update(**kwargs)
        raise RegulatedWriteError(
            f"{self.model.__name__}: QuerySet.update() skips history; save each record through its service"
        )

    def bulk_update(self, objs: Iterable[M], fields: Iterable[str], batch_size: int | None = None) -> int:
        if not _bulk_with_history.get():
            raise RegulatedWriteError(
                f"{self.model.__name__}: bulk_update() skips history; use compliance.models.regulated_bulk_update()")
        return super().bulk_update(objs, fields, batch_size=batch_size)

    def bulk_create(self, objs: Iterable[M], *args: Any, **kwargs: Any) -> list[M]:
        if not _bulk_with_history.get():
            raise RegulatedWriteError(
                f"{self.model.__name__}: use compliance.models.regulated_bulk_create(), which keeps history"
            )
        from compliance.models.chain import seal_rows

        objs = list(objs)
        seal_rows(objs)  # each row its own HMAC, as save() gives it: no lock, nothing shared
        return super().bulk_create(objs, *args, **kwargs)

    def delete(self) -> tuple[int, dict[str, int]]:
        raise RegulatedWriteError(f"{self.model.__name__}: regulated records are never deleted")

    delete.queryset_only = True  # type: ignore[attr-defined]


class RegulatedManager(models.Manager.from_queryset(RegulatedQuerySet)):  # type: ignore[misc]
    pass


def regulated_bulk_create(model: type[M], objs: list[M], *, batch_size: int = 1000) -> list[M]:
    """Insert many rows of a regulated model with their history rows and audit events, in few queries: the rows,
    then their history rows (as ``simple_history.utils.bulk_create_with_history`` writes them where the database
    returns the rows' ids, as PostgreSQL and SQLite both do), then each row's audit event as the audit receiver
    writes it for one row's save (``AuditEvent.record_bulk_created``)."""
    from compliance.models.audit import AuditEvent

    actor = current_actor()
    if issubclass(model, RegulatedRecord) and actor is not None:
        for obj in objs:  # as RegulatedRecord.save() stamps a new record with the person creating it
            if obj.created_by_id is None:  # type: ignore[attr-defined]  # a RegulatedRecord's, checked above
                obj.created_by = actor  # type: ignore[attr-defined]
    token = _bulk_with_history.set(True)
    try:
        with transaction.atomic(savepoint=False):
            created = model._default_manager.bulk_create(objs, batch_size=batch_size)
            if any(obj.pk is None for obj in created):
                raise RegulatedWriteError(f"{model.__name__}: the database returned no ids for the rows inserted, "
                                          "so their history rows could not name them")
            histories = get_history_manager_for_model(model).bulk_history_create(
                created, batch_size=batch_size, default_user=actor)
    finally:
        _bulk_with_history.reset(token)
    if histories is not None:  # None: history is switched off (SIMPLE_HISTORY_ENABLED), and so is its receiver
        AuditEvent.record_bulk_created(created, histories)
    _bulk_written(model, created)
    return created


def regulated_bulk_update(model: type[M], objs: list[M], fields: list[str], *, before: dict[Any, dict[str, Any]],
                          batch_size: int = 1000) -> int:
    """Update ``fields`` of many rows of a regulated model with their history rows and audit events ("changed", each
    field's old and new value in words as ``compliance.signals`` writes them), in few queries. ``before``: each row's
    values of ``fields`` before the change (a foreign key's id), by primary key. Not for append-only or signed rows (their ``save``
    refuses; so does this)."""
    from compliance.models.audit import AuditEvent

    if issubclass(model, AppendOnly) or getattr(model, "signed_part_of", None) is not None \
            or issubclass(model, RegulatedRecord):
        raise RegulatedWriteError(f"{model.__name__}: rows of signed or append-only records are not updated")
    if not objs:
        return 0
    actor = current_actor()
    token = _bulk_with_history.set(True)
    try:
        updated = bulk_update_with_history(objs, model, fields, batch_size=batch_size, default_user=actor)
    finally:
        _bulk_with_history.reset(token)
    AuditEvent.record_bulk_changed(objs, fields, before=before, actor=actor)
    _bulk_written(model, objs)
    return int(updated or 0)


def _bulk_written(model: type[models.Model], objs: list[Any]) -> None:
    """Readiness's caches and breach periods, told of rows written without ``post_save`` (compliance.breaches)."""
    from compliance.breaches import bulk_written

    bulk_written(model, objs)


class AppendOnly(models.Model):
    """Rows that are written once: evidence (signatures, audit events, ledger lines) is never changed.

    The database backs this up on PostgreSQL with the ``compliance_refuse_change()`` trigger.
    """

    append_only_error: ClassVar[type[RegulatedWriteError]] = RegulatedWriteError
    append_only_what: ClassVar[str] = "These rows"
    append_only_hint: ClassVar[str] = ""  # what to do instead, e.g. "; record a new movement instead"

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise self.append_only_error(
                f"{self.append_only_what} are append-only: never changed{self.append_only_hint}"
            )
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise self.append_only_error(f"{self.append_only_what} are append-only: never deleted{self.append_only_hint}")


@dataclass(frozen=True)
class SignedPart:
    """Declares a model whose rows are part of a signed record's content (its ``signable_content``): a
    reconciliation form's figures, an inventory's counts. Once the record is signed, the database refuses
    to add, change or delete such a row (a trigger generated from this declaration by
    :mod:`compliance.db_guards`, installed by a migration), and so does ``save()``.

    ``record``: the lookup path from this model to the signed record (``"form"``, ``"run__signoff"``).
    ``columns``: only these fields are vouched for (default: the whole row).
    ``insert_allowed_if``: field values that make an insert after signing legitimate (a report's signed
    copy, written by the approval itself).
    """

    record: str
    columns: tuple[str, ...] = ()
    insert_allowed_if: tuple[tuple[str, str], ...] = ()


class _AuditedHistory(HistoricalRecords):
    """django-simple-history's history tables, but for a model that says ``history_keys_indexed = False`` its
    history table carries no index on each foreign key column. A history table is read by the row's id and by
    time, never looked up by a foreign key (its keys have no constraint: nothing cascades to them), so on a table
    that gains tens of thousands of rows a day those indexes are only a cost: the redemptions' history had eight
    of them, written at every scan and by the generated year (issue 27)."""

    def copy_fields(self, model: type[models.Model]) -> dict[str, models.Field[Any, Any]]:
        fields: dict[str, models.Field[Any, Any]] = super().copy_fields(model)
        if not getattr(model, "history_keys_indexed", True):
            for field in fields.values():
                if isinstance(field, models.ForeignKey):
                    field.db_index = False  # type: ignore[attr-defined]  # set by Field.__init__, not in the stubs
        return fields


class AuditedModel(models.Model):
    history = _AuditedHistory(inherit=True, get_user=history_user_getter)
    # False: the history table has no index on each foreign key (see _AuditedHistory).
    history_keys_indexed: ClassVar[bool] = True

    # For rows without a ``facility`` of their own (a form's figures): the foreign key to the record
    # that has one, so the audit trail files their changes under the right facility.
    facility_through: ClassVar[str] = ""
    # Rows that are part of a signed record's content: frozen with it (see SignedPart).
    signed_part_of: ClassVar[SignedPart | None] = None

    objects = RegulatedManager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        part = self.signed_part_of
        if part is not None and not part.columns:
            signed = self._signed_record_of_part()
            if signed is not None:
                raise SignedRecordError(
                    f"{self._meta.verbose_name} is part of {signed._meta.verbose_name} #{signed.pk}, which is signed: "
                    "it cannot change; record a correction instead"
                )
        super().save(*args, **kwargs)

    def _signed_record_of_part(self) -> RegulatedRecord | None:
        """The signed record this row (as saved, and as about to be saved) belongs to, if any."""
        assert self.signed_part_of is not None
        path = self.signed_part_of.record.split("__")
        candidates: list[Any] = []
        if not self._state.adding and self.pk is not None:
            stored = type(self)._base_manager.filter(pk=self.pk).first()
            candidates.append(stored)
        candidates.append(self)
        for row in candidates:
            record: Any = row
            for step in path:
                record = getattr(record, step, None) if record is not None else None
            if isinstance(record, RegulatedRecord) and record.is_signed():
                return record
        return None

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise RegulatedWriteError(f"{type(self).__name__} records are never deleted; deactivate or correct them")


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, date | Decimal):
        return str(value) if not isinstance(value, date) else value.isoformat()
    if isinstance(value, models.Model):
        return value.pk
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "name") and hasattr(value, "url"):  # FieldFile
        return value.name or ""
    return value


class RegulatedRecord(AuditedModel):
    """A regulated form or ledger entry of one facility; immutable once signed."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, editable=False
    )
    corrects = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="corrected_by",
        help_text="The signed record this one corrects. A record can be corrected once; correct the correction "
        "to change it again.",
    )
    correction_reason = models.TextField(blank=True)

    signatures = GenericRelation("compliance.Signature")

    if TYPE_CHECKING:
        facility_id: int
        created_by_id: int | None
        corrects_id: int | None
        corrected_by: RegulatedRecord
        _prefetched_objects_cache: dict[str, Any]

    # The clause the record implements, e.g. "525.21(g)"; shown on every screen and document.
    citation: ClassVar[str] = ""
    # The signatures the record needs before it is complete.
    signature_requirements: ClassVar[tuple[SignatureRequirement, ...]] = ()
    # Fields left out of the signed content hash (none by default).
    unsigned_fields: ClassVar[frozenset[str]] = frozenset()
    # The related rows its name (``__str__``) reads, as ``select_related`` takes them ("table", "dice_set__table"):
    # joined wherever records are listed by name (the dashboard's "awaiting your signature"), so a list of twenty
    # names asks what a list of one asks (tests/compliance/test_named_with.py holds every signed type to it).
    named_with: ClassVar[tuple[str, ...]] = ()

    class Meta:
        abstract = True

    # --- immutability ---------------------------------------------------------------------
    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding and self.is_signed():
            raise SignedRecordError(
                f"{self._meta.verbose_name} #{self.pk} is signed and cannot be changed; record a correction instead"
            )
        if self._state.adding and self.created_by_id is None:
            actor = current_actor()
            if actor is not None:
                self.created_by = actor
        if self.corrects_id and not self.correction_reason.strip():
            raise RegulatedWriteError("A correction must state its reason")
        super().save(*args, **kwargs)

    # --- citation -------------------------------------------------------------------------
    @classmethod
    def get_citation(cls) -> Citation | None:
        return cite(cls.citation) if cls.citation else None

    # --- signatures -----------------------------------------------------------------------
    @classmethod
    def still_awaited(cls, pending: models.QuerySet[Any]) -> models.QuerySet[Any]:
        """Of unsigned records, those whose signatures are still wanted (the dashboard's "awaiting your
        signature"); a record type whose records can be overtaken otherwise than by a correction narrows it."""
        return pending

    @classmethod
    def requirement(cls, slot: str) -> SignatureRequirement | None:
        return next((r for r in cls.signature_requirements if r.slot == slot), None)

    def signature_list(self) -> list[Signature]:
        """Signatures given, using a prefetch of ``signatures`` when there is one."""
        return list(self.signatures.all())

    def signature_slots(self) -> list[tuple[SignatureRequirement, Signature | None]]:
        given = {s.slot: s for s in self.signature_list()}
        return [(req, given.get(req.slot)) for req in self.signature_requirements]

    @property
    def missing_signatures(self) -> list[SignatureRequirement]:
        return [req for req, sig in self.signature_slots() if sig is None]

    @property
    def is_complete(self) -> bool:
        return not self.missing_signatures

    def is_signed(self) -> bool:
        if self.pk is None:
            return False
        if "signatures" in getattr(self, "_prefetched_objects_cache", {}):
            return bool(self._prefetched_objects_cache["signatures"])
        return self.signatures.exists()

    @classmethod
    def read_content_of(cls, records: list[Any]) -> None:
        """Read at once, for these records of this type, what :meth:`signable_content` reads beyond each one's row
        (its child rows), so a page or an export that checks many records (``compliance.chain.altered_records``)
        asks a query a type, not a query a record. A type whose content reads child rows overrides both; what is
        read here is used by the next ``signable_content`` of that record only."""

    def signable_content(self) -> dict[str, Any]:
        """The content a signature vouches for. Records with child rows add them here."""
        skipped = {"history", *self.unsigned_fields}
        return {
            f.attname: _plain(getattr(self, f.attname)) for f in self._meta.concrete_fields if f.name not in skipped
        } | {"model": self._meta.label}

    def content_hash(self) -> str:
        payload = json.dumps(self.signable_content(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(payload.encode()).hexdigest()

    def save_unsigned_fields(self, *fields: str) -> None:
        """Save fields a signature does not vouch for (declared in ``unsigned_fields``), even once signed.

        For derived markers kept on the record for the database's sake (e.g. "removed from play at",
        set by a separate signed removal record). History keeps the change like any other.
        """
        stray = set(fields) - self.unsigned_fields
        if not fields or stray:
            raise SignedRecordError(
                f"{type(self).__name__}: only fields left out of the signed content may change after signing; "
                f"{', '.join(sorted(stray)) or 'no field'} given"
            )
        AuditedModel.save(self, update_fields=list(fields))

    @property
    def altered_since_signed(self) -> bool:
        """Signed, and since changed: the content no longer hashes to what was signed, or a signature
        no longer matches its keyed seal (a content hash recomputed behind the application's back)."""
        signatures = self.signature_list()
        if not signatures:
            return False
        content = self.content_hash()
        return any(s.content_hash != content or not s.seal_intact() for s in signatures)

    @property
    def is_superseded(self) -> bool:
        return hasattr(self, "corrected_by")

    def after_signature(self, signature: Signature) -> None:
        """Hook run inside the signing transaction; records override it to react to completion."""
