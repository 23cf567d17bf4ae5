"""The generator's writer of its millions of rows in SQL (``manage.py generate_casino``, issue 27).

:func:`rows_as_saved_sql` writes what :func:`compliance.scale.rows_as_saved` writes — each row sealed, its history
row ("+", by the actor) and its audit event ("created", the values in the receiver's words) — but builds the rows'
canonical content, their seals (HMAC-SHA256 as two SHA-256 with the key's pads, RFC 2104), the audit events' content
and seals, and each row's chain digest in PostgreSQL, from a table of the rows' plain values sent by COPY: Python's
work a row is one tuple. The links are filed from those digests as the linker files them
(:func:`compliance.chain.link.chain_link_digests`), so the linker does not read the rows back.

One source of truth: the SQL of a value is chosen by the field's type as :mod:`compliance.chain.rows` chooses its
Python encoder, and that of a created record's values follows :func:`compliance.signals.created_values`; a field of a
type neither knows stops the generator. Every batch is then checked against the application's own code: its first
and last rows and their audit events are read back and must pass their seals (``Sealed.seal_intact``) and give the
digests the linker computes (``tests/compliance/test_scale_sql.py`` compares whole rows and events). The database's
constraints and triggers check every row, as for a scan.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from json.encoder import encode_basestring_ascii
from typing import Any

from django.db import connection, models

from compliance.chain.link import chain_link_digests
from compliance.chain.rows import read_rows, row_reader
from compliance.models import AuditEvent, Sealed
from compliance.models.chain import row_digest
from compliance.scale import _copy, reserve_ids
from compliance.seal_keys import key_ring
from compliance.signals import _NOT_SHOWN_ON_CREATION

__all__ = ["hmac_pads", "payload_sql", "rows_as_saved_sql", "seal_sql"]

ROWS, WORDS = "scale_sql_rows", "scale_sql_words"
# The columns the rows' table adds to the model's: the ids of the history row and audit event, the actor, the
# record's str() (the audit event's object_repr).
EXTRA = (("_history_id", "bigint"), ("_event_id", "bigint"), ("_actor", "bigint"), ("_repr", "text"))


def hmac_pads() -> tuple[bytes, bytes]:
    """The current key's inner and outer pads: HMAC-SHA256(key, m) = SHA-256(opad ‖ SHA-256(ipad ‖ m))."""
    key = key_ring().current
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    return bytes(b ^ 0x36 for b in key), bytes(b ^ 0x5C for b in key)


def seal_sql(payload: str) -> str:
    """``seal_of(payload)`` in SQL (params ``key_id``, ``ipad``, ``opad``)."""
    return (f"(%(key_id)s || ':' || encode(sha256(%(opad)s || sha256(%(ipad)s || convert_to({payload}, 'UTF8'))), "
            "'hex'))")


def _value_sql(field: models.Field[Any, Any], x: str) -> str:
    """The canonical JSON text of a non-null value of the column ``x``, as ``rows._encoder`` writes it. Text must be
    printable ASCII (checked before the rows are sent): there PostgreSQL's JSON string is Python's."""
    if isinstance(field, models.DateTimeField):
        utc = f"({x} AT TIME ZONE 'UTC')"
        return (f"'\"' || to_char({utc}, 'YYYY-MM-DD\"T\"HH24:MI:SS') || CASE WHEN to_char({utc}, 'US') = '000000' "
                f"THEN '' ELSE to_char({utc}, '.US') END || '+00:00\"'")
    if isinstance(field, models.DateField):
        return f"'\"' || to_char({x}, 'YYYY-MM-DD') || '\"'"
    if isinstance(field, models.BooleanField):
        return f"CASE WHEN {x} THEN 'true' ELSE 'false' END"
    if isinstance(field, models.IntegerField | models.ForeignKey):
        if isinstance(field, models.ForeignKey) and not isinstance(field.target_field, models.IntegerField):
            raise NotImplementedError(f"{field}: a foreign key to a key that is not an integer")
        return f"{x}::text"
    if isinstance(field, models.CharField | models.TextField):
        return f"to_json({x}::text)::text"
    raise NotImplementedError(f"{field}: no SQL encoding of a {type(field).__name__} (compliance.scale_sql)")


