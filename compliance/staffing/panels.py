"""The dashboard panel of staffing and surveillance: every breach open at an open table, at once."""

from __future__ import annotations

from django.http import HttpRequest

from compliance.dashboard import Panel, PanelLine
from compliance.readiness import facility_readiness_now
from compliance.roles import Role, is_inspector, roles_of
from compliance.staffing import selectors
from compliance.times import when

__all__ = ["staffing_panel"]

_WHO = frozenset({Role.SHIFT_MANAGER, Role.SURVEILLANCE, Role.FLOORPERSON, Role.COMPLIANCE_OFFICER})


def staffing_panel(request: HttpRequest) -> Panel | None:
    """Shown to the shift managers, surveillance, floorpersons, compliance and the Board inspector."""
    user = request.user
    facility = getattr(request, "facility", None)
    if facility is None or not (roles_of(user) & _WHO or is_inspector(user)):
        return None
    # What the open tables breach now, from the one readiness service (compliance.readiness), staffing's part;
    # the periods on record give when each began.
    since = {(p.table_id, p.rule): p.started_at for p in selectors.open_violations(facility)}
    lines = []
    for state in facility_readiness_now(facility).values():
        for unmet in (u for u in state.unmet if state.is_open and u.code.startswith(("staffing:", "cameras", "span:"))):
            began = since.get((state.table_id, unmet.code))
            lines.append(PanelLine(f"Table {state.number}{f' since {when(began, facility)}' if began else ''}: {unmet.words}",
                                   unmet.link, "alert"))
    return Panel("Staffing and surveillance", lines, empty_text="Every open table is staffed and watched as its "
                 "game requires.", tone="alert" if lines else "", citation="577.9", order=30)
