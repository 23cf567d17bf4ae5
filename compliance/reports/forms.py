"""Forms of the reports: the period to show or produce, and the filing of a version with the Bureau."""

from __future__ import annotations

from typing import Any

from django import forms

from compliance.bounds import require_filter_day
from compliance.forms import ReportPeriodForm
from compliance.reports.models import ReportFiling

__all__ = ["FilingForm", "ReportPeriodForm"]


class FilingForm(forms.Form):
    filed_on = forms.DateField(label="Date sent to the Bureau", widget=forms.DateInput(attrs={"type": "date"}))
    method = forms.ChoiceField(label="How it was sent", choices=ReportFiling.Method.choices)
    reference = forms.CharField(label="Confirmation or tracking number", max_length=200, required=False)
    notes = forms.CharField(label="Notes", max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def clean_filed_on(self) -> Any:
        return require_filter_day(self.cleaned_data.get("filed_on"), "the filing date")
