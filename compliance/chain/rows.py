"""Sealed rows read fast, as the canonical bytes their seals and digests are made of.

The linker and the verification read millions of rows: not as model instances but as tuples of the
concrete fields, each put in the form :meth:`compliance.models.Sealed.sealed_content` gives it (datetimes
in UTC ISO, dates ISO, the rest as stored), so the bytes are the ones the seal was made of at insert.
``tests/compliance/test_chain_rows.py`` holds the two equal for every sealed model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from django.apps import apps
from django.db import models

from compliance.models import Sealed
from compliance.models.chain import _stored, canonical

__all__ = ["SealedRow", "read_rows", "row_reader", "sealed_models"]

CHUNK = 5000


def sealed_models() -> list[type[Sealed]]:
    """Every concrete sealed model (each facility's rows of each is a chain; subclassing is enough)."""
    return sorted((m for m in apps.get_models() if issubclass(m, Sealed)), key=lambda m: m._meta.label)


@dataclass(frozen=True)
class SealedRow:
    id: int
    seal: str | None
    payload: bytes  # the canonical content: what the seal is the HMAC of
    facility_id: int | None
    content: dict[str, Any]


def _datetime(value: Any) -> Any:
    return value.astimezone(UTC).isoformat() if isinstance(value, datetime) else value


def _date(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _same(value: Any) -> Any:
    return value


_PLAIN = (models.CharField, models.TextField, models.IntegerField, models.BooleanField, models.ForeignKey,
          models.JSONField)


def _converter(field: models.Field[Any, Any]) -> Callable[[Any], Any]:
    if isinstance(field, models.DateTimeField):
        return _datetime
    if isinstance(field, models.DateField):
        return _date
    if isinstance(field, _PLAIN):  # as the database gives them back (JSON decoded by the field)
        return _same
    return lambda value: _stored(field, value)


class RowReader:
    """How to read one sealed model's rows: its columns, their conversions, its facility."""

    def __init__(self, model: type[Sealed]) -> None:
        self.model = model
        self.label = model._meta.label
        self.fields = [f for f in model._meta.concrete_fields if f.name not in ("id", "seal")]
        self.names = [str(f.attname) for f in self.fields]
        self.converters = [_converter(f) for f in self.fields]
        path = model.chain_facility  # "facility", "run__facility" (a join), or "" (no facility)
        self.facility = "" if not path else (path if "__" in path else f"{path}_id")

    def columns(self) -> list[str]:
        return ["pk", "seal", *self.names, *([self.facility] if self.facility else [])]

    def row(self, values: tuple[Any, ...]) -> SealedRow:
        pk, seal, *rest = values
        content = {name: convert(value) for name, convert, value in zip(self.names, self.converters, rest, strict=False)}
        content["model"] = self.label
        facility_id = rest[-1] if self.facility else None
        return SealedRow(pk, seal, canonical(content), facility_id, content)


_READERS: dict[type[Sealed], RowReader] = {}


def row_reader(model: type[Sealed]) -> RowReader:
    if model not in _READERS:
        _READERS[model] = RowReader(model)
    return _READERS[model]


def read_rows(model: type[Sealed], *, above: int | None = None, upto: int | None = None,
              ids: Iterable[int] | None = None, chunk: int = CHUNK) -> Iterator[SealedRow]:
    """The model's rows with ids above ``above`` (every row: None) and up to ``upto``, or exactly ``ids``, in
    id order."""
    reader = row_reader(model)
    rows = model._base_manager.order_by("pk")
    if ids is not None:
        rows = rows.filter(pk__in=list(ids))
    else:
        if above is not None:
            rows = rows.filter(pk__gt=above)
        if upto is not None:
            rows = rows.filter(pk__lte=upto)
    for values in rows.values_list(*reader.columns()).iterator(chunk_size=chunk):
        yield reader.row(values)
