"""The dashboard panel of the reports: where the last quarter's Match Play Coupon report stands (produced,
prepared, approved, filed — § 525.21(o)), and any report job that failed."""

from __future__ import annotations

from datetime import timedelta

from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone

from compliance.dashboard import Panel, PanelLine
from compliance.gaming_day import gaming_day
from compliance.reports import selectors
from compliance.reports.periods import previous_quarter
from compliance.roles import Role, is_inspector, roles_of

__all__ = ["reports_panel"]

_WHO = frozenset({Role.COMPLIANCE_OFFICER, Role.FINANCE_SUPERVISOR})
QUARTERLY = "quarterly-coupons"


def _quarter_line(request: HttpRequest) -> PanelLine:
    facility = request.facility  # type: ignore[attr-defined]
    period = previous_quarter(gaming_day(facility))
    versions = list(selectors.versions_of(facility, QUARTERLY, period))
    filed = next((v for v in versions if getattr(v, "filing", None) is not None), None)
    done = next((v for v in versions if v.succeeded), None)
    name = f"Quarterly coupon report, {period.label()}"
    if filed is not None:
        return PanelLine(f"{name}: version {filed.version} filed on {filed.filing.filed_on:%d %b %Y}.",
                         filed.get_absolute_url())
    if done is None:
        active = next((v for v in versions if v.active), None)
        if active is not None:
            return PanelLine(f"{name}: being produced.", active.get_absolute_url(), "warn")
        url = reverse("reports:kind", args=[QUARTERLY]) + f"?start={period.start:%Y-%m-%d}&end={period.end:%Y-%m-%d}"
        return PanelLine(f"{name}: not produced yet.", url, "alert")
    signoff = getattr(done, "signoff", None)
    missing = [req.label for req in signoff.missing_signatures] if signoff is not None else []
    words = f"awaiting {', '.join(missing)}" if missing else "signed, not yet recorded as filed with the Bureau"
    return PanelLine(f"{name}: version {done.version} {words}.", done.get_absolute_url(), "warn")


def reports_panel(request: HttpRequest) -> Panel | None:
    """Shown to compliance officers, finance supervisors and the Board inspector."""
    user = request.user
    facility = getattr(request, "facility", None)
    if facility is None or not (roles_of(user) & _WHO or is_inspector(user)):
        return None
    lines = [_quarter_line(request)]
    lines += [PanelLine(f"{run.kind_title} ({run.period_start:%d %b} – {run.period_end:%d %b %Y}) failed: {run.error}",
                        run.get_absolute_url(), "alert")
              for run in selectors.failed_runs_unresolved(facility, since=timezone.now() - timedelta(days=30))[:5]]
    tone = "alert" if any(line.tone == "alert" for line in lines) else ("warn" if lines[0].tone else "")
    return Panel("Reports", lines, tone=tone, citation="525.21(o)", order=40)
