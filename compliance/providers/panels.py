"""The dashboard panel of the provider register: renewals due (§ 528.4(b)) and provider games or wagers at the
tables that may not be used today (§ 528.7), for compliance officers and the Board inspector."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse

from compliance.dashboard import Panel, PanelLine
from compliance.gaming_day import gaming_day
from compliance.providers import selectors
from compliance.roles import Role, is_inspector, roles_of

__all__ = ["providers_panel"]


def providers_panel(request: HttpRequest) -> Panel | None:
    user = request.user
    facility = getattr(request, "facility", None)
    if facility is None or not (Role.COMPLIANCE_OFFICER in roles_of(user) or is_inspector(user)):
        return None
    today = gaming_day(facility)
    lines = []
    for due in selectors.renewals_due(facility, today):
        term = due.certification
        late = due.stage == "late"
        words = (f"{term.provider.name}: renewal late (was due by {due.renew_by:%-d %b %Y}); expires "
                 f"{term.expires_on:%-d %b %Y}" if late else
                 f"{term.provider.name}: file the renewal by {due.renew_by:%-d %b %Y} (expires {term.expires_on:%-d %b %Y})")
        lines.append(PanelLine(words, reverse("providers:detail", args=[term.provider_id]), "alert" if late else "warn"))
    for row in selectors.table_offerings_of(facility):
        refusal = selectors.offering_refusal(row.offering, today, facility=facility)
        if refusal:
            lines.append(PanelLine(f"Table {row.table.number}: {refusal}", reverse("providers:tables"), "alert"))
    return Panel("Gaming service providers", lines[:20], empty_text="No renewal due; every provider game or wager at "
                 "a table may be used today.", tone="alert" if lines else "", citation="528.7", order=45)
