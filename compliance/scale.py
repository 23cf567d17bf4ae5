"""A generated year of a large casino (``manage.py generate_casino``, issue 27): the plan every app's part follows,
and the fast writer the parts use for their millions of rows.

Each app declares its part in its ``apps.py`` (``scale = (ScaleSeeder("app.scale.fn", stage=N),)``,
:mod:`compliance.registry`); the command runs them by stage. A part writes through the application's own services
where the application writes few rows (a day's reconciliation form, finance's processing, a report), travelling in
time to the moment the people would have done it, so every row, history row, audit event, signature and seal is the
one the application writes. Where it writes millions, it uses :func:`compliance.scale_sql.rows_as_saved_sql` (the
redemptions at the tables: built, sealed and linked in SQL) or :func:`rows_as_saved`: the rows, their history rows
and their audit events exactly as ``Model.save()`` and the audit receiver (``compliance.signals.index_history_row``)
write them, sealed with the chain key as ``Sealed.save`` seals them, sent by COPY. The database's own checks and triggers run on every row (nothing is disabled), so the generated
year is held to the guarantees a real one is. Afterwards the command links the audit chain, and ``verify_audit_chain``
must find it intact.

Reproducible: every random choice comes from :meth:`ScalePlan.rng` (a generator seeded by the plan's seed and the
part's name), never from the clock.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from django.db import connection, models

from compliance.chain.rows import row_reader
from compliance.models import AuditEvent, Facility, Sealed
from compliance.seal_keys import seal_of
from compliance.signals import _jsonable, created_values

__all__ = ["ScalePlan", "reserve_ids", "rows_as_saved", "travel"]


@dataclass
class ScalePlan:
    """What to generate: ``days`` gaming days ending yesterday at ``facility``, ``tables`` tables, this many
    redemptions a quarter; ``seed`` makes it reproducible. ``people``: the facility's people by role name, filled
    by the foundation's part. Parts add what later parts need to ``shared``."""

    facility: Facility
    first_day: date
    days: int
    tables: int
    redemptions_per_quarter: int
    seed: int
    exclusion_entries: int = 200_000
    any_order: bool = False  # patrons bring coupons back in any order (the kept ones leave holes in the block)
    beat_postings: bool = False  # redemptions posted to the ledger hourly as beat would, not by finance each morning
    floor_through_services: bool = False  # the equipment logs one record at a time through the services, not in bulk
    people: dict[str, Any] = field(default_factory=dict)
    shared: dict[str, Any] = field(default_factory=dict)
    say: Callable[[str], None] = print

    @property
    def last_day(self) -> date:
        return self.first_day + timedelta(days=self.days - 1)

    def each_day(self) -> Iterator[date]:
        for n in range(self.days):
            yield self.first_day + timedelta(days=n)

    def rng(self, part: str) -> random.Random:
        """The random choices of one part: the same seed and part give the same choices on any machine."""
        digest = hashlib.sha256(f"{self.seed}:{part}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))  # noqa: S311 (data, not secrets)

    @property
    def redemptions_per_day(self) -> int:
        return max(1, round(self.redemptions_per_quarter * 4 / 365))


@contextmanager
def travel(moment: datetime) -> Iterator[None]:
    """The clock at ``moment`` (the people of the generated year act then: services date what they write now).
    time-machine is the test suite's; the generator is a development tool and says so when it is missing."""
    try:
        import time_machine
    except ImportError as missing:  # pragma: no cover (the dev install has it)
        raise SystemExit("generate_casino needs the development install (make install): time-machine") from missing
    with time_machine.travel(moment, tick=False):
        yield


def reserve_ids(table: str, count: int, column: str = "id") -> list[int]:
    """``count`` values of ``table``'s id sequence, taken now (the rows are written with them by COPY)."""
    if count == 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                       [table, column, count])
        return [row[0] for row in cursor.fetchall()]


