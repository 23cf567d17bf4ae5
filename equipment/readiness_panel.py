"""The dashboard panel of the tables' readiness (``compliance.readiness``): every open table in breach, with what
it breaches and who can cure it, and how many closed tables are ready to open. The same answer the board, the
table page, Open and the redemption API give."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse

from compliance.dashboard import Panel, PanelLine
from compliance.readiness import facility_readiness_now
from compliance.roles import Capability, Role, has_capability, is_inspector, roles_of

__all__ = ["readiness_panel"]

_WHO = frozenset({Role.SHIFT_MANAGER, Role.FLOORPERSON, Role.SURVEILLANCE, Role.COMPLIANCE_OFFICER, Role.DEALER})


def readiness_panel(request: HttpRequest) -> Panel | None:
    user = request.user
    facility = getattr(request, "facility", None)
    if facility is None or not (roles_of(user) & _WHO or is_inspector(user)
                                or has_capability(user, Capability.RUN_REPORTS)):
        return None
    states = facility_readiness_now(facility)  # the board's answer of the last few seconds, shared
    lines = []
    for state in states.values():
        if state.in_breach:
            for unmet in state.unmet:
                lines.append(PanelLine(f"Table {state.number} open in breach: {unmet.short}"
                                       f"{f' (§ {unmet.clause})' if unmet.clause else ''} — {unmet.who}",
                                       reverse("equipment:table", args=[state.table_id]), "alert"))
    ready = sum(1 for s in states.values() if s.verdict == "ready")
    waiting = sum(1 for s in states.values() if s.verdict == "not-ready")
    opened = sum(1 for s in states.values() if s.is_open)
    if states:
        lines.append(PanelLine(f"{opened} open, {ready} closed and ready to open, {waiting} closed with requirements "
                               "unmet", reverse("equipment:board")))
    return Panel("Tables: may they be open and take wagers", lines[:25],
                 empty_text="No table is registered.", tone="alert" if any(ln.tone == "alert" for ln in lines) else "",
                 order=10)
