"""Keyset pagination of a list newest first, by an instant and an id (issue 27, Deliver 3): no count of the whole
list, no OFFSET, no page shifting while rows arrive.

A cursor names one row of the list — its instant and id, the list's sort key. It is opaque (URL-safe base64 of the
instant in microseconds and the id) and signed with the site's key for one ``purpose`` (an HMAC, cut to 96 bits:
enough that a cursor cannot be made up or edited, short enough for a link). Reading one that was not made here, for
that purpose, raises :class:`CursorError`; the caller answers in words, never a 500. The API's redemption list
(``coupons.api.cursor``) and the audit trail page read and write cursors here.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from django.db.models import Q, QuerySet
from django.utils.crypto import salted_hmac

__all__ = ["CursorError", "Keyset", "KeysetPage", "keyset_of", "keyset_page", "read_cursor", "stale_link_words",
           "write_cursor"]

T = TypeVar("T")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MAX_LENGTH = 100
_SIGNATURE_BYTES = 12
_PAYLOAD = re.compile(r"-?[0-9]{1,19}\.[0-9]{1,19}")


class CursorError(ValueError):
    pass


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _signature(payload: str, purpose: str) -> str:
    return _b64(salted_hmac(f"compliance.keyset.{purpose}", payload, algorithm="sha256").digest()[:_SIGNATURE_BYTES])


def write_cursor(at: datetime, pk: int, *, purpose: str) -> str:
    """The cursor of the row (``at``, ``pk``) of the list ``purpose`` names."""
    delta = at - _EPOCH
    micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    payload = f"{micros}.{pk}"
    return f"{_b64(payload.encode('ascii'))}.{_signature(payload, purpose)}"


def read_cursor(text: str, *, purpose: str) -> tuple[datetime, int]:
    """The (instant, id) a cursor of ``purpose`` names; :class:`CursorError` for anything else."""
    refusal = CursorError("the cursor is not one this list gave")
    if not text or len(text) > _MAX_LENGTH or not text.isascii() or text.count(".") != 1:
        raise refusal
    encoded, signature = text.split(".")
    try:
        payload = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise refusal from None
    if _b64(payload.encode("ascii")) != encoded or not hmac.compare_digest(signature, _signature(payload, purpose)):
        raise refusal
    if not _PAYLOAD.fullmatch(payload):
        raise refusal
    micros_text, _, pk_text = payload.partition(".")
    if not 0 < int(pk_text) < 2**63:
        raise refusal
    try:
        at = _EPOCH + timedelta(microseconds=int(micros_text))
    except OverflowError:
        raise refusal from None
    return at, int(pk_text)


@dataclass(frozen=True)
class Keyset:
    """Where a page starts: the rows older than (``newer`` False) or newer than (``newer`` True) the row at
    (``at``, ``pk``); no row named: the newest rows."""

    at: datetime | None = None
    pk: int | None = None
    newer: bool = False

    def applied(self, rows: QuerySet[Any], field: str) -> QuerySet[Any]:
        """``rows`` from the page's start on, in the order the page is read: newest first, or, walking toward the
        newer rows, oldest first (the caller turns them round). The sort key is (``field``, id), unique."""
        if self.at is not None and self.pk is not None:
            if self.newer:
                # The redundant bound on the instant alone is what an index on the instant can seek to.
                rows = rows.filter(Q(**{f"{field}__gt": self.at}) | Q(**{field: self.at, "pk__gt": self.pk}),
                                   **{f"{field}__gte": self.at})
            else:
                rows = rows.filter(Q(**{f"{field}__lt": self.at}) | Q(**{field: self.at, "pk__lt": self.pk}),
                                   **{f"{field}__lte": self.at})
        return rows.order_by(field, "pk") if self.newer else rows.order_by(f"-{field}", "-pk")

    @classmethod
    def from_query(cls, query: Any, *, purpose: str) -> Keyset:
        """The keyset a page link names (``older=`` or ``newer=`` a cursor); :class:`CursorError` if its cursor
        was not made here."""
        for name, newer in (("older", False), ("newer", True)):
            if text := query.get(name, ""):
                at, pk = read_cursor(text, purpose=purpose)
                return cls(at, pk, newer)
        return cls()


@dataclass(frozen=True)
class KeysetPage(Generic[T]):
    """One page newest first; ``newer`` / ``older``: the cursors of the pages either side (``None``: no such page,
    or none to name: a page past the end has no row to start the newer one from, only the list's start).
    ``at_newest``: the page is the list's first."""

    object_list: list[T]
    newer: str | None
    older: str | None
    at_newest: bool

    def __iter__(self) -> Iterator[T]:
        return iter(self.object_list)

    def __len__(self) -> int:
        return len(self.object_list)

    @property
    def has_other_pages(self) -> bool:
        return not self.at_newest or self.older is not None


def keyset_page(read: Callable[[Keyset, int], Sequence[T]], keyset: Keyset, *, size: int,
                key: Callable[[T], tuple[datetime, int]], purpose: str) -> KeysetPage[T]:
    """The page of ``size`` rows ``keyset`` names. ``read(keyset, limit)`` gives up to ``limit`` rows in the order of
    :meth:`Keyset.applied`; one more than the page is read to know whether another page follows. Walking toward the
    newer rows to the start of the list gives the newest page, full."""
    rows = list(read(keyset, size + 1))
    if keyset.newer:
        if len(rows) <= size:  # back at the start: the newest page, full, rather than the few rows left
            return keyset_page(read, Keyset(), size=size, key=key, purpose=purpose)
        shown = rows[:size][::-1]
        return KeysetPage(shown, write_cursor(*key(shown[0]), purpose=purpose),
                          write_cursor(*key(shown[-1]), purpose=purpose), at_newest=False)
    shown, at_newest = rows[:size], keyset.at is None
    newer = write_cursor(*key(shown[0]), purpose=purpose) if shown and not at_newest else None
    older = write_cursor(*key(shown[-1]), purpose=purpose) if len(rows) > size else None
    return KeysetPage(shown, newer, older, at_newest=at_newest)


def keyset_of(query: Any, *, purpose: str) -> tuple[Keyset, bool, str]:
    """What a list page's link asks for: the keyset it names (the newest rows if its cursor was not made here),
    whether its cursor was refused (the page says so in words), and its other parameters — the filters, urlencoded,
    for the pager's links."""
    others = query.copy()
    for name in ("older", "newer", "page"):
        others.pop(name, None)
    try:
        return Keyset.from_query(query, purpose=purpose), False, others.urlencode()
    except CursorError:
        return Keyset(), True, others.urlencode()


def stale_link_words(noun: str) -> str:
    """The page's words for a page link it cannot follow (``noun``: what a row is, plural)."""
    return f"That page link is no longer valid; showing the newest {noun}."