def _column(model: type[models.Model], name: str) -> str:
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field)  # a concrete field, not a relation's other end
    return str(field.column)


def _literal(text: str) -> str:
    if "'" in text or "\\" in text or "%" in text:
        raise ValueError(f"not a plain SQL literal: {text!r}")
    return f"'{text}'"


def payload_sql(model: type[Sealed], alias: str, overrides: dict[str, str] | None = None) -> str:
    """The SQL of ``canonical(row.sealed_content())`` for the rows of ``alias`` (columns named as the model's):
    the keys sorted, ``model`` among them. ``overrides``: the canonical JSON text of a field from another
    expression (a JSON column's)."""
    reader = row_reader(model)
    pieces = sorted([(name, field) for name, field in zip(reader.names, reader.fields, strict=True)] +
                    [("model", None)], key=lambda piece: piece[0])
    parts = []
    for number, (name, field) in enumerate(pieces):
        key = _literal(("{" if number == 0 else ",") + encode_basestring_ascii(name) + ":")
        if field is None:
            value = _literal(encode_basestring_ascii(model._meta.label))
        elif name in (overrides or {}):
            value = (overrides or {})[name]
        else:
            column = f'{alias}."{field.column}"'
            value = f"CASE WHEN {column} IS NULL THEN 'null' ELSE {_value_sql(field, column)} END"
        parts.append(f"{key} || {value}")
    return "(" + " || ".join(parts) + " || '}')"


