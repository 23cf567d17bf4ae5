"""A report kind installed only in tests: slow and observable on its first attempt, for killing a worker
in the middle of a report (``tests/reports/test_worker_kill.py``).

With ``TESTAPP_REPORT_MARKER_DIR`` set (the worker subprocess of that test), ``build`` writes a marker file
``attempt-<run>-<attempt>`` holding the id of the process running it (the pool child to kill) and, on the
run's first attempt only, then sleeps ``TESTAPP_REPORT_SLEEP_SECONDS`` (default 30) — long enough to be
killed inside ``build``; a delivery after that finishes at once. Without it the kind is quick and silent.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from compliance.reports.content import ReportContent, Section
from compliance.reports.periods import Period
from compliance.reports.registry import ReportKind, register

__all__ = ["CODE", "MARKER_DIR_ENV", "SLEEP_SECONDS_ENV", "marker_name"]

CODE = "test-slow"
MARKER_DIR_ENV = "TESTAPP_REPORT_MARKER_DIR"
SLEEP_SECONDS_ENV = "TESTAPP_REPORT_SLEEP_SECONDS"


def marker_name(run_id: int, attempt: int) -> str:
    return f"attempt-{run_id}-{attempt}"


def build(facility: Any, period: Period) -> ReportContent:
    from compliance.reports.models import ReportRun

    run = ReportRun.objects.filter(facility=facility, kind=CODE, period_start=period.start, period_end=period.end,
                                   status=ReportRun.Status.RUNNING).first()  # one active run per period
    attempt = run.attempts if run is not None else 0  # 0: shown on a page, not produced by a job
    marker_dir = os.environ.get(MARKER_DIR_ENV, "")
    if marker_dir and run is not None:
        marker = Path(marker_dir) / marker_name(run.pk, run.attempts)
        partial = marker.with_suffix(".tmp")
        partial.write_text(str(os.getpid()))
        partial.rename(marker)  # whole or absent: the test reads it as soon as it appears
        if run.attempts == 1:
            time.sleep(float(os.environ.get(SLEEP_SECONDS_ENV, "30")))
    return ReportContent(
        title="Test report (slow on its first attempt)",
        citations=[],
        period=period.label(),
        summary=[("Attempt", str(attempt))],
        sections=[Section("Rows", ["Facility", "First day", "Last day"],
                          [[facility.code, f"{period.start:%Y-%m-%d}", f"{period.end:%Y-%m-%d}"]])],
        figures={"facility": facility.code},
    )


KIND = register(ReportKind(
    code=CODE,
    title="Test report (slow on its first attempt)",
    citations=(),
    description="Installed only in tests: a report whose first attempt waits inside build.",
    build=build,
))
