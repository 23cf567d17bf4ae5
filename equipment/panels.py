"""The dashboard panel: overdue equipment changes and changes due within 30 minutes."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone

from compliance.dashboard import Panel, PanelLine
from compliance.roles import Capability, has_capability, is_inspector
from equipment.selectors import due_in_play, format_duration, open_alerts


def equipment_panel(request: HttpRequest) -> Panel | None:
    """Shown to the floor (floorpersons, dealers, shift managers), report readers and inspectors."""
    user = request.user
    facility = getattr(request, "facility", None)
    if facility is None or not (
        has_capability(user, Capability.LOG_EQUIPMENT)
        or has_capability(user, Capability.RUN_REPORTS)
        or is_inspector(user)
    ):
        return None
    now = timezone.now()
    lines = []
    alerted: set[tuple[int | None, int | None]] = set()
    for alert in open_alerts(facility):
        alerted.add((alert.dice_set_id, alert.deck_set_id))
        what = "Dice" if alert.dice_set_id else "Cards"
        lines.append(
            PanelLine(
                f"{alert.table.number}: {what} change OVERDUE by {format_duration(now - alert.due_at)}",
                reverse("equipment:table", args=[alert.table_id]),
                "alert",
            )
        )
    for item in due_in_play(now, facility_id=facility.pk):
        what = "Dice" if item.kind == "dice" else "Cards"
        if item.overdue(now):
            if (item.pk if item.kind == "dice" else None, item.pk if item.kind == "deck" else None) in alerted:
                continue  # shown above with its alert
            # Overdue with no alert yet (the sweep has not run, or its beat stopped): red all the same,
            # so the panel never says all is well while a set is past its time.
            lines.append(
                PanelLine(
                    f"{item.table_number}: {what} change OVERDUE by {format_duration(now - item.due_at)} "
                    "(no alert raised yet)",
                    reverse("equipment:table", args=[item.table_id]),
                    "alert",
                )
            )
            continue
        lines.append(
            PanelLine(
                f"{item.table_number}: {what} due in {format_duration(item.due_at - now)}",
                reverse("equipment:table", args=[item.table_id]),
                "warn",
            )
        )
    tone = "alert" if any(line.tone == "alert" for line in lines) else "warn" if lines else ""
    return Panel(
        "Dice and deck changes",
        lines=lines,
        empty_text="Every open table's dice and cards are within their time.",
        tone=tone,
        citation="577.4(d)",
        order=20,
    )
