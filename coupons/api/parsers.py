"""The API's JSON parser: DRF's own, except that a body nested deeper than Python's decoder goes (a few thousand
brackets, well under the request's size limit) is refused in words, 400 ``invalid_request``, rather than raising
``RecursionError`` out of the view (a 500)."""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

__all__ = ["JSONParser"]


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply to read.") from None
