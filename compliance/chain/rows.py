"""Sealed rows read fast, as the canonical bytes their seals and digests are made of.

The linker and the verification read millions of rows: not as model instances but as tuples of the
concrete fields from a server-side cursor, each field written straight into the canonical JSON that
:meth:`compliance.models.Sealed.canonical_content` gives (sorted keys, no spaces, datetimes in UTC ISO,
non-ASCII escaped), so the bytes are the ones the seal was made of at insert. The dictionary of a row's
content is built only when asked for (to name a record in a finding, to put it in an evidence bundle).
``tests/compliance/test_chain_rows.py`` holds the bytes equal to the model's for every sealed model.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, date, datetime
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

from django.apps import apps
from django.db import connection, models, transaction
from psycopg.types.datetime import TimestamptzLoader
from psycopg.types.string import TextLoader

from compliance.models import Sealed
from compliance.models.chain import _stored

__all__ = ["SealedRow", "read_rows", "read_value_runs", "read_values", "row_reader", "rows_in_spans",
           "sealed_models"]

CHUNK = 5000


def sealed_models() -> list[type[Sealed]]:
    """Every concrete sealed model (each facility's rows of each is a chain; subclassing is enough)."""
    return sorted((m for m in apps.get_models() if issubclass(m, Sealed)), key=lambda m: m._meta.label)


class SealedRow:
    """One row as read: id, seal, canonical content (``payload``), facility; its content on demand."""

    __slots__ = ("_values", "facility_id", "id", "payload", "reader", "seal")

    def __init__(self, reader: RowReader, pk: int, seal: str | None, payload: bytes, facility_id: int | None,
                 values: tuple[Any, ...]) -> None:
        self.reader, self.id, self.seal, self.payload, self.facility_id = reader, pk, seal, payload, facility_id
        self._values = values

    @property
    def content(self) -> dict[str, Any]:
        return self.reader.content(self._values)


# Each field's value as the canonical JSON writes it (json.dumps with sort_keys, no spaces, default=str): the
# Python source of an expression of the value ``{x}`` (never None there), inlined into each model's encoder.
_MOMENT = "'\"' + {x}.astimezone(UTC).isoformat() + '\"'"
_DAY = "'\"' + {x}.isoformat() + '\"'"
_BOOLEAN = "('true' if {x} else 'false')"
_NUMBER = "str(int({x}))"
_TEXT = "text({x})"
_JSON = "as_json({x})"
# json.dumps(value, sort_keys=True, separators=(",", ":"), default=str) without its per-call set-up: the C encoder
# made once (no circular check: a value parsed from JSON has no cycles; one from Python is sealed the same way).
_c_encoder = c_make_encoder(None, str, encode_basestring_ascii, None, ":", ",", True, False, True) \
    if c_make_encoder is not None else None
_scan_once = json.decoder.JSONDecoder().scan_once  # type: ignore[attr-defined]  # the C scanner json.loads calls


def _dumps(value: Any) -> str:
    if _c_encoder is None or isinstance(value, str | int | float | bool) or value is None:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return "".join(_c_encoder(value, 0))


def _json(value: Any) -> str:
    """A JSON column's canonical text: PostgreSQL and SQLite give it as text (``_cursor_rows``), parsed here
    once (the scanner without ``json.loads``'s wrapping; anything it does not take whole, by ``json.loads``)."""
    if value.__class__ is not str:
        return _dumps(value)
    try:
        parsed, end = _scan_once(value, 0)
    except StopIteration:  # leading whitespace
        parsed, end = json.loads(value), len(value)
    if end != len(value):
        parsed = json.loads(value)
    if _c_encoder is not None and parsed.__class__ in (dict, list):
        return "".join(_c_encoder(parsed, 0))
    return _dumps(parsed)


def _other(field: models.Field[Any, Any], value: Any) -> str:
    return _dumps(_stored(field, value))


def _encoder(field: models.Field[Any, Any]) -> str | None:
    if isinstance(field, models.DateTimeField):
        return _MOMENT
    if isinstance(field, models.DateField):
        return _DAY
    if isinstance(field, models.BooleanField):
        return _BOOLEAN
    if isinstance(field, models.JSONField):
        return _JSON
    if isinstance(field, models.IntegerField | models.ForeignKey):
        return _NUMBER
    if isinstance(field, models.CharField | models.TextField):
        return _TEXT
    return None  # through the field's own conversion (_stored), then JSON


def _plain(field: models.Field[Any, Any]) -> Callable[[Any], Any]:
    """The value as ``sealed_content`` holds it (for the content dictionary)."""
    if isinstance(field, models.DateTimeField):
        return lambda v: v.astimezone(UTC).isoformat() if isinstance(v, datetime) else v
    if isinstance(field, models.DateField):
        return lambda v: v.isoformat() if isinstance(v, date) else v
    if isinstance(field, models.JSONField):
        return lambda v: json.loads(v) if isinstance(v, str) else v
    return lambda v: _stored(field, v)


class RowReader:
    """How to read one sealed model's rows: its columns, their encoding, its facility."""

    def __init__(self, model: type[Sealed]) -> None:
        self.model, self.label = model, model._meta.label
        self.fields = [f for f in model._meta.concrete_fields if f.name not in ("id", "seal")]
        self.names = [str(f.attname) for f in self.fields]
        self.plain = [_plain(f) for f in self.fields]
        pieces = [(name, index) for index, name in enumerate(self.names)] + [("model", -1)]
        self.encode = self._compiled(sorted(pieces))
        self.table = model._meta.db_table
        self.facility_sql, self.joins = self._facility(model.chain_facility)

    def _facility(self, path: str) -> tuple[str, str]:
        """The SQL of a row's facility id and the joins it needs (a path of foreign keys, e.g. run__facility)."""
        if not path:
            return "NULL", ""
        current: Any = self.model
        alias, joins = "t", list[str]()
        steps = path.split("__")
        for number, step in enumerate(steps):
            field = current._meta.get_field(step)
            if number == len(steps) - 1:
                return f'{alias}."{field.column}"', " ".join(joins)
            target = field.related_model
            joins.append(f'LEFT JOIN "{target._meta.db_table}" j{number} ON j{number}."{target._meta.pk.column}" = '
                         f'{alias}."{field.column}"')
            alias, current = f"j{number}", target
        return "NULL", ""

    def select(self) -> str:
        columns = ", ".join(f't."{f.column}"' for f in self.fields)
        return (f'SELECT t."{self.model._meta.pk.column}", t.seal, {columns}, {self.facility_sql} '  # noqa: S608
                f'FROM "{self.table}" t {self.joins}')

    def _compiled(self, pieces: list[tuple[str, int]]) -> Callable[[tuple[Any, ...]], str]:
        """One function writing a row's canonical JSON from its columns (values[2:] are the fields), generated
        from the model's fields once: the keys in order, each value through its field's encoder, inlined."""
        names: dict[str, Any] = {"UTC": UTC, "text": encode_basestring_ascii, "as_json": _json}
        unpacked = ", ".join(["_id", "_seal", *(f"x{i}" for i in range(len(self.fields))), "_facility"])
        lines, template = ["def encode(v):", f"    {unpacked} = v"], ""
        for number, (name, index) in enumerate(pieces):
            literal = ("{" if number == 0 else ",") + encode_basestring_ascii(name) + ":"
            if index < 0:
                template += literal + encode_basestring_ascii(self.label)
                continue
            expression = _encoder(self.fields[index])
            if expression is None:
                names[f"other_{index}"] = functools.partial(_other, self.fields[index])
                expression = f"other_{index}({{x}})"
            lines.append(f"    p{index} = 'null' if x{index} is None else {expression.format(x=f'x{index}')}")
            template += literal + "\0" + f"p{index}" + "\0"
        if "'" in template or "\\" in template:
            raise ValueError(f"{self.label}: a field name or label that is not an identifier")
        parts = template.replace("{", "{{").replace("}", "}}").split("\0")
        fstring = "".join(part if n % 2 == 0 else "{" + part + "}" for n, part in enumerate(parts))
        lines.append(f"    return f'{fstring}}}}}'")
        exec(compile("\n".join(lines) + "\n", f"<canonical {self.label}>", "exec"), names)  # noqa: S102 - our fields
        return names["encode"]

    def payload(self, fields: Iterable[Any]) -> bytes:
        """The canonical bytes of a row given its fields' values in the order of :attr:`names` (a row about to be
        written: ``compliance.scale`` seals the rows it writes by COPY with them)."""
        return self.encode((None, None, *fields, None)).encode()

    def row(self, values: tuple[Any, ...]) -> SealedRow:
        return SealedRow(self, values[0], values[1], self.encode(values).encode(), values[-1], values[2:-1])

    def content(self, values: tuple[Any, ...]) -> dict[str, Any]:
        content = {name: plain(value) for name, plain, value in zip(self.names, self.plain, values, strict=True)}
        content["model"] = self.label
        return content


_READERS: dict[type[Sealed], RowReader] = {}


def row_reader(model: type[Sealed]) -> RowReader:
    if model not in _READERS:
        _READERS[model] = RowReader(model)
    return _READERS[model]


def _cursor_rows(sql: str, params: list[Any], chunk: int) -> Iterator[tuple[Any, ...]]:
    """Rows from a server-side cursor (PostgreSQL: in text, each column read by psycopg's loaders in C: JSON
    kept as its text for the encoder to parse once, a timestamptz without Django's wrapper in Python), else a
    plain one."""
    connection.ensure_connection()
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            while batch := cursor.fetchmany(chunk):
                yield from batch
        return
    with transaction.atomic(), connection.connection.cursor(name=f"sealed_rows_{id(sql)}") as cursor:
        for name in ("json", "jsonb"):
            cursor.adapters.register_loader(name, TextLoader)
        cursor.adapters.register_loader("timestamptz", TimestamptzLoader)
        cursor.execute(sql, params)
        while batch := cursor.fetchmany(chunk):  # a list at a time: no call into psycopg for each row
            yield from batch


def _datetimes_aware(model: type[Sealed], values: Iterator[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """SQLite gives datetimes back as text or naive values: as Django reads them (UTC)."""
    if connection.vendor != "sqlite":
        yield from values
        return
    reader = row_reader(model)
    kinds = [(i + 2, f) for i, f in enumerate(reader.fields) if isinstance(f, models.DateField | models.JSONField |
                                                                           models.BooleanField)]
    for row in values:
        mutable = list(row)
        for index, field in kinds:
            value = mutable[index]
            if value is not None and not isinstance(field, models.JSONField):
                mutable[index] = field.to_python(value)
                if isinstance(mutable[index], datetime) and mutable[index].tzinfo is None:
                    mutable[index] = mutable[index].replace(tzinfo=UTC)
        yield tuple(mutable)


def read_rows(model: type[Sealed], *, above: int | None = None, upto: int | None = None,
              ids: Iterable[int] | None = None, chunk: int = CHUNK) -> Iterator[SealedRow]:
    """The model's rows with ids above ``above`` (every row: None) and up to ``upto``, or exactly ``ids``, in
    id order."""
    reader = row_reader(model)
    if ids is not None:
        wanted = sorted(set(ids))
        for start in range(0, len(wanted), 10_000):
            part = wanted[start:start + 10_000]
            if connection.vendor == "postgresql":
                values = _values(reader, 't."id" = ANY(%s)', [part], chunk)
            else:
                values = _values(reader, f't."id" IN ({", ".join(["%s"] * len(part))})', part, chunk)
            yield from map(reader.row, values)
        return
    yield from map(reader.row, read_values(model, above=above, upto=upto, chunk=chunk))


def read_values(model: type[Sealed], *, above: int | None = None, upto: int | None = None,
                chunk: int = CHUNK) -> Iterator[tuple[Any, ...]]:
    """The rows of :func:`read_rows` as they come from the database, for the scans of millions of rows: tuples of
    the id, the seal, the fields (``row_reader(model).encode`` writes their canonical JSON) and the facility."""
    where, params = ["TRUE"], []
    if above is not None:
        where.append('t."id" > %s')
        params.append(above)
    if upto is not None:
        where.append('t."id" <= %s')
        params.append(upto)
    return _values(row_reader(model), " AND ".join(where), params, chunk)


def _values(reader: RowReader, where: str, params: list[Any], chunk: int) -> Iterator[tuple[Any, ...]]:
    sql = f'{reader.select()} WHERE {where} ORDER BY t."id"'
    return _datetimes_aware(reader.model, _cursor_rows(sql, params, chunk))


def rows_in_spans(model: type[Sealed], spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """For each span of ids (ascending, apart) that holds rows, the lowest and highest id of its rows: two probes of
    the primary key's index a span, none of the ids between read (one statement on PostgreSQL, whatever the number
    of spans). The linker asks it for the spans no link covers (``compliance.chain.link.Coverage.gaps``) instead of
    reading every id above the floor and skipping the covered ones: a generated year's linker read each hour's
    redemptions once more that way (578,000 ids over ten days, 3 s; issue 27), the minute's linker a busy floor's."""
    spans = [(first, last) for first, last in spans if first <= last]
    if not spans:
        return []
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"SELECT b.low, b.high FROM unnest(%s::bigint[], %s::bigint[]) AS g(first, last) "  # noqa: S608
                f'CROSS JOIN LATERAL (SELECT min(t."id") AS low, max(t."id") AS high FROM {table} t '
                f'WHERE t."id" BETWEEN g.first AND g.last) b WHERE b.low IS NOT NULL ORDER BY b.low',
                [[first for first, _ in spans], [last for _, last in spans]])
            return [(low, high) for low, high in cursor.fetchall()]
        found = []
        for first, last in spans:  # SQLite (the embedded demo): a statement a span
            cursor.execute(f'SELECT min("id"), max("id") FROM {table} WHERE "id" BETWEEN %s AND %s',  # noqa: S608
                           [first, last])
            low, high = cursor.fetchone()
            if low is not None:
                found.append((low, high))
        return found


def read_value_runs(model: type[Sealed], runs: Iterable[tuple[int, int]]) -> Iterator[tuple[Any, ...]]:
    """The rows in these runs of ids (ascending, not overlapping), in id order, as :func:`read_values` gives them."""
    for first, last in runs:
        yield from read_values(model, above=first - 1, upto=last)
