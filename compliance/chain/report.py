"""What a verification found, and its clock (the time limit)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from compliance.chain.rows import SealedRow
from compliance.models import ChainVerification, Sealed

__all__ = ["ALTERED", "KEPT", "ChainReport", "Clock", "OutOfTime", "named"]

ALTERED = "altered since signed"
KEPT = 10_000  # findings kept in full; the rest are counted


class OutOfTime(Exception):
    pass


@dataclass
class ChainReport:
    """What a verification found. ``findings``: in words, the first :data:`KEPT`; ``finding_count``: all."""

    mode: str = ChainVerification.Mode.FULL
    findings: list[str] = field(default_factory=list)
    finding_count: int = 0
    rows: int = 0
    links: int = 0
    records: int = 0
    anchors: int = 0
    pending: int = 0
    complete: bool = True
    through: dict[str, list[Any]] = field(default_factory=dict)
    started_at: datetime = field(default_factory=timezone.now)

    def add(self, kind: str, text: str) -> None:
        self.finding_count += 1
        if len(self.findings) < KEPT:
            self.findings.append(f"{kind}: {text}")

    @property
    def intact(self) -> bool:
        return self.complete and not self.finding_count

    @property
    def altered(self) -> list[str]:
        return [line for line in self.findings if not line.startswith("BROKEN LINK")]

    @property
    def broken(self) -> list[str]:
        return [line for line in self.findings if line.startswith("BROKEN LINK")]

    def lines(self) -> list[str]:
        verdict = "intact" if self.intact else ("NOT intact" if self.complete else "INCOMPLETE (time limit)")
        more = [f"… and {self.finding_count - len(self.findings):,} more"] if self.finding_count > len(self.findings) else []
        summary = (f"{self.mode} verification: {self.links:,} links, {self.rows:,} sealed rows ({self.pending:,} "
                   f"awaiting their link), {self.records:,} signed records, {self.anchors:,} anchored heads checked: "
                   f"{verdict}")
        return [*self.findings, *more, summary]


def named(model: type[Sealed], row: SealedRow) -> str:
    owner = model.belongs_to(row.content)
    return f"{model._meta.label} #{row.id}" + (f" — {owner}" if owner else "")


class Clock:
    def __init__(self, limit: float | None) -> None:
        self.deadline = time.monotonic() + limit if limit else None
        self.count = 0

    def remaining(self) -> float | None:
        return None if self.deadline is None else max(1.0, self.deadline - time.monotonic())

    def tick(self) -> None:
        self.count += 1
        if not self.count & 1023 and self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime


