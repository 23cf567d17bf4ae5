"""Regulated records written many at a time, each row as its service writes it one at a time (issue 27: the
generated year's floor, 45,000 signed records a year that cost two fifths of the machine written one by one).

A :class:`RecordBatch` is told, in the order a service would do them, what is created (``create``: the record as
``save()`` inserts it, with its history row "+" and its audit event "created"), changed (``change``: fields of an
existing row as ``save(update_fields=…)`` changes them, with the history row "~" and the "changed" event naming old
and new values) and signed (``sign``: the signature :func:`compliance.services._signature_give` writes and its
"signed" event), each by its person at its moment. :meth:`RecordBatch.write` then writes them in a few statements
a model: the ids taken from the sequences in that order (so the audit trail's order is the services'), the history
rows built as simple_history builds them (:func:`compliance.raw_writes.history_row_of`), the events by the audit
receiver's own :func:`compliance.signals.audit_event_of`, signatures and events sealed as ``save()`` seals them,
and the breach listener told as ``post_save`` tells it (:func:`compliance.breaches.bulk_written`). The database's
constraints and triggers check every row, as for a service's (one set in play a table, one use of a set's
identifiers, one signature a slot, one person a record where it needs two, a signed row's content never changing).

What is not done here is what a service checks in Python before it writes (the person's role and facility, the
password, the table's state): a caller writes in bulk what the services would accept, and says how that is known
(``equipment.scale_bulk``: the same plan through the services and in bulk gives the same rows,
``tests/equipment/test_scale_bulk.py``). A model whose save or signing would run anything more — a receiver of its
save, history or ``record_signed`` signals besides the known ones, an ``after_signature`` of its own, rows part of a
signed record — is refused rather than written without it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import groupby
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models

from compliance.actors import acting_as
from compliance.models import AuditEvent, RegulatedRecord, Signature
from compliance.models.base import _bulk_with_history
from compliance.models.chain import seal_rows
from compliance.raw_writes import history_model_of, history_row_of, known_receivers_only, receivers_of
from compliance.scale import reserve_ids, travel
from compliance.signals import audit_event_of

__all__ = ["RecordBatch"]


@dataclass
class _Step:
    kind: str  # "created", "changed", "signed"
    instance: Any
    actor: Any
    at: datetime
    slot: str = ""
    values: dict[str, Any] = field(default_factory=dict)
    history: Any = None
    signature: Any = None
    event: Any = None


@dataclass
class RecordBatch:
    """Records created, changed and signed, in the order given; written by :meth:`write` (PostgreSQL)."""

    steps: list[_Step] = field(default_factory=list)

    def create(self, instance: models.Model, *, actor: Any, at: datetime) -> models.Model:
        """A new row, created by ``actor`` at ``at`` (a record's ``created_at`` and ``created_by`` as ``save()`` would
        set them with the clock at ``at``). Its id is given by :meth:`write`; rows of this batch may refer to it."""
        if isinstance(instance, RegulatedRecord):
            instance.created_at = at.astimezone(UTC)
            if instance.created_by_id is None:
                instance.created_by = actor
        self.steps.append(_Step("created", instance, actor, at))
        return instance

    def change(self, instance: models.Model, *, actor: Any, at: datetime, **values: Any) -> None:
        """Fields of a stored row (or one created earlier in this batch) changed to ``values``; of a record, only
        fields its signatures do not vouch for (``RegulatedRecord.unsigned_fields``), as ``save_unsigned_fields``.
        The instance takes the values when the batch is written, in its turn."""
        if isinstance(instance, RegulatedRecord) and set(values) - instance.unsigned_fields:
            raise ValueError(f"{type(instance).__name__}: only unsigned fields change in bulk, not "
                             f"{sorted(set(values) - instance.unsigned_fields)}")
        self.steps.append(_Step("changed", instance, actor, at, values=values))

    def sign(self, record: RegulatedRecord, slot: str, *, signer: Any, at: datetime) -> None:
        """``signer``'s signature in ``slot`` of ``record`` at ``at``."""
        if type(record).requirement(slot) is None:
            raise ValueError(f"A {record._meta.verbose_name} has no signature called {slot!r}.")
        self.steps.append(_Step("signed", record, signer, at, slot=slot))

    # --- writing ---------------------------------------------------------------------------------------------

    def write(self) -> None:
        """Everything, in the caller's transaction. Each step's history row, signature and event are built in turn
        from the rows as they stand at that step (a set created, signed, then taken out of play later in the batch
        has its "+" history row and its signature's content as they were), the ids then given in that order."""
        if not self.steps:
            return
        self._check_models()
        self._give_ids([s.instance for s in self.steps if s.kind == "created"], lambda m: m._meta.db_table)
        for step in self.steps:
            if step.kind == "created":
                step.instance._prepare_related_fields_for_save(operation_name="bulk_create")
        earlier = self._stored_history()
        # Each step built with the clock at its moment, as its service ran: a record's name may read the clock (an
        # alert is "overdue since 10:00" today, "since Tue 3 Nov 10:00" after), and the audit event keeps the name.
        for at, steps in groupby(self.steps, key=lambda step: step.at):
            with travel(at):
                for step in steps:
                    self._built(step, earlier)
        self._give_ids([s.history for s in self.steps if s.history is not None],
                       lambda h: (h._meta.db_table, "history_id"))
        self._give_ids([s.signature for s in self.steps if s.signature is not None], lambda m: m._meta.db_table)
        events = [s for s in self.steps if s.event is not None]
        for step in events:
            if step.history is not None:
                step.event.history_id = step.history.pk
        self._give_ids([s.event for s in events], lambda m: m._meta.db_table)
        self._insert()
        for step in self.steps:  # simple_history would date a later save() of the instance by it
            step.instance.__dict__.pop("_history_date", None)

    @staticmethod
    def _built(step: _Step, earlier: dict[tuple[type[models.Model], Any], list[Any]]) -> None:
        """The step's signature, history row and audit event, from the rows as they stand now."""
        if step.kind == "signed":
            step.signature = _signature(step.instance, step.slot, step.actor, step.at)
            step.event = AuditEvent.of(step.instance, action=AuditEvent.Action.SIGNED, actor=step.actor,
                                       occurred_at=step.signature.signed_at,
                                       changes={"slot": step.slot, "meaning": step.signature.meaning,
                                                "content_hash": step.signature.content_hash})
            return
        for name, value in step.values.items():
            setattr(step.instance, name, value)
        step.instance._history_date = step.at.astimezone(UTC)
        with acting_as(step.actor):
            step.history = history_row_of(step.instance, "+" if step.kind == "created" else "~")
        rows = earlier.setdefault((type(step.instance), step.instance.pk), [])
        # simple_history's prev_record: the newest history row of the row dated before this one
        previous = max((r for r in rows if r.history_date < step.history.history_date),
                       key=lambda r: r.history_date, default=None)
        step.event = audit_event_of(step.instance, step.history, previous)
        rows.append(step.history)

    def _check_models(self) -> None:
        from compliance.services import record_signed

        for step in self.steps:
            model = type(step.instance)
            if step.kind != "signed" and not known_receivers_only(model, breaches_told=True):
                raise ValueError(f"{model.__name__}: its save runs more than this batch writes; save it instead")
            if step.kind == "signed" and (receivers_of(record_signed, model) or
                                          model.after_signature is not RegulatedRecord.after_signature):
                raise ValueError(f"{model.__name__}: signing it runs more than this batch writes; sign it instead")

    @staticmethod
    def _give_ids(rows: list[Any], sequence: Any) -> None:
        by_sequence: dict[Any, list[Any]] = defaultdict(list)
        for row in rows:
            by_sequence[sequence(type(row))].append(row)
        for where, taken in by_sequence.items():
            table, column = where if isinstance(where, tuple) else (where, "id")
            for row, pk in zip(taken, reserve_ids(table, len(taken), column), strict=True):
                row.pk = pk

    def _stored_history(self) -> dict[tuple[type[models.Model], Any], list[Any]]:
        """The stored history rows of each row this batch changes and did not create (one read a model)."""
        created = {(type(s.instance), s.instance.pk) for s in self.steps if s.kind == "created"}
        wanted: dict[type[models.Model], set[Any]] = defaultdict(set)
        for step in self.steps:
            key = (type(step.instance), step.instance.pk)
            if step.kind == "changed" and key not in created:
                wanted[key[0]].add(key[1])
        stored: dict[tuple[type[models.Model], Any], list[Any]] = defaultdict(list)
        for model, ids in wanted.items():
            for row in history_model_of(model).objects.filter(id__in=ids).order_by("history_id"):
                stored[(model, row.id)].append(row)
        return stored

    def _insert(self) -> None:
        from compliance.breaches import bulk_written

        created: dict[type[models.Model], list[Any]] = defaultdict(list)
        changed: dict[tuple[type[models.Model], str], list[Any]] = defaultdict(list)
        history: dict[type[models.Model], list[Any]] = defaultdict(list)
        new = {(type(s.instance), s.instance.pk) for s in self.steps if s.kind == "created"}
        for step in self.steps:
            if step.kind == "created":
                created[type(step.instance)].append(step.instance)
            elif step.kind == "changed" and (type(step.instance), step.instance.pk) not in new:
                # A row created in this batch is inserted as it ends (the service's insert then update).
                changed[(type(step.instance), ",".join(step.values))].append(step.instance)
            if step.history is not None:
                history[type(step.history)].append(step.history)
        token = _bulk_with_history.set(True)
        try:
            # The changes first: a set taken out of play leaves room for its successor (one in play a table).
            for (model, fields), rows in changed.items():
                model._default_manager.bulk_update(rows, fields.split(","))
            for model, rows in created.items():
                model._default_manager.bulk_create(rows)
            for model, rows in history.items():
                model._default_manager.bulk_create(rows)
            signatures = [s.signature for s in self.steps if s.signature is not None]
            events = [s.event for s in self.steps if s.event is not None]
            seal_rows([*signatures, *events])
            Signature.objects.bulk_create(signatures)
            AuditEvent.objects.bulk_create(events)
        finally:
            _bulk_with_history.reset(token)
        for model, rows in created.items():
            bulk_written(model, rows)
        for (model, _fields), rows in changed.items():
            bulk_written(model, rows)


def _signature(record: RegulatedRecord, slot: str, signer: Any, at: datetime) -> Signature:
    """The signature :func:`compliance.services._signature_give` writes (the slot's requirement, the signer's
    printed name, credential, department and role), given at ``at``."""
    from compliance.services import _eligible_role

    requirement = type(record).requirement(slot)
    assert requirement is not None  # RecordBatch.sign checked it
    profile = signer.profile
    return Signature(
        facility_id=record.facility_id, content_type=ContentType.objects.get_for_model(record), object_id=record.pk,
        slot=slot, meaning=requirement.meaning, signer=signer, printed_name=profile.full_name,
        credential_number=profile.credential_number, department=profile.department.name,
        role=_eligible_role(signer, requirement, "you"), content_hash=record.content_hash(),
        distinct_person=requirement.distinct, citation=requirement.citation or type(record).citation,
        signed_at=at.astimezone(UTC))
