"""Forms of the staffing and surveillance pages; each hands its cleaned data to one service."""

from __future__ import annotations

from typing import Any

from django import forms

from compliance.bounds import EARLIEST_DAY, LATEST_DAY
from compliance.models import Facility
from compliance.numbers import WholeNumberField
from compliance.people import person_name
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
    "PitForm",
    "RosterForm",
    "ShiftForm",
    "pit_slots",
]


class ShiftForm(forms.Form):
    name = forms.CharField(max_length=40, help_text="As the pit calls it: Day, Swing, Grave")
    starts_at = forms.TimeField(label="Starts at", help_text="24-hour clock, e.g. 14:00")
    hours = WholeNumberField(min_value=1, max_value=24, initial=8)


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
        return person_name(obj)


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
    note = forms.CharField(max_length=100, required=False, help_text="Break, relieved, moved, end of shift",
                           error_messages={"max_length": "A note on ending a placement is at most 100 characters."})


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


def pit_slots(game_code: str, staffing: Any, current: list[str]) -> list[str]:
    """The places a table's row offers on the whole-pit form: the stickpersons and dealers its game's rules ask
    for (one dealer where no rule says), a floorperson, and one more for every place already taken beyond them,
    so nothing placed goes unseen (and so unended)."""
    rules = [r for r in staffing if r.game_code == game_code]
    sticks = max((r.minimum for r in rules if r.positions == frozenset({"stickperson"})), default=0)
    dealers = max((r.minimum for r in rules if "dealer" in r.positions), default=1) - sticks
    slots = ["stickperson"] * sticks + ["dealer"] * max(dealers, 0) + ["floorperson"]
    for position in current:
        if current.count(position) > slots.count(position):
            slots.append(position)
    return slots


class PitForm(forms.Form):
    """The whole pit on one form: for each table, a person (or no one) in each of its places."""

    def __init__(self, *args: Any, facility: Facility, tables: Any, current: dict[int, list[Any]], staffing: Any,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        dealers = people_holding(facility, [Role.DEALER])
        floor = people_holding(facility, [Role.FLOORPERSON, Role.SHIFT_MANAGER])
        self.rows: list[tuple[Any, list[str]]] = []
        for table in tables:
            taken = current.get(table.pk, [])
            slots = pit_slots(table.game.code, staffing, [a.position for a in taken])
            names = []
            remaining = list(taken)
            for index, position in enumerate(slots):
                name = f"t{table.pk}-{position}-{index}"
                holder = next((a for a in remaining if a.position == position), None)
                if holder is not None:
                    remaining.remove(holder)
                self.fields[name] = _PersonChoice(queryset=floor if position == Position.FLOORPERSON else dealers,
                                                  required=False, label=f"{table.number} {Position(position).label}",
                                                  initial=holder.person_id if holder else None)
                names.append(name)
            self.rows.append((table, names))

    @property
    def pit_rows(self) -> list[tuple[Any, list[Any]]]:
        """(table, its bound fields) for the template."""
        return [(table, [self[name] for name in names]) for table, names in self.rows]

    def wanted(self) -> dict[Any, list[tuple[str, Any]]]:
        found: dict[Any, list[tuple[str, Any]]] = {}
        for table, names in self.rows:
            found[table] = [(name.split("-")[1], self.cleaned_data.get(name)) for name in names]
        return found

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for table, names in self.rows:
            people: list[Any] = [cleaned[n] for n in names
                                 if n.split("-")[1] != Position.FLOORPERSON and cleaned.get(n) is not None]
            if len({p.pk for p in people}) < len(people):
                raise forms.ValidationError(f"Table {table.number}: the same person is in two places.")
        return cleaned