def _copy(table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    connection.ensure_connection()
    quoted = ", ".join(connection.ops.quote_name(c) for c in columns)
    with connection.connection.cursor() as cursor, cursor.copy(
            f"COPY {connection.ops.quote_name(table)} ({quoted}) FROM STDIN") as copy:  # names from the models
        for row in rows:
            copy.write_row(row)


def _for_copy(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, dict | list) else value


class _Words:
    """The related records' names a created record's audit event shows (``compliance.signals``), read once per
    batch for the ids the batch names, not once a row."""

    def __init__(self, model: type[models.Model], rows: Sequence[dict[str, Any]]) -> None:
        self.names: dict[str, dict[Any, str]] = {}
        for model_field in model._meta.concrete_fields:
            if isinstance(model_field, models.ForeignKey) and model_field.name != "facility":
                ids = {row.get(model_field.attname) for row in rows} - {None}
                # With what their names read (a table's is its game's): not a query a record.
                manager = model_field.related_model._default_manager  # type: ignore[union-attr]
                related = manager.select_related().in_bulk(list(ids))
                self.names[model_field.name] = {pk: str(obj) for pk, obj in related.items()}

    def __call__(self, name: str, value: Any) -> Any:
        if name in self.names:
            return self.names[name].get(value, f"#{value} (no longer exists)")
        return _jsonable(value)


def rows_as_saved(model: type[models.Model], rows: Sequence[dict[str, Any]], *, actor_id: int | None,
                  moment: str, describe: Callable[[dict[str, Any]], str]) -> list[int]:
    """Write ``rows`` (each ``{attname: value}`` of a new record of ``model``) as ``save()`` writes one, at the time
    in its column ``moment``, acting as the user ``actor_id``: the row (sealed as ``Sealed.save`` seals it, if the
    model is sealed), its history row ("+", by the actor) and its audit event ("created", the values in the
    receiver's own words, ``compliance.signals.created_values``; ``describe(row)`` is the record's ``str()``). By
    COPY, in the caller's transaction: the database's constraints and triggers check every row. PostgreSQL only.
    The ids given, in order."""
    if not rows:
        return []
    meta = model._meta
    ids = reserve_ids(meta.db_table, len(rows))
    sealed = issubclass(model, Sealed)
    reader = row_reader(model) if sealed else None  # type: ignore[arg-type]
    seals: list[str | None] = []
    for row, pk in zip(rows, ids, strict=True):
        row["id"] = pk
        if reader is not None:
            seals.append(seal_of(reader.payload(row.get(n) for n in reader.names)))
        else:
            seals.append(None)
        row["seal"] = seals[-1]
    _copy(meta.db_table, [f.column for f in meta.concrete_fields],
          ([_for_copy(row.get(f.attname)) for f in meta.concrete_fields] for row in rows))
    history = getattr(model, "history", None)
    if history is None:
        return ids
    hmeta = history.model._meta
    history_ids = reserve_ids(hmeta.db_table, len(rows), "history_id")
    own = [f for f in hmeta.concrete_fields if not f.name.startswith("history_")]
    _copy(hmeta.db_table, [f.column for f in own] + ["history_id", "history_date", "history_change_reason",
                                                     "history_type", "history_user_id"],
          ([*(_for_copy(row.get(f.attname)) for f in own), hid, row[moment], None, "+", actor_id]
           for row, hid in zip(rows, history_ids, strict=True)))
    _audit_events(model, rows, history_ids, actor_id=actor_id, moment=moment, describe=describe)
    return ids


def _audit_events(model: type[models.Model], rows: Sequence[dict[str, Any]], history_ids: list[int], *,
                  actor_id: int | None, moment: str, describe: Callable[[dict[str, Any]], str]) -> None:
    """The audit events ``compliance.signals.index_history_row`` writes for created records, sealed."""
    meta, words = model._meta, _Words(model, rows)
    reader = row_reader(AuditEvent)
    columns = [f.attname for f in AuditEvent._meta.concrete_fields]
    event_ids = reserve_ids(AuditEvent._meta.db_table, len(rows))

    def events() -> Iterator[list[Any]]:
        for row, hid, pk in zip(rows, history_ids, event_ids, strict=True):
            event = {"occurred_at": row[moment], "facility_id": row.get("facility_id"), "actor_id": actor_id,
                     "action": AuditEvent.Action.CREATED.value, "model_label": meta.label,
                     "model_name": str(meta.verbose_name), "object_id": str(row["id"]),
                     "object_repr": describe(row)[:200], "history_id": hid,
                     "changes": created_values(model, row.get, words), "reason": ""}
            event["id"] = pk
            event["seal"] = seal_of(reader.payload(event[n] for n in reader.names))
            yield [_for_copy(event[c]) for c in columns]

    _copy(AuditEvent._meta.db_table, [f.column for f in AuditEvent._meta.concrete_fields], events())
