"""The dashboard panel of the Rules Submission: the version in force, versions awaiting the Board, tables whose
settings the submission in force does not grant (§ 521.8(b)), signs the Bureau has not approved (§ 521.8(d)), guides
that need the Bureau's approval again (§ 521.9(d)) and wager limit changes still waiting for their sign or
announcement (§ 521.8(c)(2))."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse

from compliance.dashboard import Panel, PanelLine
from compliance.models import Facility
from compliance.navigation import may_request
from compliance.readiness import facility_readiness_now
from compliance.roles import Role, is_inspector, roles_of
from compliance.submissions import selectors
from compliance.submissions.models import SignKind
from compliance.times import when

__all__ = ["submissions_panel"]

_SEES = frozenset({Role.COMPLIANCE_OFFICER, Role.SHIFT_MANAGER, Role.FLOORPERSON})


def submissions_panel(request: HttpRequest) -> Panel | None:
    user = request.user
    facility = getattr(request, "facility", None)
    if facility is None or not (_SEES & set(roles_of(user)) or is_inspector(user)):
        return None
    # The floor's work is its tables and their limit changes; the versions, the signs' and the guides' approvals are
    # compliance's (a floorperson's dashboard lists only what they do).
    files_rules = Role.COMPLIANCE_OFFICER in roles_of(user) or is_inspector(user)
    lines = []
    current = selectors.in_force(facility)
    if current is None:
        lines.append(PanelLine("No Rules Submission is in force: record the Board's approval.",
                               reverse("submissions:list"), "alert"))
    else:
        lines.append(PanelLine(f"In force: {current}", current.get_absolute_url(), ""))
    for sub in selectors.submissions_of(facility).filter(decision__isnull=True)[:5] if files_rules else ():
        state = "awaiting the Board" if sub.is_signed() else "draft"
        lines.append(PanelLine(f"Version {sub.number} ({state}): {sub.title}", sub.get_absolute_url(), "warn"))
    lines += _conflict_lines(request, facility)
    approved_signs = selectors.signs_in_force(facility) if files_rules else set(SignKind.values)
    for kind, label in SignKind.choices:
        if kind not in approved_signs:
            lines.append(PanelLine(f"Sign not approved by the Bureau (§ 521.8(d)), prints only as a preview: {label}",
                                   reverse("submissions:signs"), "warn"))
    guides = selectors.guide_rows(facility, current) if files_rules else []  # the version in force read once
    for game, words in selectors.guides_needing_approval(facility, guides):
        lines.append(PanelLine(f"{game.name} guide: {words}", reverse("submissions:guides"), "warn"))
    for change in selectors.changes_of(facility).filter(state="scheduled")[:10]:
        missing = [w for w, done in (("post the sign", change.posted_at), ("announce it", change.announced_at))
                   if done is None]
        words = f"Table {change.table.number}: limits change at {when(change.effective_at, facility)}"
        lines.append(PanelLine(words + (f" — {', then '.join(missing)}" if missing else ""),
                               reverse("submissions:limit-change", args=[change.pk]), "warn" if missing else ""))
    tone = "alert" if any(line.tone == "alert" for line in lines) else ""
    return Panel("Rules Submission", lines[:20], empty_text="", tone=tone, citation="521.8(b)", order=44)


def _conflict_lines(request: HttpRequest, facility: Facility) -> list[PanelLine]:
    """A line for each table set to run what the rules in force do not grant, or whose limits they do not allow
    (§ 521.8(b), § 575.12(c), § 521.7(d)): the table readiness service's verdicts (``compliance.readiness``), the
    answer the board, Open and the scans obey — not a second reading of the rules. The verdicts are shared for a few
    seconds and computed again at once after any write to a setting, a limit or a version (issue 27: the panel read
    every table's rules again on each view, some 600 rows for 200 tables, the slowest part of the floor's
    dashboard). Each line names the way out; its link is the page where the person who can fix it does, or the
    tables' page for a reader who cannot open that one."""
    tables = reverse("submissions:tables")
    lines = []
    for state in facility_readiness_now(facility).values():
        conflict = next((u for u in state.unmet if u.code == "submission:settings"), None)
        if conflict is not None:
            link = conflict.link if may_request(request.user, conflict.link) else tables
            lines.append(PanelLine(conflict.words, link, "alert"))
    return lines
