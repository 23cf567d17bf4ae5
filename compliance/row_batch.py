"""The rows of one regulated write sent to PostgreSQL as one statement, with their history and audit events.

The ORM writes a regulated row in three or four statements (the row, its history row, its audit event, a
savepoint around them), each compiled anew. Where a write must be fast — a coupon redeemed at a table
answers in a fraction of a second, hundreds a second — :class:`RowBatch` builds the very rows the ORM
would write and sends them together, in one prepared statement of data-modifying CTEs
(``WITH gate AS (...), c0 AS (UPDATE ...), go AS (...), w0 AS (INSERT INTO t0 (...) SELECT ... FROM
jsonb_populate_recordset(NULL::t0, $n) WHERE go), ...``):

* every row is sealed as :class:`~compliance.models.Sealed` seals it (the key never leaves Python);
* :meth:`RowBatch.created` writes a row as ``save()`` does: its history row ("+", no change reason) and the
  audit event the history receiver indexes it with (``object_repr`` = ``str(row)``, ``history_id``);
* :meth:`RowBatch.created_in_bulk` writes rows as :func:`~compliance.models.regulated_bulk_create` does:
  history rows (no change reason) and the bulk events (``"<model> #<id>"``, no history id);
* :meth:`RowBatch.closed` sets a column that is still NULL, as ``save(update_fields=[...])`` does, with its
  "~" history row and the "changed" event saying old and new in words. If another transaction set it
  first, nothing is inserted and :class:`RowsMoved` is raised;
* :meth:`RowBatch.inserted` writes a row of a model outside the audit trail, alone;
* a :class:`Gate` is a condition read in the same statement (finance has not closed the day): when it
  does not hold, nothing is written and :class:`GateRefused` says what it read.

Ids are taken from the tables' own sequences first (:func:`reserve_ids`, one statement, which can also take
a row's share lock), since a seal and a dependent row (a ledger line naming its document) need them before
the insert. The database's triggers and
constraints apply as to any insert: a unique violation raises ``IntegrityError``, an append-only row stays
append-only. ``tests/coupons/test_redemption_batch.py`` holds a redemption's rows beside the ORM path's,
column by column. PostgreSQL only: :func:`available` says whether to use it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from uuid import UUID

from django.db import connection, models
from django.utils import timezone
from psycopg import sql

from compliance.actors import current_actor
from compliance.models.audit import AuditEvent
from compliance.models.chain import Sealed
from compliance.raw_reads import execute

__all__ = ["Gate", "GateRefused", "RowBatch", "RowsMoved", "available", "reserve_ids"]

_SEQUENCES: dict[tuple[str, str], str] = {}


class RowsMoved(Exception):
    """A row :meth:`RowBatch.closed` meant to close was closed by another transaction first."""


@dataclass(frozen=True)
class Gate:
    """A condition the write checks in its own statement: ``sql`` is a query of one row with the columns
    ``value`` and ``ok`` (``%s`` placeholders, ``params`` bound); nothing is written unless ``ok``."""

    sql: str
    params: tuple[Any, ...] = ()


class GateRefused(Exception):
    """The :class:`Gate` did not hold: nothing was written. ``value``: what it read."""

    def __init__(self, value: Any) -> None:
        super().__init__(f"the write's condition did not hold ({value!r})")
        self.value = value


def available() -> bool:
    return connection.vendor == "postgresql"


_HISTORY: dict[type[models.Model], type[models.Model]] = {}


_AUDITED: dict[type[models.Model], bool] = {}


def _audited(model: type[models.Model]) -> bool:
    # ``model.history`` builds a manager class on every access: ask once per model.
    if model not in _AUDITED:
        _AUDITED[model] = hasattr(model, "history")
    return _AUDITED[model]


def _history_model(model: type[models.Model]) -> type[models.Model]:
    # ``model.history`` builds a manager class on every access: read it once per model.
    if model not in _HISTORY:
        _HISTORY[model] = model.history.model  # type: ignore[attr-defined]
    return _HISTORY[model]


_TRACKED: dict[type[models.Model], list[tuple[str, models.Field[Any, Any]]]] = {}


def _tracked(model: type[models.Model]) -> list[tuple[str, models.Field[Any, Any]]]:
    """``(history column, field of the model)`` of every field its history copies, read once per model."""
    if model not in _TRACKED:
        history = _history_model(model)
        _TRACKED[model] = [(str(getattr(history._meta.get_field(f.name), "column")), f)  # noqa: B009 - concrete
                           for f in history.tracked_fields]  # type: ignore[attr-defined]
    return _TRACKED[model]


def _sequence(table: str, column: str) -> str:
    key = (table, column)
    if key not in _SEQUENCES:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [table, column])
            _SEQUENCES[key] = cursor.fetchone()[0]
    return _SEQUENCES[key]


def reserve_ids(counts: dict[type[models.Model], int], *,
                share_lock: models.Model | None = None) -> dict[type[models.Model], list[int]]:
    """``counts[model]`` new ids of each model's table and as many of its history table, in one statement;
    with ``share_lock``, that row is locked ``FOR SHARE`` by the same statement (until the transaction ends).

    Unused ids are gaps, as a rolled-back insert leaves."""
    wanted: list[tuple[type[models.Model], str, int]] = []
    for model, count in counts.items():
        wanted.append((model, _sequence(model._meta.db_table, str(model._meta.pk.column)), count))
        if _audited(model):
            history = _history_model(model)
            wanted.append((history, _sequence(history._meta.db_table, str(history._meta.pk.column)), count))
    parts = ", ".join("ARRAY(SELECT nextval(%s::regclass) FROM generate_series(1, %s))" for _ in wanted)
    params: list[Any] = []
    for _, sequence, count in wanted:
        params += [sequence, count]
    statement = f"SELECT {parts}"
    if share_lock is not None:
        statement += f' FROM "{share_lock._meta.db_table}" WHERE id = %s FOR SHARE'
        params.append(share_lock.pk)
    arrays = execute(statement, params).fetchone()
    if arrays is None:
        raise RowsMoved(f"{share_lock} is not there to lock")
    return {model: list(ids) for (model, _, _), ids in zip(wanted, arrays, strict=True)}


def _json(field: models.Field[Any, Any], value: Any) -> Any:
    if value is None or isinstance(field, models.JSONField):
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal | UUID):
        return str(value)
    if isinstance(value, models.Model):
        return value.pk
    return value


def _row(obj: models.Model) -> dict[str, Any]:
    row = {str(f.column): _json(f, getattr(obj, f.attname)) for f in obj._meta.concrete_fields}
    if obj.pk is None:
        del row[str(obj._meta.pk.column)]
    return row


def _words(value: Any) -> Any:
    """A value as the audit trail's "changed" event says it (``compliance.signals._in_words``)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


