"""The API's cursor pagination (issue 26, item 8): a page of a list, newest first, and the opaque cursor of the next.

A cursor names the last row of the page it follows — its instant and id, the list's sort key — so the next page is
read by keyset (no count of the whole list, no page shifting while redemptions arrive). It is opaque to clients and
signed (``compliance.keyset``, shared with the audit trail page); one the API did not give is refused in words, never
a 500.
"""

from __future__ import annotations

from datetime import datetime

from compliance import keyset
from compliance.keyset import CursorError

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "CursorError", "read_cursor", "read_limit", "write_cursor"]

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
_PURPOSE = "coupons.api.redemptions"


def write_cursor(at: datetime, pk: int) -> str:
    return keyset.write_cursor(at, pk, purpose=_PURPOSE)


def read_cursor(text: str) -> tuple[datetime, int]:
    try:
        return keyset.read_cursor(text, purpose=_PURPOSE)
    except CursorError:
        raise CursorError("cursor is not one this API gave: follow the 'next' link of a page, or leave cursor "
                          "out") from None


def read_limit(text: str | None) -> int:
    """The page's size: ``None`` (no ``limit`` in the query) is the default; an empty one is refused, as the
    schema's integer is."""
    if text is None:
        return DEFAULT_LIMIT
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_LIMIT:
        raise CursorError(f"limit must be a whole number from 1 to {MAX_LIMIT}")
    return int(text)
