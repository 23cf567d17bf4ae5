"""The dashboard panel of the provider register: renewals due (§ 528.4(b)), renewals received late and still
pending (in effect, flagged, § 528.4(b)–(c)) and provider games or wagers at the tables that may not be used today
(§ 528.7), for compliance officers and the Board inspector."""

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
        words = (f"{term.provider.name}: renewal late (was due by {due.renew_by:%-d %b %Y}, § 528.4(b)); file it "
                 f"before the expiry on {term.expires_on:%-d %b %Y} or the certification lapses" if late else
                 f"{term.provider.name}: file the renewal by {due.renew_by:%-d %b %Y} (expires {term.expires_on:%-d %b %Y})")
        lines.append(PanelLine(words, reverse("providers:detail", args=[term.provider_id]), "alert" if late else "warn"))
    for late_renewal in selectors.late_renewals(facility, today):
        term = late_renewal.certification
        lines.append(PanelLine(f"{term.provider.name}: {late_renewal.flag}",
                               reverse("providers:detail", args=[term.provider_id]), "warn"))
    for use in selectors.facility_table_uses(facility, today):
        if use.refusal:
            lines.append(PanelLine(f"Table {use.table_offering.table.number}: {use.refusal}", reverse("providers:tables"),
                                   "alert"))
    return Panel("Gaming service providers", lines[:20], empty_text="No renewal due; every provider game or wager at "
                 "a table may be used today.", tone="alert" if lines else "", citation="528.7", order=45)
