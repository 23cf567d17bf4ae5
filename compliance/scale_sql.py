"""The generator's writer of its millions of rows in SQL (``manage.py generate_casino``, issue 27).

:func:`rows_as_saved_sql` writes what :func:`compliance.scale.rows_as_saved` writes — each row sealed, its history
row ("+", by the actor) and its audit event ("created", the values in the receiver's words) — but builds the rows'
canonical content, their seals (HMAC-SHA256 as two SHA-256 with the key's pads, RFC 2104), the audit events' content
and seals, and each row's chain digest in PostgreSQL, in one statement a batch, from the rows' plain values sent as
one text a column (the application's role may not create a temporary table); the ids are taken from their sequences
in the rows' order within the statement. Python's work a row is one tuple. The links are filed from those digests as the linker files them
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import Any

from django.db import connection, models

from compliance.chain.link import chain_link_digests
from compliance.chain.rows import read_rows, row_reader
from compliance.models import AuditEvent, Sealed
from compliance.models.chain import row_digest
from compliance.scale_replica import (
    Reference,
    checks_cover,
    foreign_keys,
    references_checked,
    replica_permitted,
    silenced_triggers,
)
from compliance.seal_keys import key_ring
from compliance.signals import _NOT_SHOWN_ON_CREATION

__all__ = ["file_digests", "file_event_digests", "hmac_pads", "payload_sql", "rows_as_saved_sql", "seal_sql",
           "written_as_replica"]

# The columns the rows add to the model's: the actor, the record's str() (the audit event's object_repr); the words
# of the related records, by field and id.
EXTRA = (("_actor", "bigint"), ("_repr", "text"))
WORDS = (("field", "text"), ("id", "bigint"), ("words", "text"))
SEPARATOR, NULL = chr(31), chr(30)  # never in the values sent: text is printable ASCII, words are JSON


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


def _db_type(model: type[models.Model], name: str) -> str:
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field)
    return str(field.db_type(connection))


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


def _changes_sql(model: type[models.Model], alias: str) -> tuple[str, str]:
    """``created_values`` of each row in canonical JSON: a foreign key in words (the words, ``w``), other values as
    ``_jsonable`` makes them (a datetime as ``str()`` of a UTC one); nothing for a null or empty value. The SQL, and
    the joins to the words it needs."""
    entries, joins = [], []
    for field in _shown(model):
        column = f'{alias}."{field.column}"'
        empty = f"{column} IS NULL"
        if isinstance(field, models.ForeignKey):
            words = f'"w_{field.name}"'
            joins.append(f"LEFT JOIN w {words} ON {words}.field = {_literal(field.name)} AND {words}.id = {column}")
            value = f"{words}.words"
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
    return "('{' || concat_ws(',', " + ", ".join(entries) + ") || '}')", " ".join(joins)


def _plain_ascii(texts: Any, what: str) -> None:
    for text in texts:
        if not (text.isascii() and text.isprintable() and len(text) <= 200):
            raise ValueError(f"generate_casino: {what} {text[:40]!r} is not printable ASCII of at most 200 characters "
                             "(compliance.scale_sql writes only those in SQL)")


def _words(model: type[models.Model], names: Sequence[str], rows: Sequence[Sequence[Any]],
           known: dict[tuple[str, int], str] | None = None) -> list[tuple[str, int, str]]:
    """Each foreign key's related records named as ``created_values`` names them, in JSON: (field, id, words).
    ``known``: the words already read, by the related model's label and id, kept by the caller across its batches
    (a generated year's tables, dealers and series are named the same all year: read once, not in every batch);
    what is read here is added to it."""
    known = {} if known is None else known
    words: list[tuple[str, int, str]] = []
    for field in _shown(model):
        if not isinstance(field, models.ForeignKey):
            continue
        at = names.index(field.attname)
        ids = {row[at] for row in rows} - {None}
        related_model = field.related_model
        label = related_model._meta.label  # type: ignore[union-attr]
        if missing := [pk for pk in ids if (label, pk) not in known]:
            # With what their names read (a table's is its game's): not a query a record.
            related = related_model._default_manager.select_related().in_bulk(missing)  # type: ignore[union-attr]
            for pk in missing:
                text = str(related[pk]) if pk in related else f"#{pk} (no longer exists)"
                known[(label, pk)] = encode_basestring_ascii(text[:200] + "…" if len(text) > 200 else text)
        words.extend((field.name, pk, known[(label, pk)]) for pk in sorted(ids))
    return words


def _unnest(name: str, columns: Sequence[tuple[str, str]], ids: str = "") -> str:
    """A CTE of rows sent as one text parameter a column (``%(name_n)s``, :func:`_texts`), each cast to its type, in
    the order sent (``_n``), the rows' count in ``%(name_count)s``; ``ids``: columns to select first (ids taken
    from their sequences in that order)."""
    arrays = ", ".join(f"string_to_array(%({name}_{n})s, chr(31), chr(30))::{kind}[]"
                       for n, (_column_name, kind) in enumerate(columns))
    names = ", ".join(f'"{column}"' for column, _kind in columns)
    rows = f"SELECT * FROM unnest({arrays}) WITH ORDINALITY AS u({names}, _n) WHERE _n <= %({name}_count)s ORDER BY _n"  # noqa: S608
    return f"{name} AS MATERIALIZED (SELECT {ids} u.* FROM ({rows}) u)"  # noqa: S608


def _texts(name: str, columns: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """Each column as one text: its values' ``str()`` (a datetime's or date's as PostgreSQL reads it back) between
    unit separators, None as a record separator, and a last None (an array of one empty string would be empty)."""
    texts = {f"{name}_{n}": SEPARATOR.join([NULL if value is None else str(value) for value in values]) +
             SEPARATOR + NULL for n, values in enumerate(columns)}
    return texts | {f"{name}_count": len(columns[0])}


_SEQUENCES: dict[tuple[str, str], dict[str, str]] = {}  # by database and model: the schema names them once


def _sequences(model: type[Sealed]) -> dict[str, str]:
    """The sequences the row's, its history row's and its audit event's ids are taken from (asked once a process
    and database)."""
    key = (str(connection.settings_dict["NAME"]), model._meta.label)
    if key not in _SEQUENCES:
        _SEQUENCES[key] = _sequences_asked(model)
    return _SEQUENCES[key]


def _sequences_asked(model: type[Sealed]) -> dict[str, str]:
    history = model.history.model._meta  # type: ignore[attr-defined]
    tables = {"row_ids": (model._meta.db_table, "id"), "history_ids": (history.db_table, "history_id"),
              "event_ids": (AuditEvent._meta.db_table, "id")}
    with connection.cursor() as cursor:
        found = {}
        for name, (table, column) in tables.items():
            cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [f'"{table}"', column])
            found[name] = str(cursor.fetchone()[0])
    return found


def _statement(model: type[Sealed], names: Sequence[str], moment: str,
               references: Sequence[Sequence[str]] = ((), (), ())) -> str:
    """The rows, their history rows and their audit events, sealed; each row's and event's id, facility and chain
    digest (0 for a row, 1 for an event). ``references``: for each of the three tables, columns whose distinct
    values the rows inserted hold are returned too (2, the column's number counted over the three, the value)."""
    meta, history = model._meta, model.history.model._meta  # type: ignore[attr-defined]
    fields = [f.column for f in meta.concrete_fields]
    own = [f.column for f in history.concrete_fields if not f.name.startswith("history_")]
    quoted = lambda columns: ", ".join(f'"{c}"' for c in columns)  # noqa: E731
    facility = f'"{_column(model, model.chain_facility)}"' if model.chain_facility else "NULL::bigint"
    typed = [(_column(model, n), _db_type(model, n)) for n in names]
    ids = "nextval(%(row_ids)s::regclass) AS id, nextval(%(history_ids)s::regclass) AS _history_id, " \
          "nextval(%(event_ids)s::regclass) AS _event_id,"
    changes, joins = _changes_sql(model, "t")
    events = [f.column for f in AuditEvent._meta.concrete_fields]
    inserted = ", ".join(f'"{c}"' if c != "changes" else "changes::jsonb" for c in events)
    returning = [f" RETURNING {quoted(columns)}" if columns else "" for columns in references]
    numbered = [(cte, n, column) for cte, columns in zip("rhi", references, strict=True) for n, column in
                enumerate(columns, start=sum(len(before) for before in references[:"rhi".index(cte)]))]
    referenced = "".join(f' UNION ALL SELECT DISTINCT 2, {n}, "{column}"::bigint, NULL::bytea FROM {cte} '  # noqa: S608
                         f'WHERE "{column}" IS NOT NULL' for cte, n, column in numbered)
    return (
        f"WITH {_unnest('t', [*typed, *EXTRA], ids)}, {_unnest('w', WORDS)}, "  # noqa: S608 - the models' names
        f"p AS MATERIALIZED (SELECT t.*, {payload_sql(model, 't')} AS payload FROM t), "
        f"s AS (SELECT p.*, {seal_sql('p.payload')} AS seal FROM p), "
        f'r AS (INSERT INTO "{meta.db_table}" ({quoted(fields)}) SELECT {quoted(fields)} FROM s ORDER BY id'
        f"{returning[0]}), "
        f'h AS (INSERT INTO "{history.db_table}" ({quoted(own)}, history_id, history_date, history_change_reason, '
        f"history_type, history_user_id) SELECT {quoted(own)}, _history_id, \"{moment}\", NULL, '+', _actor FROM s"
        f"{returning[1]}), "
        f"e AS MATERIALIZED (SELECT t._event_id AS id, t.\"{moment}\" AS occurred_at, t.facility_id AS facility_id, "
        f"t._actor AS actor_id, {_literal(AuditEvent.Action.CREATED.value)}::text AS action, "
        f"{_literal(meta.label)}::text AS model_label, {_literal(str(meta.verbose_name))}::text AS model_name, "
        f"t.id::text AS object_id, t._repr AS object_repr, t._history_id AS history_id, {changes} AS changes, "
        f"''::text AS reason FROM t {joins}), "
        f"ep AS MATERIALIZED (SELECT e.*, {payload_sql(AuditEvent, 'e', {'changes': 'e.changes'})} AS payload FROM e), "
        f"es AS (SELECT ep.*, {seal_sql('ep.payload')} AS seal FROM ep), "
        f'i AS (INSERT INTO "{AuditEvent._meta.db_table}" ({quoted(events)}) SELECT {inserted} FROM es ORDER BY id'
        f"{returning[2]}) "
        f"SELECT 0, id, {facility}, sha256(convert_to(payload || chr(10) || seal, 'UTF8')) FROM s UNION ALL "
        f"SELECT 1, id, facility_id, sha256(convert_to(payload || chr(10) || seal, 'UTF8')) FROM es{referenced} "
        "ORDER BY 1, 2"
    )


def rows_as_saved_sql(model: type[Sealed], names: Sequence[str], rows: Sequence[Sequence[Any]], *,
                      moment: str, events: list[tuple[int, int | None, bytes]] | None = None,
                      rows_linked_later: list[tuple[int, int | None, bytes]] | None = None,
                      words: dict[tuple[str, int], str] | None = None,
                      checks: Mapping[str, str] | None = None) -> list[int]:
    """Write ``rows`` of ``model`` as :func:`compliance.scale.rows_as_saved` writes them, in SQL, and link them.
    ``names``: every field's attname but the id's and the seal's, in the order of each row's first values; then
    each row holds the acting user's id and the record's ``str()``. ``moment``: the name of the datetime the row,
    its history row and its audit event are dated with. In the caller's transaction (PostgreSQL). The ids given,
    in order. ``events``: the audit events' digests are added to it, for the caller to link them later (with
    :func:`file_event_digests`, when the other writer of a generated year lets it: :mod:`compliance.scale_turns`),
    rather than linked here. ``rows_linked_later``: likewise the rows' own digests (to be filed with
    :func:`file_digests` once every session writing the model's rows has committed: :mod:`compliance.scale_sessions`).
    ``words``: the related records' names already read (:func:`_words`), kept by a caller writing many batches.
    ``checks``: the statement (``%s``: the ids of the batch's rows) that makes the checks of each of the model's
    INSERT triggers, by the trigger's name; with them, and a login that may, the batch is written as a replica
    applies rows and checked before it commits (:mod:`compliance.scale_replica`)."""
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
    *values, actors, names_of = zip(*rows, strict=True)
    columns = [*values, actors, [text[:200] for text in names_of]]  # as t's: the fields', then EXTRA's
    ipad, opad = hmac_pads()
    params: dict[str, Any] = {"key_id": key_ring().current_id, "ipad": ipad, "opad": opad, **_sequences(model),
                              **_texts("t", columns), **_texts("w", list(zip(*_words(model, names, rows, words), strict=True)) or [[], [], []])}
    as_replica = _as_replica(model, checks or {})
    with connection.cursor() as cursor:
        # Compiling these long expressions with LLVM takes longer than running them (seconds a batch); the
        # materialized steps held in memory.
        cursor.execute("SET LOCAL jit = off")
        cursor.execute("SET LOCAL work_mem = '64MB'")
        if as_replica:
            cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(_statement(model, names, _column(model, moment), as_replica.references if as_replica else
                                  ((), (), ())), params)
        digested = cursor.fetchall()
        if as_replica:
            cursor.execute("SET LOCAL session_replication_role = origin")
    row_digests = [(pk, facility, digest) for kind, pk, facility, digest in digested if kind == 0]
    event_digests = [(pk, facility, digest) for kind, pk, facility, digest in digested if kind == 1]
    if as_replica:
        as_replica.check([pk for pk, _f, _d in row_digests],
                         [(number, value) for kind, number, value, _d in digested if kind == 2])
    _check(model, row_digests, event_digests)
    if rows_linked_later is None:
        _file(model, row_digests)
    else:
        rows_linked_later.extend(row_digests)
    if events is None:
        _file(AuditEvent, event_digests)
    else:
        events.extend(event_digests)
    return [pk for pk, _facility, _digest in row_digests]


@dataclass(frozen=True)
class _Replica:
    """How a model's batches are checked when written as a replica: each table's foreign keys, the checks of its
    triggers (:mod:`compliance.scale_replica`)."""

    tables: tuple[tuple[str, list[Reference]], ...]  # the row's, its history's, the audit events' foreign keys
    checks: tuple[str, ...]

    @property
    def references(self) -> list[list[str]]:
        """Each table's columns a foreign key constrains, for :func:`_statement` to return their values."""
        return [[column for _name, column, _target, _key in keys] for _table, keys in self.tables]

    def check(self, row_ids: list[int], referenced: list[tuple[int, int]]) -> None:
        """``referenced``: (the column's number, a value) for each distinct value the batch's rows hold."""
        values: dict[int, set[int]] = defaultdict(set)
        for number, value in referenced:
            values[number].add(value)
        keys = [(table, key) for table, table_keys in self.tables for key in table_keys]
        for number, (table, key) in enumerate(keys):
            references_checked(table, key, values.get(number, set()))
        with connection.cursor() as cursor:
            for statement in self.checks:
                cursor.execute(statement, [row_ids])


_REPLICAS: dict[tuple[str, str, frozenset[tuple[str, str]]], _Replica | None] = {}


def _as_replica(model: type[Sealed], checks: Mapping[str, str]) -> _Replica | None:
    """The batch's checks if it is to be written as a replica: the login may set the role, every trigger it would
    silence on the three tables is one ``checks`` makes, every foreign key spans one column. Else None (the
    triggers fire). Decided once a process, login, database and model."""
    cache = (f'{connection.settings_dict["USER"]}@{connection.settings_dict["NAME"]}', model._meta.label,
             frozenset(checks.items()))
    if cache not in _REPLICAS:
        history = model.history.model._meta.db_table  # type: ignore[attr-defined]
        tables = (model._meta.db_table, history, AuditEvent._meta.db_table)
        keys = [foreign_keys(table) for table in tables] if replica_permitted() else [None]
        replica = None
        if all(k is not None for k in keys) and checks_cover(silenced := silenced_triggers(tables), checks):
            replica = _Replica(tables=tuple((table, k or []) for table, k in zip(tables, keys, strict=True)),
                               checks=tuple(checks[name] for _table, name in sorted(silenced)))
        _REPLICAS[cache] = replica
    return _REPLICAS[cache]


def written_as_replica(model: type[Sealed], checks: Mapping[str, str]) -> bool:
    """Whether :func:`rows_as_saved_sql` writes the model's batches as a replica (and checks them itself)."""
    return _as_replica(model, checks) is not None


def file_event_digests(events: list[tuple[int, int | None, bytes]]) -> None:
    """Link the audit events :func:`rows_as_saved_sql` wrote and left to the caller (its ``events``)."""
    _file(AuditEvent, events)


def file_digests(model: type[Sealed], digests: list[tuple[int, int | None, bytes]]) -> None:
    """Link the rows of ``model`` :func:`rows_as_saved_sql` wrote and left to the caller (its ``rows_linked_later``),
    in id order, whichever session wrote them. Every session has committed and the generator is the model's only
    writer, so the chain's floor rises to these rows at once (``committed_through``)."""
    _file(model, digests, committed=True)


def _file(model: type[Sealed], digests: list[tuple[int, int | None, bytes]], *, committed: bool = False) -> None:
    by_facility: dict[int | None, list[tuple[int, bytes]]] = defaultdict(list)
    for pk, facility_id, digest in digests:
        by_facility[facility_id].append((pk, bytes(digest)))
    through = max((pk for pk, _facility, _digest in digests), default=None) if committed else None
    for facility_id, batch in by_facility.items():
        chain_link_digests(model, facility_id, batch, committed_through=through)


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
