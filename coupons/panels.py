"""The coupon ledger's dashboard panel: what is late or must happen today (a fixed number of queries)."""

from __future__ import annotations

from datetime import date

from django.http import HttpRequest
from django.urls import reverse

from compliance.dashboard import Panel, PanelLine
from compliance.models import Facility
from compliance.roles import Capability, has_capability
from coupons import selectors
from coupons.days import today as gaming_today

_INTERESTED = (
    Capability.RECORD_COUPON_RECEIPT,
    Capability.REQUISITION_COUPONS,
    Capability.DISTRIBUTE_COUPONS,
    Capability.PROCESS_FINANCE_DAY,
    Capability.RESOLVE_COUPON_EXCEPTION,
    Capability.VIEW_AUDIT,
)


def _stock_lines(facility: Facility, today: date) -> list[PanelLine]:
    lines: list[PanelLine] = []
    expired = selectors.expired_held(facility, today)
    if expired:
        total = sum(r.quantity for r in expired)
        lines.append(PanelLine(f"{total:,} expired coupons still held by marketing: return them today",
                               reverse("coupons:today"), "alert"))
    inventory = selectors.inventory_status(facility, today)
    if inventory.overdue and inventory.missed_month:
        lines.append(PanelLine(f"Monthly inventory overdue: none recorded in {inventory.missed_month:%B %Y}",
                               reverse("coupons:inventory-create"), "alert"))
    elif inventory.due_soon:
        lines.append(PanelLine(f"Monthly inventory for {inventory.month:%B %Y} not yet taken",
                               reverse("coupons:inventory-create"), "warn"))
    return lines


def coupon_panel(request: HttpRequest) -> Panel | None:
    user = request.user
    facility = getattr(request, "facility", None)
    if facility is None or not any(has_capability(user, c) for c in _INTERESTED):
        return None
    today = gaming_today(facility)
    lines = _stock_lines(facility, today)
    for report in selectors.open_exception_reports(facility):
        overdue = report.due_on < today
        lines.append(PanelLine(
            f"Exception report for {report.gaming_date:%d %b} {'overdue since' if overdue else 'due'} "
            f"{report.due_on:%d %b}", reverse("coupons:reports"), "alert" if overdue else "warn"))
    deviations = selectors.open_deviation_count(facility)
    if deviations:
        lines.append(PanelLine(f"{deviations} open deviation report(s) on coupon shipments",
                               reverse("coupons:reports"), "warn"))
    unformed, unprocessed = selectors.days_without_documents(facility, today)
    for day in unformed:
        lines.append(PanelLine(f"No reconciliation form for {day:%a %d %b}",
                               reverse("coupons:reconciliation", args=[day.isoformat()]), "alert"))
    for day in unprocessed:
        lines.append(PanelLine(f"Finance has not processed {day:%a %d %b}",
                               f"{reverse('coupons:process')}?day={day.isoformat()}", "warn"))
    tone = "alert" if any(line.tone == "alert" for line in lines) else ("warn" if lines else "")
    return Panel(title="Match Play Coupons", lines=lines, empty_text="The coupon ledger is up to date.", tone=tone,
                 citation="525.21", order=20)


def dealer_panel(request: HttpRequest) -> Panel | None:
    """A dealer's work: the tables taking wagers now, each a link to its scanner screen (§ 525.22(b)); the tables
    that may not take wagers are named with why, as the table chooser shows them."""
    from compliance.readiness import facility_readiness_now
    from coupons.selectors import redemption as reads

    user = request.user
    facility = getattr(request, "facility", None)
    if facility is None or not has_capability(user, Capability.REDEEM_COUPONS):
        return None
    tables = list(reads.banking_tables(facility).filter(is_open=True).select_related("game").order_by("pit", "number"))
    states = facility_readiness_now(facility)  # the board's and the chooser's answer, shared for a few seconds
    tables = [t for t in tables if t.pk in states]
    lines = [PanelLine(f"Table {t.number} ({t.game.name}): scan coupons here" if states[t.pk].takes_wagers
                       else f"Table {t.number}: may not take wagers — {states[t.pk].sentence()}",
                       reverse("coupons:table-screen", args=[t.pk]) if states[t.pk].takes_wagers else "",
                       "" if states[t.pk].takes_wagers else "warn")
             for t in tables]
    return Panel(title="Redeem coupons at your table", lines=lines, order=5, citation="525.22",
                 empty_text="No banking table is open: coupons are redeemed once a table opens.")
