"""A regulated row written by a hot path in one statement: the row, its history row and its audit event — the rows
``save()`` writes through simple_history and :func:`compliance.signals.index_history_row` — built by the same code
from the same instance, sealed the same way, sent as one prepared statement (PostgreSQL).

``save()`` of a regulated model compiles three INSERTs (the row, then simple_history's history row in
``post_save``, then the audit event in ``post_create_historical_record``) and sends each on its own: about a third of
a coupon scan's Python and three of its round trips (issue 27's profile of the redemption API). Here the history row
is built as simple_history builds it (the model's tracked fields, the date, ``history_user_getter``'s actor, the
change reason) and the audit event by :func:`compliance.signals.audit_event_of`, the receiver's own code; the ids
are taken from their sequences first, inside the transaction (the audit event's seal covers the row's id and its
history row's, and the chain linker's horizon is the oldest transaction running), and the rows go out in one
``INSERT … WITH`` statement: all or none, the row's own triggers and constraints as they are.

Where that would skip something ``save()`` does — SQLite (no data-modifying ``WITH``), a model whose rows are part
of a signed record, history of many-to-many fields, or any receiver of the save or history signals besides
simple_history's, the audit index and the breach listener for a model it ignores — :func:`audited_insert` calls
``save()`` instead, so a receiver added later is never skipped unseen (``tests/compliance/test_raw_writes.py`` holds
the rows of both ways equal, and the redemption's to this way).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from django.db import connection, models, transaction
from django.db.models.signals import post_save, pre_save
from django.utils import timezone
from simple_history.models import HistoricalRecords
from simple_history.signals import post_create_historical_record, pre_create_historical_record
from simple_history.utils import get_change_reason_from_object

from compliance.actors import history_user_getter
from compliance.models.chain import Sealed
from compliance.raw_reads import current_connection, fetch

__all__ = ["audited_insert", "history_model_of", "history_row_of", "known_receivers_only", "plain_insert",
           "receivers_of", "takes_one_statement"]

Rows = Callable[[models.Model], Sequence[models.Model]]
# How long ids taken outside a transaction may wait for their insert (:func:`audited_insert`): a third of the chain
# linker's margin. Measured on the clock that counts a machine's suspension too (Linux's boot time), where there is one.
IDS_FRESH_FOR = 20.0
_clock = functools.partial(time.clock_gettime, time.CLOCK_BOOTTIME) if hasattr(time, "CLOCK_BOOTTIME") else time.monotonic


def history_model_of(model: type[models.Model]) -> Any:
    """The simple_history model of ``model`` (the class attribute's descriptor holds it; reading ``model.history``
    would build a manager class each time)."""
    descriptor = next(vars(klass)["history"] for klass in model.__mro__ if "history" in vars(klass))
    return descriptor.model


def receivers_of(signal: Any, sender: type[models.Model]) -> list[Any]:
    live = signal._live_receivers(sender)
    receivers = live[0] + live[1] if isinstance(live, tuple) else live  # Django 5: (sync, async)
    return [getattr(r, "__func__", r) for r in receivers]


def takes_one_statement(model: type[models.Model]) -> bool:
    """Whether :func:`audited_insert` writes ``model``'s rows in one statement here (else through ``save()``)."""
    return connection.vendor == "postgresql" and known_receivers_only(model)


def known_receivers_only(model: type[models.Model], *, breaches_told: bool = False) -> bool:
    """Saving a row of ``model`` runs only simple_history, the audit index and the breach listener (for a model
    whose rows readiness reads, only if the caller tells it, ``breaches_told``: ``compliance.breaches.bulk_written``;
    else only for a model it ignores)."""
    from compliance.breaches import _saved
    from compliance.readiness import watched_models
    from compliance.signals import index_history_row

    history = history_model_of(model)
    ignored_by_breaches = [_saved] if breaches_told or model not in watched_models() else []
    return (getattr(model, "signed_part_of", None) is None and not getattr(history, "_history_m2m_fields", None)
            and not receivers_of(pre_save, model) and not receivers_of(pre_create_historical_record, history)
            and sorted(map(id, receivers_of(post_save, model))) == sorted(map(id, [HistoricalRecords.post_save,
                                                                                 *ignored_by_breaches]))
            and receivers_of(post_create_historical_record, history) == [index_history_row])


@cache
def _sequences(model: type[models.Model]) -> list[str]:
    """The sequences giving ids to the row, its history row and its audit event."""
    from compliance.models import AuditEvent

    tables = [(m._meta.db_table, m._meta.pk.column) for m in (model, history_model_of(model), AuditEvent)]
    return [str(fetch("SELECT pg_get_serial_sequence(%s, %s)", [f'"{table}"', column])[0][0])
            for table, column in tables]


