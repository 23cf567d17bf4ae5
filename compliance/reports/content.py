"""A report's content as plain data: what the page, the CSV and the PDF all show, and what a version keeps.

A kind's query returns a :class:`ReportContent`; the framework renders it three ways and stores it with the
version as JSON (so the page of an old version shows what was produced, never a recomputation).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Chart", "ReportContent", "Section", "Series"]


@dataclass(frozen=True)
class Series:
    name: str
    values: list[int]


@dataclass(frozen=True)
class Chart:
    """Bars per category, one bar of each series stacked (``stacked``) or side by side. Whole numbers only:
    counts, or cents shown with ``unit="$"``."""

    title: str
    categories: list[str]
    series: list[Series]
    stacked: bool = True
    unit: str = ""  # "$": the values are cents, shown as dollars

    @property
    def empty(self) -> bool:
        return not self.categories or not any(any(s.values) for s in self.series)


@dataclass(frozen=True)
class Section:
    title: str
    header: list[str]
    rows: list[list[str]]
    empty: str = "None in this period."
    note: str = ""
    widths: list[float] | None = None  # relative column widths in the PDF (None: reportlab decides)


@dataclass
class ReportContent:
    title: str
    citations: list[str]
    period: str
    summary: list[tuple[str, str]] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    readings: list[str] = field(default_factory=list)  # how the clause was read, shown on every output
    figures: dict[str, Any] = field(default_factory=dict)  # the machine-readable totals (the JSON, tests)
    landscape: bool = False

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True, indent=1).encode()

    @classmethod
    def from_json(cls, data: bytes | str) -> ReportContent:
        raw = json.loads(data)
        return cls(
            title=raw["title"], citations=list(raw["citations"]), period=raw["period"],
            summary=[(a, b) for a, b in raw.get("summary", [])],
            sections=[Section(**s) for s in raw.get("sections", [])],
            charts=[Chart(title=c["title"], categories=c["categories"], stacked=c.get("stacked", True),
                          unit=c.get("unit", ""), series=[Series(**s) for s in c["series"]])
                    for c in raw.get("charts", [])],
            readings=list(raw.get("readings", [])), figures=dict(raw.get("figures", {})),
            landscape=bool(raw.get("landscape", False)),
        )
