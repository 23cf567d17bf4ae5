"""Dashboard panels: each app registers functions that return a panel for the signed-in user.

A panel function takes the request and returns ``None`` (nothing to show this user) or a
:class:`Panel`. Apps register theirs in ``AppConfig.ready`` so the dashboard never imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.http import HttpRequest

__all__ = ["PANELS", "Panel", "PanelLine", "panels_for", "register_panel"]


@dataclass
class PanelLine:
    text: str
    url: str = ""
    tone: str = ""  # "", "warn" or "alert"


@dataclass
class Panel:
    title: str
    lines: list[PanelLine] = field(default_factory=list)
    empty_text: str = "Nothing to do."
    tone: str = ""
    citation: str = ""
    order: int = 50


PanelFunction = Callable[[HttpRequest], Panel | None]
PANELS: list[PanelFunction] = []


def register_panel(function: PanelFunction) -> PanelFunction:
    if function not in PANELS:
        PANELS.append(function)
    return function


def panels_for(request: HttpRequest) -> list[Panel]:
    """The user's panels, in order; a line whose page the user cannot open keeps its words but loses
    its link (the panel functions need not know who may open what)."""
    from compliance.navigation import may_request

    panels = [p for p in (function(request) for function in PANELS) if p is not None]
    for panel in panels:
        for line in panel.lines:
            if line.url and not may_request(request.user, line.url):
                line.url = ""
    return sorted(panels, key=lambda p: p.order)