def _columns(model: type[models.Model], *, with_pk: bool) -> list[Any]:
    return [f for f in model._meta.concrete_fields if with_pk or not f.primary_key]


def _insert(n: int, model: type[models.Model], fields: list[Any], rows: str, returning: str = "") -> str:
    names = ", ".join(f'"{f.column}"' for f in fields)
    return f'r{n} AS (INSERT INTO "{model._meta.db_table}" ({names}) {rows}{returning})'


@cache
def _history_copied(model: type[models.Model]) -> tuple[list[Any], list[Any]]:
    """The history model's fields copied from the row (simple_history's tracked fields), and its own."""
    history = history_model_of(model)
    tracked = {f.attname for f in history.tracked_fields}
    fields = history._meta.concrete_fields
    return [f for f in fields if f.attname in tracked], [f for f in fields if f.attname not in tracked]


@cache
def _statement(model: type[models.Model], then: tuple[tuple[type[models.Model], bool], ...]) -> str:
    """``WITH r0 AS (INSERT … RETURNING …), r1 AS (INSERT … SELECT … FROM r0), …, r3 AS (INSERT … RETURNING id)
    SELECT (SELECT id FROM r3)``: every part runs to completion as one statement. The history row copies the row
    as the database stored it (as simple_history copies the instance's tracked fields); the ids the database
    gives (rows inserted without one) come back in order."""
    from compliance.models import AuditEvent

    copied, own = _history_copied(model)
    values = lambda fields: f'VALUES ({", ".join(["%s"] * len(fields))})'  # noqa: E731
    row_fields = _columns(model, with_pk=True)
    taken = ", ".join(f'"{f.column}"' for f in copied)
    parts = [
        _insert(0, model, row_fields, values(row_fields), f" RETURNING {taken}"),
        _insert(1, history_model_of(model), [*copied, *own],
                f'SELECT {taken}, {", ".join(["%s"] * len(own))} FROM r0'),  # noqa: S608 - names from the models
        _insert(2, AuditEvent, _columns(AuditEvent, with_pk=True), values(_columns(AuditEvent, with_pk=True))),
    ]
    given = []
    for n, (other, with_pk) in enumerate(then, start=3):
        fields = _columns(other, with_pk=with_pk)
        parts.append(_insert(n, other, fields, values(fields), "" if with_pk else f' RETURNING "{other._meta.pk.column}"'))
        if not with_pk:
            given.append(f'(SELECT "{other._meta.pk.column}" FROM r{n})')  # noqa: S608 - names from the models
    return f"WITH {', '.join(parts)} SELECT {', '.join(given) or 'true'}"


def _values(obj: models.Model, fields: list[Any]) -> list[Any]:
    values = []
    db = current_connection()
    for field in fields:
        own: Any = field  # Field.pre_save and get_db_prep_save as the ORM's insert compiler calls them
        values.append(own.get_db_prep_save(own.pre_save(obj, True), connection=db))
    return values


def history_row_of(instance: models.Model, history_type: str = "+") -> Any:
    """The history row simple_history's ``create_historical_record`` builds for ``instance``, created ("+") or
    changed ("~"), by the current actor, dated ``instance._history_date`` or now."""
    history = history_model_of(type(instance))
    return history(
        history_date=getattr(instance, "_history_date", timezone.now()),
        history_type=history_type,
        history_user=history_user_getter(instance=instance),
        history_change_reason=get_change_reason_from_object(instance),
        **{f.attname: getattr(instance, f.attname) for f in history.tracked_fields},
    )


def _mark_saved(obj: models.Model) -> None:
    obj._state.adding = False
    obj._state.db = connection.alias


def audited_insert(instance: models.Model, *, then: Rows = lambda instance: ()) -> None:
    """Insert ``instance`` (a new row of a regulated model: simple_history, the audit index) with its history row
    and audit event, and the rows ``then(instance)`` returns once ``instance`` has its id (plain rows, no history:
    the Idempotency-Key's stored answer), in one transaction — on PostgreSQL in one statement."""
    if not takes_one_statement(type(instance)):
        with transaction.atomic():
            instance.save(force_insert=True)
            for row in then(instance):
                row.save(force_insert=True)
        return
    # One statement is its own transaction: outside a transaction the ids and the insert are two statements in
    # autocommit, with no BEGIN and COMMIT around them (a sequence's nextval is never rolled back anyway); inside
    # one, a savepoint, so that a refused insert leaves the caller's transaction usable.
    if current_connection().in_atomic_block:
        with transaction.atomic():
            statement, params, order = _built(instance, then)
            given = fetch(statement, params)[0]
    else:
        taken = _clock()
        statement, params, order = _built(instance, then)
        # No transaction of this session covers ids taken and not yet inserted, and the chain's linker passes an id
        # once its links are older than every running transaction by its margin (compliance.chain.link.MARGIN, a
        # minute). Ids held longer than a third of it (a process paused between the two statements) are left unused
        # and new ones taken inside a transaction, whose start holds the linker back however long the rest takes.
        if _clock() - taken < IDS_FRESH_FOR:
            given = fetch(statement, params)[0]
        else:
            with transaction.atomic():
                statement, params, order = _built(instance, then)
                given = fetch(statement, params)[0]
    ids = iter(given)
    for obj, with_pk in order:
        if not with_pk:
            obj.pk = next(ids)
        _mark_saved(obj)