class RowBatch:
    """Rows to write together: see the module docstring. ``ids``: from :func:`reserve_ids`."""

    def __init__(self, ids: dict[type[models.Model], list[int]]) -> None:
        self._ids = {model: list(values) for model, values in ids.items()}
        self._steps: list[dict[str, Any]] = []
        self._events: list[AuditEvent] = []
        self.actor = current_actor()
        self.now = timezone.now()

    def next_id(self, model: type[models.Model]) -> int:
        return self._ids[model].pop(0)

    def _history(self, obj: models.Model, history_type: str, *, history_id: int | None,
                 reason: str | None) -> dict[str, Any]:
        """The history row ``obj.save()`` would add, as the columns to insert (no model instance is built:
        a hot path writes several per request)."""
        row = {column: _json(field, getattr(obj, field.attname)) for column, field in _tracked(type(obj))}
        row.update(history_date=self.now.isoformat(), history_type=history_type,
                   history_user_id=getattr(self.actor, "pk", None), history_change_reason=reason)
        if history_id is not None:
            row["history_id"] = history_id
        return row

    def _event(self, obj: models.Model, action: str, *, repr_: str, history_id: int | None = None,
               changes: dict[str, Any] | None = None) -> None:
        meta = obj._meta
        self._events.append(AuditEvent(
            occurred_at=self.now, facility_id=AuditEvent.facility_id_of(obj), actor=self.actor, action=action,
            model_label=meta.label, model_name=str(meta.verbose_name), object_id=str(obj.pk), object_repr=repr_,
            history_id=history_id, changes=changes or {}, reason="",
        ))

    def _insert(self, objs: Sequence[models.Model]) -> None:
        for obj in objs:
            if isinstance(obj, Sealed):
                obj.seal = obj.compute_seal()
        self._insert_rows(type(objs[0]), [_row(obj) for obj in objs])

    def _insert_rows(self, model: type[models.Model], rows: list[dict[str, Any]]) -> None:
        self._steps.append({"table": model._meta.db_table, "rows": rows})

    def created(self, obj: models.Model) -> None:
        """``obj`` (its id taken from the reserve) inserted as ``obj.save()`` would insert it."""
        history_id = self.next_id(_history_model(type(obj)))
        self._insert([obj])
        self._insert_rows(_history_model(type(obj)), [self._history(obj, "+", history_id=history_id, reason=None)])
        self._event(obj, AuditEvent.Action.CREATED, repr_=str(obj)[:200], history_id=history_id)

    def inserted(self, obj: models.Model) -> None:
        """``obj`` (its id taken from the reserve) of a model outside the audit trail, inserted alone."""
        assert not _audited(type(obj)), f"{type(obj).__name__} keeps history: use created()"
        self._insert([obj])

    def created_in_bulk(self, objs: Iterable[models.Model]) -> None:
        """``objs`` inserted as :func:`~compliance.models.regulated_bulk_create` would insert them."""
        objs = list(objs)
        if not objs:
            return
        self._insert(objs)
        self._insert_rows(_history_model(type(objs[0])),
                          [self._history(obj, "+", history_id=None, reason=None) for obj in objs])
        meta = objs[0]._meta
        for obj in objs:
            self._event(obj, AuditEvent.Action.CREATED, repr_=f"{meta.verbose_name} #{obj.pk}")

    def closed(self, obj: models.Model, field_name: str, value: models.Model) -> None:
        """Set ``obj``'s empty foreign key ``field_name`` to ``value``, as ``save(update_fields=[...])`` would."""
        column = str(getattr(obj._meta.get_field(field_name), "column"))  # noqa: B009 - a concrete field's
        setattr(obj, field_name, value)
        history_id = self.next_id(_history_model(type(obj)))
        self._steps.append({"table": obj._meta.db_table, "close": column, "row": _row(obj)})
        self._insert_rows(_history_model(type(obj)), [self._history(obj, "~", history_id=history_id, reason=None)])
        self._event(obj, AuditEvent.Action.CHANGED, repr_=str(obj)[:200], history_id=history_id,
                    changes={field_name: [None, _words(value)]})

    def send(self, gate: Gate | None = None) -> Any:
        """Write everything in the caller's transaction, in one prepared statement: each close, then every
        insert (the statement's text depends only on the tables and columns written, so PostgreSQL plans it
        once per connection, not once per write).

        ``gate``: a condition read in the same statement (its snapshot is taken after every lock the caller
        holds was granted); when it is false nothing is written and :class:`GateRefused` carries its value.
        A close that finds its column already set writes nothing either (:class:`RowsMoved`). Returns the
        gate's value (None without a gate)."""
        if self._events:
            self._insert(self._events)
            self._events = []
        closes: list[dict[str, Any]] = []
        by_table: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = {}
        for step in self._steps:
            if "close" in step:
                closes.append(step)
            else:
                by_table.setdefault((step["table"], tuple(step["rows"][0])), []).extend(step["rows"])
        connection.ensure_connection()
        shape = (gate.sql if gate else None, tuple((c["table"], c["close"]) for c in closes), tuple(by_table))
        params: list[Any] = list(gate.params) if gate else []
        for close in closes:
            params += [close["row"][close["close"]], close["row"]["id"]]
        params += [json.dumps(rows) for rows in by_table.values()]
        value, ok, closed = execute(_write_statement(connection.connection, shape), params).fetchone()
        if not ok:
            raise GateRefused(value)
        if closed != len(closes):
            raise RowsMoved(f"{len(closes) - closed} of the rows to close were closed meanwhile")
        return value


