"""The dashboard panel of staffing and surveillance: every breach open at an open table, at once."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse

from compliance.dashboard import Panel, PanelLine
from compliance.roles import Role, is_inspector, roles_of
from compliance.staffing import selectors

__all__ = ["staffing_panel"]

_WHO = frozenset({Role.SHIFT_MANAGER, Role.SURVEILLANCE, Role.FLOORPERSON, Role.COMPLIANCE_OFFICER})


def staffing_panel(request: HttpRequest) -> Panel | None:
    """Shown to the shift managers, surveillance, floorpersons, compliance and the Board inspector."""
    user = request.user
    facility = getattr(request, "facility", None)
    if facility is None or not (roles_of(user) & _WHO or is_inspector(user)):
        return None
    lines = [PanelLine(f"Table {p.table.number} since {p.started_at:%H:%M}: {p.words}",
                       reverse("staffing:surveillance") if p.rule == "cameras" else reverse("staffing:floor"), "alert")
             for p in selectors.open_violations(facility)[:20]]
    return Panel("Staffing and surveillance", lines, empty_text="Every open table is staffed and watched as its "
                 "game requires.", tone="alert" if lines else "", citation="577.9", order=30)
