"""The period of the staffing and surveillance report: gaming days on the facility's clock."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django import forms

from compliance.bounds import require_filter_day
from compliance.gaming_day import gaming_day

__all__ = ["ReportPeriodForm"]

MAX_DAYS = 400


class ReportPeriodForm(forms.Form):
    start = forms.DateField(label="First gaming day", widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(label="Last gaming day", widget=forms.DateInput(attrs={"type": "date"}))

    def clean_start(self) -> Any:
        return require_filter_day(self.cleaned_data.get("start"), "the first day")

    def clean_end(self) -> Any:
        return require_filter_day(self.cleaned_data.get("end"), "the last day")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("start") and data.get("end") and data["start"] > data["end"]:
            raise forms.ValidationError("The period ends before it starts.")
        if data.get("start") and data.get("end") and (data["end"] - data["start"]).days > MAX_DAYS:
            raise forms.ValidationError(f"Choose a period of at most {MAX_DAYS} days.")
        return data

    @staticmethod
    def default_period(facility: Any) -> tuple[date, date]:
        """The last 30 gaming days of the facility, today's included (its clock, its day start)."""
        today = gaming_day(facility)
        return today - timedelta(days=29), today