# Statements by shape, composed once per process (composing is most of their cost on the Python side).
_STATEMENTS: dict[Any, str] = {}


def _write_statement(raw: Any, shape: tuple[Any, ...]) -> str:
    """``WITH gate AS (...), c0 AS (UPDATE ... RETURNING 1), ..., go AS (...), w0 AS (INSERT ... WHERE go),
    ... SELECT value, ok, closed``: the inserts happen only if the gate holds and every close took."""
    if shape not in _STATEMENTS:
        gate_sql, closes, inserts = shape
        gate = sql.SQL(gate_sql) if gate_sql else sql.SQL("SELECT NULL AS value, true AS ok")
        ctes = [sql.SQL("gate AS ({})").format(gate)]
        for number, (table, column) in enumerate(closes):
            ctes.append(sql.SQL("{} AS (UPDATE {} SET {} = %s WHERE id = %s AND {} IS NULL AND (SELECT ok FROM gate) "
                                "RETURNING 1)").format(sql.Identifier(f"c{number}"), sql.Identifier(table),
                                                       sql.Identifier(column), sql.Identifier(column)))
        closed = sql.SQL(" + ").join(sql.SQL("(SELECT count(*) FROM {})").format(sql.Identifier(f"c{n}"))
                                     for n in range(len(closes))) if closes else sql.SQL("0")
        ctes.append(sql.SQL("go AS (SELECT (SELECT ok FROM gate) AND {} = {} AS go)").format(
            closed, sql.Literal(len(closes))))
        for number, (table, names) in enumerate(inserts):
            columns = sql.SQL(", ").join(map(sql.Identifier, names))
            ctes.append(sql.SQL("{} AS (INSERT INTO {} ({}) SELECT {} FROM jsonb_populate_recordset(NULL::{}, "
                                "%s::jsonb) WHERE (SELECT go FROM go))").format(
                sql.Identifier(f"w{number}"), sql.Identifier(table), columns, columns, sql.Identifier(table)))
        _STATEMENTS[shape] = sql.SQL("WITH {} SELECT (SELECT value FROM gate), (SELECT ok FROM gate), {}").format(
            sql.SQL(", ").join(ctes), closed).as_string(raw)
    return _STATEMENTS[shape]
