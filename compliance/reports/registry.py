"""The catalogue of reports: each kind is one small module in ``kinds/`` that registers itself here.

A kind gives its code, title and clauses, its query (``build``: facility and period in, plain
:class:`~compliance.reports.content.ReportContent` out, in a constant number of queries), its default
period, and whether it needs signatures, is produced on the quarterly schedule, or takes quarters only.
The framework does the rest: the page, the job, the files, the versions, the inspector's access.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from compliance.reports.content import ReportContent
from compliance.reports.periods import Period, month_of
from compliance.roles import Capability

__all__ = ["ReportKind", "all_kinds", "kind_of", "register"]


def _last_month(today: date) -> Period:
    return month_of(today.replace(day=1) - timedelta(days=1))


@dataclass(frozen=True)
class ReportKind:
    code: str
    title: str
    citations: tuple[str, ...]
    description: str
    build: Callable[[Any, Period], ReportContent]  # (facility, period) -> content
    default_period: Callable[[date], Period] = _last_month  # from today's gaming day
    capability: Capability = Capability.RUN_REPORTS  # to see it; producing needs RUN_REPORTS as well
    quarters_only: bool = False
    scheduled_quarterly: bool = False
    signed: bool = False  # prepared-by and approved-by signatures (ReportSignoff)
    filed: bool = False  # filed with the Bureau (ReportFiling)
    max_days: int = 366
    live: bool = True  # the page computes it for any period; False: versions only (too large for a request)
    # (facility, period, today) -> whether the records are complete enough for the schedule to produce it
    ready: Callable[[Any, Period, date], bool] | None = None
    # (facility, period, stored figures, when the version's job began) -> why a version no longer matches the
    # records ("" when it does)
    stale: Callable[[Any, Period, dict[str, Any], datetime | None], str] | None = None

    def file_stem(self, facility_code: str, period: Period, version: int) -> str:
        return f"{self.code}-{facility_code}-{period.start:%Y%m%d}-{period.end:%Y%m%d}-v{version}"


_KINDS: dict[str, ReportKind] = {}


def register(kind: ReportKind) -> ReportKind:
    _KINDS[kind.code] = kind
    return kind


def kind_of(code: str) -> ReportKind | None:
    return _KINDS.get(code)


def all_kinds() -> list[ReportKind]:
    return list(_KINDS.values())

