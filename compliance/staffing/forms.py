"""Forms of the staffing and surveillance pages; each hands its cleaned data to one service."""

from __future__ import annotations

from typing import Any

from django import forms

from compliance.bounds import EARLIEST_DAY, LATEST_DAY
from compliance.models import Facility
from compliance.roles import Role
from compliance.selectors import people_holding, tables_of
from compliance.staffing.models import Camera, Position, Shift, TableEnd

__all__ = [
    "AssignmentEndForm",
    "AssignmentForm",
    "CameraForm",
    "CameraOutForm",
    "CoverageForm",
    "OverrideForm",
    "RosterForm",
    "ShiftForm",
]


class ShiftForm(forms.Form):
    name = forms.CharField(max_length=40, help_text="As the pit calls it: Day, Swing, Grave")
    starts_at = forms.TimeField(label="Starts at", help_text="24-hour clock, e.g. 14:00")
    hours = forms.IntegerField(min_value=1, max_value=24, initial=8)


class RosterForm(forms.Form):
    gaming_date = forms.DateField(label="Gaming day", widget=forms.DateInput(attrs={"type": "date"}))
    shift = forms.ModelChoiceField(queryset=Shift.objects.none())
    copy_previous = forms.BooleanField(required=False, initial=True, label="Start from the previous shift's roster")

    def __init__(self, *args: Any, facility: Facility, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["shift"].queryset = Shift.objects.filter(facility=facility).order_by("starts_at")  # type: ignore[attr-defined]

    def clean_gaming_date(self) -> Any:
        day = self.cleaned_data["gaming_date"]
        if not EARLIEST_DAY <= day <= LATEST_DAY:
            raise forms.ValidationError(f"Give a gaming day between {EARLIEST_DAY:%Y} and {LATEST_DAY:%Y}.")
        return day


class _PersonChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        profile = getattr(obj, "profile", None)
        return getattr(profile, "full_name", "") or obj.get_username()


class AssignmentForm(forms.Form):
    person: Any = _PersonChoice(queryset=None)
    position = forms.ChoiceField(choices=Position.choices)
    table: Any = forms.ModelChoiceField(queryset=None)
    note = forms.CharField(max_length=200, required=False, help_text="Relief, back from break, ...")

    def __init__(self, *args: Any, facility: Facility, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["person"].queryset = people_holding(  # type: ignore[attr-defined]
            facility, [Role.DEALER, Role.FLOORPERSON, Role.SHIFT_MANAGER])
        self.fields["table"].queryset = tables_of(facility).select_related("game")  # type: ignore[attr-defined]


class AssignmentEndForm(forms.Form):
    note = forms.CharField(max_length=100, required=False, help_text="Break, relieved, moved, end of shift")


class CameraForm(forms.Form):
    code = forms.CharField(max_length=30, help_text="As the surveillance room names it, e.g. C-114")
    stationary = forms.BooleanField(required=False, initial=True, help_text="A fixed camera, not pan-tilt-zoom")
    location = forms.CharField(max_length=120, required=False)


class CoverageForm(forms.Form):
    camera = forms.ModelChoiceField(queryset=Camera.objects.none())
    table: Any = forms.ModelChoiceField(queryset=None)
    end = forms.ChoiceField(choices=TableEnd.choices)
    covers = forms.BooleanField(required=False, initial=True, label="Covers it (untick to record it no longer does)")

    def __init__(self, *args: Any, facility: Facility, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["camera"].queryset = Camera.objects.filter(facility=facility)  # type: ignore[attr-defined]
        self.fields["table"].queryset = tables_of(facility).select_related("game")  # type: ignore[attr-defined]


class CameraOutForm(forms.Form):
    reason = forms.CharField(max_length=200, help_text="What is wrong: lens fogged, no signal, moved")


class OverrideForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=1000,
                             help_text="Why the table opens although it breaks the rules listed above")
    password = forms.CharField(widget=forms.PasswordInput, help_text="Your password signs the override")