def _shown(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    """The fields ``created_values`` shows, sorted by name (the canonical JSON's order)."""
    return sorted((f for f in model._meta.concrete_fields if not f.primary_key and f.name != "facility"
                   and not any(word in f.name for word in _NOT_SHOWN_ON_CREATION)), key=lambda f: f.name)


def _changes_sql(model: type[models.Model], alias: str) -> str:
    """``created_values`` of each row in canonical JSON: a foreign key in words (the words table), other values as
    ``_jsonable`` makes them (a datetime as ``str()`` of a UTC one); nothing for a null or empty value."""
    entries = []
    for field in _shown(model):
        column = f'{alias}."{field.column}"'
        empty = f"{column} IS NULL"
        if isinstance(field, models.ForeignKey):
            value = f"(SELECT w.words FROM {WORDS} w WHERE w.field = '{field.name}' AND w.id = {column})"  # noqa: S608
        elif isinstance(field, models.DateTimeField):
            utc = f"({column} AT TIME ZONE 'UTC')"
            value = (f"'\"' || to_char({utc}, 'YYYY-MM-DD HH24:MI:SS') || CASE WHEN to_char({utc}, 'US') = '000000' "
                     f"THEN '' ELSE to_char({utc}, '.US') END || '+00:00\"'")
        elif isinstance(field, models.CharField | models.TextField):
            empty += f" OR {column} = ''"
            value = _value_sql(field, column)
        elif isinstance(field, models.DateField | models.BooleanField | models.IntegerField):
            value = _value_sql(field, column)
        else:
            raise NotImplementedError(f"{field}: no SQL of its created value (compliance.scale_sql)")
        entries.append(f"CASE WHEN {empty} THEN NULL ELSE {_literal(encode_basestring_ascii(field.name) + ':')} || "
                       f"{value} END")
    return "('{' || concat_ws(',', " + ", ".join(entries) + ") || '}')"


def _plain_ascii(texts: Any, what: str) -> None:
    for text in texts:
        if not (text.isascii() and text.isprintable() and len(text) <= 200):
            raise ValueError(f"generate_casino: {what} {text[:40]!r} is not printable ASCII of at most 200 characters "
                             "(compliance.scale_sql writes only those in SQL)")


def _words(model: type[models.Model], names: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[tuple[str, int, str]]:
    """Each foreign key's related records named as ``created_values`` names them, in JSON: (field, id, words)."""
    words = []
    for field in _shown(model):
        if not isinstance(field, models.ForeignKey):
            continue
        at = names.index(field.attname)
        ids = {row[at] for row in rows} - {None}
        related = field.related_model._default_manager.in_bulk(list(ids))  # type: ignore[union-attr]
        for pk in sorted(ids):
            text = str(related[pk]) if pk in related else f"#{pk} (no longer exists)"
            text = text[:200] + "…" if len(text) > 200 else text
            words.append((field.name, pk, encode_basestring_ascii(text)))
    return words


def _tables(model: type[models.Model], names: Sequence[str]) -> None:
    table = model._meta.db_table
    columns = ", ".join(f'"{_column(model, n)}"' for n in ["id", *names])
    extra = ", ".join(f"ADD COLUMN {name} {kind}" for name, kind in EXTRA)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {ROWS}, {WORDS}")
        cursor.execute(f'CREATE TEMP TABLE {ROWS} ON COMMIT DROP AS SELECT {columns} FROM "{table}" WITH NO DATA')  # noqa: S608
        cursor.execute(f"ALTER TABLE {ROWS} {extra}")
        cursor.execute(f"CREATE TEMP TABLE {WORDS} (field text, id bigint, words text, PRIMARY KEY (field, id)) "
                       "ON COMMIT DROP")


def _rows_statement(model: type[Sealed], moment: str) -> str:
    """The rows and their history rows, sealed; each row's id, facility and chain digest."""
    fields = [f.column for f in model._meta.concrete_fields]
    history = model.history.model._meta  # type: ignore[attr-defined]
    own = [f.column for f in history.concrete_fields if not f.name.startswith("history_")]
    quoted = lambda columns: ", ".join(f'"{c}"' for c in columns)  # noqa: E731
    facility = f'"{_column(model, model.chain_facility)}"' if model.chain_facility else "NULL::bigint"
    return (
        f"WITH p AS MATERIALIZED (SELECT t.*, {payload_sql(model, 't')} AS payload FROM {ROWS} t), "  # noqa: S608 - the models' names
        f"s AS (SELECT p.*, {seal_sql('p.payload')} AS seal FROM p), "
        f'r AS (INSERT INTO "{model._meta.db_table}" ({quoted(fields)}) SELECT {quoted(fields)} FROM s ORDER BY id), '
        f'h AS (INSERT INTO "{history.db_table}" ({quoted(own)}, history_id, history_date, history_change_reason, '
        f"history_type, history_user_id) SELECT {quoted(own)}, _history_id, \"{moment}\", NULL, '+', _actor FROM s) "
        f"SELECT id, {facility}, sha256(convert_to(payload || chr(10) || seal, 'UTF8')) FROM s ORDER BY id"
    )


def _events_statement(model: type[Sealed], moment: str) -> str:
    """The rows' audit events, sealed; each event's id, facility and chain digest."""
    columns = [f.column for f in AuditEvent._meta.concrete_fields]
    meta = model._meta
    event = (
        f"SELECT t._event_id AS id, t.\"{moment}\" AS occurred_at, t.facility_id AS facility_id, "  # noqa: S608
        f"t._actor AS actor_id, {_literal(AuditEvent.Action.CREATED.value)}::text AS action, "
        f"{_literal(meta.label)}::text AS model_label, {_literal(str(meta.verbose_name))}::text AS model_name, "
        f"t.id::text AS object_id, t._repr AS object_repr, t._history_id AS history_id, "
        f"{_changes_sql(model, 't')} AS changes, ''::text AS reason FROM {ROWS} t"
    )
    inserted = ", ".join(f'"{c}"' if c != "changes" else "changes::jsonb" for c in columns)
    quoted = ", ".join(f'"{c}"' for c in columns)
    return (
        f"WITH e AS MATERIALIZED ({event}), p AS MATERIALIZED (SELECT e.*, {payload_sql(AuditEvent, 'e', {'changes': 'e.changes'})} AS payload "  # noqa: S608
        f"FROM e), s AS (SELECT p.*, {seal_sql('p.payload')} AS seal FROM p), "
        f"i AS (INSERT INTO \"{AuditEvent._meta.db_table}\" ({quoted}) SELECT {inserted} FROM s "
        "ORDER BY id) "
        "SELECT id, facility_id, sha256(convert_to(payload || chr(10) || seal, 'UTF8')) FROM s ORDER BY id"
    )


def rows_as_saved_sql(model: type[Sealed], names: Sequence[str], rows: Sequence[Sequence[Any]], *,
                      moment: str) -> list[int]:
    """Write ``rows`` of ``model`` as :func:`compliance.scale.rows_as_saved` writes them, in SQL, and link them.
    ``names``: every field's attname but the id's and the seal's, in the order of each row's first values; then
    each row holds the acting user's id and the record's ``str()``. ``moment``: the name of the datetime the row,
    its history row and its audit event are dated with. In the caller's transaction (PostgreSQL). The ids given,
    in order."""
    expected = {f.attname for f in model._meta.concrete_fields} - {"id", "seal"}
    if set(names) != expected or len(names) != len(expected):
        raise ValueError(f"{model._meta.label}: the rows name {sorted(set(names) ^ expected)} differently from the "
                         "model's fields")
    if not rows:
        return []
    for at, name in enumerate(names):
        if isinstance(model._meta.get_field(name), models.CharField | models.TextField):
            _plain_ascii({row[at] for row in rows} - {None}, name)
    _plain_ascii((row[-1][:200] for row in rows), "a record's name")
    meta = model._meta
    ids = reserve_ids(meta.db_table, len(rows))
    history_ids = reserve_ids(model.history.model._meta.db_table, len(rows), "history_id")  # type: ignore[attr-defined]
    event_ids = reserve_ids(AuditEvent._meta.db_table, len(rows))
    _tables(model, names)
    _copy(ROWS, ["id", *(_column(model, n) for n in names), *(name for name, _ in EXTRA)],
          ([pk, *row[:-2], hid, eid, row[-2], row[-1][:200]]
           for pk, row, hid, eid in zip(ids, rows, history_ids, event_ids, strict=True)))
    _copy(WORDS, ["field", "id", "words"], _words(model, names, rows))
    ipad, opad = hmac_pads()
    params: dict[str, Any] = {"key_id": key_ring().current_id, "ipad": ipad, "opad": opad}
    with connection.cursor() as cursor:
        # Compiling these long expressions with LLVM takes longer than running them (seconds a batch); the
        # materialized steps held in memory.
        cursor.execute("SET LOCAL jit = off")
        cursor.execute("SET LOCAL work_mem = '64MB'")
        cursor.execute(_rows_statement(model, _column(model, moment)), params)
        row_digests = cursor.fetchall()
        cursor.execute(_events_statement(model, _column(model, moment)), params)
        event_digests = cursor.fetchall()
    _check(model, row_digests, event_digests)
    for linked, digests in ((model, row_digests), (AuditEvent, event_digests)):
        by_facility: dict[int | None, list[tuple[int, bytes]]] = defaultdict(list)
        for pk, facility_id, digest in digests:
            by_facility[facility_id].append((pk, bytes(digest)))
        for facility_id, batch in by_facility.items():
            chain_link_digests(linked, facility_id, batch)
    return ids


def _check(model: type[Sealed], *digested: list[tuple[int, int | None, bytes]]) -> None:
    """The first and last rows and events as the application reads them: their seals hold, their digests are the
    linker's (else the SQL above no longer writes what the application writes: stop)."""
    pairs: list[tuple[type[Sealed], list[tuple[int, int | None, bytes]]]] = [(model, digested[0]),
                                                                           (AuditEvent, digested[1])]
    for sealed, digests in pairs:
        wanted = {pk: bytes(digest) for pk, _facility, digest in (digests[0], digests[-1])}
        for row in read_rows(sealed, ids=wanted):
            instance = sealed._base_manager.get(pk=row.id)
            if not instance.seal_intact() or row_digest(row.payload, row.seal) != wanted[row.id]:
                raise RuntimeError(f"generate_casino: {sealed._meta.label} #{row.id} written in SQL does not match "
                                   "the application's seal or chain digest (compliance.scale_sql)")