def _built(instance: models.Model, then: Rows) -> tuple[str, list[Any], list[tuple[models.Model, bool]]]:
    """The ids taken, the row, its history row and its audit event built and sealed with them, ``then``'s rows: the
    statement and its parameters."""
    from compliance.models import AuditEvent
    from compliance.signals import audit_event_of

    model = type(instance)
    ids = fetch("SELECT nextval(%s), nextval(%s), nextval(%s)", _sequences(model))[0]
    instance.pk = ids[0]
    if isinstance(instance, Sealed):
        instance.seal = instance.compute_seal()
    history_row = history_row_of(instance)
    history_row.pk = ids[1]
    event = audit_event_of(instance, history_row)
    assert event is not None  # a created row's event always is
    event.pk = ids[2]
    event.seal = event.compute_seal()
    extra = [(row, row.pk is not None) for row in then(instance)]
    params = [*_values(instance, _columns(model, with_pk=True)), *_values(history_row, _history_copied(model)[1]),
              *_values(event, _columns(AuditEvent, with_pk=True)),
              *(value for row, with_pk in extra for value in _values(row, _columns(type(row), with_pk=with_pk)))]
    statement = _statement(model, tuple((type(row), with_pk) for row, with_pk in extra))
    return statement, params, [(instance, True), (history_row, True), (event, True), *extra]


def _plain_receivers_only(model: type[models.Model]) -> bool:
    """``save()`` of a new ``model`` row would only insert it: no history, no receiver of its save signals but the
    breach listener for a model it ignores, no signed record it is part of."""
    from compliance.breaches import _saved
    from compliance.readiness import watched_models

    ignored_by_breaches = [_saved] if model not in watched_models() else []
    return (getattr(model, "signed_part_of", None) is None and not receivers_of(pre_save, model)
            and sorted(map(id, receivers_of(post_save, model))) == sorted(map(id, ignored_by_breaches)))


@cache
def _plain_statement(shape: tuple[tuple[type[models.Model], bool], ...]) -> str:
    """``WITH r0 AS (INSERT … RETURNING id), r1 AS (…) SELECT (SELECT id FROM r0), …``: the ids the database
    gives, in order (a row inserted with its id gives none)."""
    parts, given = [], []
    for n, (model, with_pk) in enumerate(shape):
        fields = _columns(model, with_pk=with_pk)
        values = f'VALUES ({", ".join(["%s"] * len(fields))})'
        parts.append(_insert(n, model, fields, values, "" if with_pk else f' RETURNING "{model._meta.pk.column}"'))
        if not with_pk:
            given.append(f'(SELECT "{model._meta.pk.column}" FROM r{n})')  # noqa: S608 - names from the models
    return f"WITH {', '.join(parts)} SELECT {', '.join(given) or 'true'}"


def plain_insert(*rows: models.Model) -> None:
    """Insert new ``rows`` of models without history (a signature and its audit event), each sealed as its
    ``save()`` seals it, in one statement on PostgreSQL: all or none. Where ``save()`` would do more
    (:func:`_plain_receivers_only`) or on SQLite, each row is saved instead, in order."""
    if any(not row._state.adding for row in rows):
        raise ValueError("plain_insert inserts new rows only")
    if connection.vendor != "postgresql" or not all(_plain_receivers_only(type(row)) for row in rows):
        for row in rows:
            row.save(force_insert=True)
        return
    shape = tuple((type(row), row.pk is not None) for row in rows)
    for row in rows:
        if isinstance(row, Sealed):
            row.seal = row.compute_seal()
    params = [value for row, (model, with_pk) in zip(rows, shape, strict=True)
              for value in _values(row, _columns(model, with_pk=with_pk))]
    given = iter(fetch(_plain_statement(shape), params)[0])
    for row, (_model, with_pk) in zip(rows, shape, strict=True):
        if not with_pk:
            row.pk = next(given)
        _mark_saved(row)
