"""Pages of a long list in ascending order of one unique integer — an exclusion list's lines, a series' serials —
by keyset (issue 27: no count of the whole list, no OFFSET): a page starts at a number the person can also type
("from line 51,200", "from serial 1,004,310"), and its links name the numbers where the pages either side start.

``from``: the first row shown is the first whose key is at or above it. The key must order the rows and be unique
among them (a line of a list; the last serial of a series' open ranges, which never overlap, so the range holding
a serial is the first whose last serial reaches it)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db.models import QuerySet

from compliance.bounds import MAX_ROW_ID

__all__ = ["KeyPage", "key_page", "start_asked"]

T = TypeVar("T")


@dataclass(frozen=True)
class KeyPage(Generic[T]):
    """One page; ``previous_from`` / ``next_from``: where the pages either side start (None: no such page)."""

    object_list: list[T]
    start: int | None
    previous_from: int | None
    next_from: int | None

    def __iter__(self) -> Iterator[T]:
        return iter(self.object_list)

    def __len__(self) -> int:
        return len(self.object_list)

    @property
    def at_start(self) -> bool:
        return self.previous_from is None and self.start is None

    @property
    def has_other_pages(self) -> bool:
        return self.start is not None or self.next_from is not None


def start_asked(query: Any, name: str = "from") -> tuple[int | None, str]:
    """The number a page link or the jump field asks to start from, and the words if it is not one (the page then
    starts at the beginning): digits only, commas and spaces allowed, as a person types them."""
    text = str(query.get(name, "")).replace(",", "").replace(" ", "").strip()
    if not text:
        return None, ""
    if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) > MAX_ROW_ID:
        return None, f"“{str(query.get(name))[:40]}” is not a number to start from; showing the start of the list."
    return int(text), ""


def key_page(rows: QuerySet[Any], key: str, start: int | None, size: int) -> KeyPage[Any]:
    """The page of ``rows`` (ascending by the integer field ``key``) from ``start`` on: two queries at most, each
    one step down the key's index (the page and one more row; the start of the page before)."""
    shown = rows.filter(**{f"{key}__gte": start}) if start is not None else rows
    found = list(shown.order_by(key)[:size + 1])
    next_from = getattr(found[size], key) if len(found) > size else None
    found = found[:size]
    previous_from = None
    if start is not None:
        first = getattr(found[0], key) if found else start
        before = list(rows.filter(**{f"{key}__lt": first}).order_by(f"-{key}").values_list(key, flat=True)[:size])
        previous_from = before[-1] if before else None
    return KeyPage(found, start, previous_from, next_from)
