"""A ``<select>`` rendered in Python (issue 27: the audit trail's filter lists every record type and every person,
and Django renders each ``<option>`` through a template of its own — most of that page's time).

The options, their ``selected`` marks and their groups are Django's own (:meth:`forms.Select.get_context`); only the
markup is written here, the same as Django's templates write it, every value escaped."""

from __future__ import annotations

from typing import Any

from django import forms
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

__all__ = ["QuickSelect"]


class QuickSelect(forms.Select):
    def render(self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None) -> SafeString:
        widget = self.get_context(name, value, attrs)["widget"]
        parts = []
        for group, options, _index in widget["optgroups"]:
            rendered = format_html_join("", '<option value="{}"{}>{}</option>',
                                        ((str(o["value"]), flatatt(o["attrs"]), o["label"]) for o in options))
            parts.append(format_html('<optgroup label="{}">{}</optgroup>', group, rendered) if group else rendered)
        return format_html('<select name="{}"{}>{}</select>', widget["name"], flatatt(widget["attrs"]),
                           mark_safe("".join(parts)))  # noqa: S308 (each part escaped by format_html above)
