"""The API's cursor pagination (issue 26, item 8): a page of a list, newest first, and the opaque cursor of the next.

A cursor names the last row of the page it follows — its instant and id, the list's sort key — so the next page is
read by keyset (no count of the whole list, no page shifting while redemptions arrive). It is opaque to clients
(URL-safe base64); one the API did not give is refused in words, never a 500.
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "CursorError", "read_cursor", "read_limit", "write_cursor"]

DEFAULT_LIMIT = 100
MAX_LIMIT = 500


class CursorError(ValueError):
    pass


def write_cursor(at: datetime, pk: int) -> str:
    return base64.urlsafe_b64encode(f"{at.isoformat()}|{pk}".encode()).decode().rstrip("=")


def read_cursor(text: str) -> tuple[datetime, int]:
    refusal = CursorError("cursor is not one this API gave: follow the 'next' link of a page, or leave cursor out")
    if not text or len(text) > 100:
        raise refusal
    try:
        at_text, pk_text = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("ascii").split("|")
        at, pk = datetime.fromisoformat(at_text), int(pk_text)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise refusal from None
    if at.tzinfo is None or not 0 < pk < 2**63 or not (pk_text.isascii() and pk_text.isdigit()):
        raise refusal
    return at, pk


def read_limit(text: str) -> int:
    if not text:
        return DEFAULT_LIMIT
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_LIMIT:
        raise CursorError(f"limit must be a whole number from 1 to {MAX_LIMIT}")
    return int(text)
