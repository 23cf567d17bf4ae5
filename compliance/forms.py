from __future__ import annotations

from datetime import date, timedelta
from typing import Any, cast

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q

from compliance.actors import SYSTEM_USERNAME
from compliance.bounds import EARLIEST_DAY, LATEST_DAY, require_filter_day
from compliance.gaming_day import gaming_day
from compliance.models import AuditEvent
from compliance.people import person_name
from compliance.quick_select import QuickSelect


class BoundedDateField(forms.DateField):
    """A date picked in a browser's date input, between the system's earliest and latest day (a typed year 0001 or
    9999 is refused in words, not stored)."""

    widget = forms.DateInput(attrs={"type": "date"})

    def clean(self, value: Any) -> Any:
        day = super().clean(value)
        if day is not None and not EARLIEST_DAY <= day <= LATEST_DAY:
            raise forms.ValidationError(f"Give a date between {EARLIEST_DAY:%Y} and {LATEST_DAY:%Y}.")
        return day

class SignatureForm(forms.Form):
    """Re-authentication for a signature: the signer types their own password again."""

    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text="Signing is your electronic signature. Enter your own password to confirm it is you.",
    )


class PersonChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return person_name(obj, credential=True)


class AuditFilterForm(forms.Form):
    date_from = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))
    actor = PersonChoiceField(queryset=get_user_model().objects.none(), required=False, label="User",
                              widget=QuickSelect)
    model = forms.ChoiceField(required=False, label="Record type", widget=QuickSelect)
    object_id = forms.CharField(required=False, label="Record number", max_length=40)
    action = forms.ChoiceField(required=False, choices=[("", "Any change"), *AuditEvent.Action.choices], label="Change",
                               widget=QuickSelect)

    def __init__(self, *args: Any, models: list[tuple[str, str]], facility: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        actor_field = cast(forms.ModelChoiceField, self.fields["actor"])
        # Only the people of the facility the viewer works in (and the system account): the filter does not
        # list another facility's staff and their credential numbers.
        actor_field.queryset = (
            get_user_model().objects.filter(Q(profile__facilities=facility) | Q(username=SYSTEM_USERNAME))
            .select_related("profile").distinct().order_by("username")
        )
        cast(forms.ChoiceField, self.fields["model"]).choices = [("", "Any record"), *models]

    def clean_date_from(self) -> Any:
        return require_filter_day(self.cleaned_data.get("date_from"), "the first day")

    def clean_date_to(self) -> Any:
        return require_filter_day(self.cleaned_data.get("date_to"), "the last day")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("date_from") and data.get("date_to") and data["date_from"] > data["date_to"]:
            raise forms.ValidationError("The “From” date is after the “To” date; swap them.")
        return data


class ReportPeriodForm(forms.Form):
    """The period of a report: gaming days on the facility's clock, at most :data:`MAX_REPORT_DAYS` of them.
    Every period report (equipment, staffing, ...) takes it."""

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
        if data.get("start") and data.get("end") and (data["end"] - data["start"]).days > MAX_REPORT_DAYS:
            raise forms.ValidationError(f"Choose a period of at most {MAX_REPORT_DAYS} days.")
        return data

    @staticmethod
    def default_period(facility: Any) -> tuple[date, date]:
        """The last 30 gaming days of the facility, today's included (its clock, its day start)."""
        today = gaming_day(facility)
        return today - timedelta(days=29), today


MAX_REPORT_DAYS = 400
