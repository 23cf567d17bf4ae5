"""The dashboard panel: the age of the facility's copies of the Board's lists and the matches awaiting review."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse

from compliance.dashboard import Panel, PanelLine
from compliance.exclusion import selectors
from compliance.roles import Capability, has_capability, is_inspector

__all__ = ["exclusion_panel"]


def exclusion_panel(request: HttpRequest) -> Panel | None:
    """Shown to marketing and compliance (who mail and who screen) and to the Board inspector."""
    user = request.user
    facility = getattr(request, "facility", None)
    if facility is None or not (has_capability(user, Capability.SCREEN_MAILINGS) or is_inspector(user)):
        return None
    lines = []
    for status in selectors.list_statuses(facility, selectors.facility_today(facility)):
        if status.in_force is None:
            lines.append(PanelLine(f"{status.label}: not imported", reverse("exclusion:lists"), "alert"))
        elif not status.current:
            lines.append(PanelLine(f"{status.label}: {status.age} business days old — import the current list",
                                   reverse("exclusion:lists"), "alert"))
        else:
            lines.append(PanelLine(f"{status.label}: of {status.in_force.board_list_date:%-d %b %Y}, current",
                                   reverse("exclusion:lists")))
    pending = selectors.pending_matches(facility).count()
    if pending:
        lines.append(PanelLine(f"{pending:,} possible match{'es' if pending != 1 else ''} await a compliance "
                               f"officer's decision", reverse("exclusion:queue"), "warn"))
    tone = "alert" if any(line.tone == "alert" for line in lines) else ("warn" if pending else "")
    return Panel("Exclusion lists", lines, tone=tone, citation="525.21(q)(7)", order=40)
