"""Serial ranges: reading what a clerk types or scans, and interval arithmetic that never loops per coupon."""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

from django.core.exceptions import ValidationError

from compliance.bounds import MAX_SERIAL

__all__ = ["Span", "clip", "count", "describe", "merge", "parse_issue", "parse_serials", "subtract"]

Span = tuple[int, int]  # first and last serial, inclusive

_RANGE = re.compile(r"^(\d+)\s*(?:-|–|—|to|\.\.)\s*(\d+)$", re.IGNORECASE | re.ASCII)
_ONE = re.compile(r"^(\d+)$", re.ASCII)


def parse_serials(text: str, series: Any) -> list[Span]:
    """``"100001-100500, MP-0100601"`` → ``[(100001, 100500), (100601, 100601)]``.

    Accepts numbers, ranges (``-``, ``–``, ``to``) and serials as printed (with the series prefix),
    separated by commas, semicolons or new lines: a scanner that types one printed serial per line
    works as is. A serial listed twice is refused rather than silently merged.
    """
    prefix = (series.serial_prefix or "").strip()
    spans: list[Span] = []
    for raw in re.split(r"[,;\n]+", text or ""):
        token = raw.strip()
        if not token:
            continue
        cleaned = re.sub(rf"{re.escape(prefix)}-?", "", token, flags=re.IGNORECASE) if prefix else token
        cleaned = cleaned.strip()
        match = _RANGE.match(cleaned)
        if match:
            first, last = int(match.group(1)), int(match.group(2))
        elif _ONE.match(cleaned):
            first = last = int(cleaned)
        else:
            raise ValidationError(
                f"“{token}” is not a serial number or a range such as {series.serial(100001)}–{series.serial(100500)}."
            )
        if first > last:
            raise ValidationError(f"“{token}”: the first serial is after the last one.")
        if last > MAX_SERIAL:
            raise ValidationError(f"“{token}” is longer than any printed serial number (at most {len(str(MAX_SERIAL))} "
                                  f"digits); check the serial entered.")
        spans.append((first, last))
    if not spans:
        raise ValidationError("Enter at least one serial number or range.")
    spans.sort()
    for (_, prev_last), (first, _) in pairwise(spans):
        if first <= prev_last:
            raise ValidationError(f"Serial {series.serial(first)} is listed twice.")
    return merge(spans)


_WITH_VOIDED = re.compile(r"^(?P<issued>.+?)\s+(?:with|except)\s+(?P<voided>.+?)\s+voided\.?\s*$",
                          re.IGNORECASE | re.DOTALL)


def parse_issue(text: str, series: Any) -> tuple[list[Span], list[Span]]:
    """What a finance supervisor types for an issuance, as the paper says it: "100001–100500 with 100013
    voided" → ``([(100001, 100012), (100014, 100500)], [(100013, 100013)])``. Without "with … voided",
    every serial is issued."""
    match = _WITH_VOIDED.match((text or "").strip())
    if match is None:
        return parse_serials(text, series), []
    whole, voided = parse_serials(match["issued"], series), parse_serials(match["voided"], series)
    outside = subtract(voided, whole)
    if outside:
        raise ValidationError(
            f"The voided serials {describe(series, outside)} are not inside the serials issued; list them inside "
            f"the range, e.g. {series.serial(100001)}–{series.serial(100500)} with {series.serial(100013)} voided."
        )
    return subtract(whole, voided), voided


def merge(spans: Iterable[Span]) -> list[Span]:
    """Sorted, with touching or overlapping spans joined."""
    result: list[Span] = []
    for first, last in sorted(spans):
        if result and first <= result[-1][1] + 1:
            result[-1] = (result[-1][0], max(result[-1][1], last))
        else:
            result.append((first, last))
    return result


def subtract(spans: Iterable[Span], remove: Iterable[Span]) -> list[Span]:
    """The parts of ``spans`` not covered by ``remove`` (both lists of inclusive spans)."""
    removing = merge(remove)
    out: list[Span] = []
    for first, last in merge(spans):
        cursor = first
        for r_first, r_last in removing:
            if r_last < cursor or r_first > last:
                continue
            if r_first > cursor:
                out.append((cursor, r_first - 1))
            cursor = max(cursor, r_last + 1)
            if cursor > last:
                break
        if cursor <= last:
            out.append((cursor, last))
    return out


def clip(spans: Iterable[Span], first: int, last: int) -> list[Span]:
    """The parts of ``spans`` that fall inside ``first``–``last`` (a range row, a ledger line)."""
    return [(max(f, first), min(lt, last)) for f, lt in spans if f <= last and lt >= first]


def count(spans: Iterable[Span]) -> int:
    return sum(last - first + 1 for first, last in spans)


def describe(series: Any, spans: Iterable[Span]) -> str:
    return ", ".join(series.span(first, last) for first, last in spans)
