"""Forms of the Rules Submission pages; each hands its cleaned data to one service, which judges it against the
regulation (the forms only shape it)."""

from __future__ import annotations

from datetime import datetime, time
from decimal import Decimal
from typing import Any

from django import forms

from compliance.forms import BoundedDateField, SignatureForm
from compliance.gaming_day import facility_zone
from compliance.models import Facility, Game
from compliance.numbers import AmountField
from compliance.submissions import catalogue, requirements
from compliance.submissions.models import SIGN_LANGUAGES, Decision, SignKind, SignSize

__all__ = [
    "CancelForm",
    "DecisionForm",
    "DraftForm",
    "GameRulesForm",
    "GuideApprovalForm",
    "GuideForm",
    "LimitForm",
    "NothingForm",
    "RequirementsForm",
    "SignApprovalForm",
    "SignatureForm",
    "TableSettingForm",
]

_YES_NO = [(catalogue.YES, "Yes"), (catalogue.NO, "No")]


_Day = BoundedDateField


class NothingForm(forms.Form):
    """A form that is only its button."""


class DraftForm(forms.Form):
    title = forms.CharField(max_length=200, help_text="e.g. 'Amendment: Sic Bo odds'")
    summary = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 3}),
                              help_text="What it changes and why")


class GameRulesForm(forms.Form):
    """One game's choices, a field per option of the catalogue, each labelled with its clause."""

    def __init__(self, *args: Any, rules: catalogue.GameRules, notes: dict[str, dict[str, str]] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rules = rules
        notes = notes or {}
        for option in rules.options:
            label = f"{option.label} (§ {option.clause})"
            beside = notes.get(option.name, {})  # the house advantage each choice gives, shown on the choice

            def worded(value: str, words: str, beside: dict[str, str] = beside) -> tuple[str, str]:
                return (value, f"{words} — {beside[value]}" if value in beside else words)

            field: forms.Field
            if option.kind == "flag":
                field = forms.ChoiceField(choices=[worded(v, w) for v, w in _YES_NO], widget=forms.RadioSelect,
                                          label=label)
            elif option.kind == "choice":
                field = forms.ChoiceField(choices=[worded(c, c) for c in option.choices], widget=forms.RadioSelect,
                                          label=label)
            elif option.kind == "text":
                field = forms.CharField(max_length=2000, label=label, widget=forms.Textarea(attrs={"rows": 3}))
            else:
                field = forms.CharField(max_length=40, label=label, required=option.kind != "money"
                                        or option.required)
            field.help_text = option.help
            self.fields[option.name] = field

    def values(self) -> dict[str, str]:
        return {name: str(value or "") for name, value in self.cleaned_data.items()}


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=Decision.choices, widget=forms.RadioSelect)
    decided_on = _Day(label="Date of the Board's decision")
    effective_on = _Day(required=False, label="Approved rules take effect on the gaming day",
                        help_text="For an approval only")
    reference = forms.CharField(max_length=200, required=False, help_text="The Board's letter or file reference")
    reason = forms.CharField(max_length=5000, required=False, widget=forms.Textarea(attrs={"rows": 3}),
                             help_text="The Board's reasons, for a rejection")


class TableSettingForm(forms.Form):
    def __init__(self, *args: Any, rules: catalogue.GameRules, current: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for option in rules.options:
            if option.permission:
                self.fields[option.name] = forms.ChoiceField(
                    choices=_YES_NO, widget=forms.RadioSelect, label=f"{option.label} (§ {option.clause})",
                    initial=current.get(option.name, catalogue.NO), help_text=option.help)

    def values(self) -> dict[str, str]:
        return dict(self.cleaned_data)


class LimitForm(forms.Form):
    minimum = AmountField(max_digits=12, decimal_places=2, min_value=0, label="New minimum wager ($)")
    maximum = AmountField(max_digits=12, decimal_places=2, min_value=0, label="New maximum wager ($)")
    patrons_playing = forms.TypedChoiceField(
        coerce=lambda v: v == "yes", widget=forms.RadioSelect, label="Patrons at the table",
        choices=[("yes", "Patrons are playing: schedule it with 30 minutes' notice, a sign and an announcement"),
                 ("no", "No patrons are playing: I attest it, and it takes effect at once (§ 521.8(c)(1))")])
    effective_day = _Day(required=False, label="Takes effect on", help_text="With patrons playing")
    effective_time = forms.TimeField(required=False, label="At (facility's clock)",
                                     widget=forms.TimeInput(attrs={"type": "time"}),
                                     help_text="At least 30 minutes from now (§ 521.8(c)(2)(i))")

    def __init__(self, *args: Any, facility: Facility, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.facility = facility

    def effective_at(self) -> datetime | None:
        day, at = self.cleaned_data.get("effective_day"), self.cleaned_data.get("effective_time")
        if day is None and at is None:
            return None
        if day is None or at is None:
            raise forms.ValidationError("Give both the day and the time the new limits take effect.")
        return datetime.combine(day, time(at.hour, at.minute), tzinfo=facility_zone(self.facility))


class CancelForm(forms.Form):
    reason = forms.CharField(max_length=300, help_text="Why the change will not happen")


class GuideForm(forms.Form):
    game = forms.ModelChoiceField(queryset=Game.objects.filter(code__in=[g.code for g in catalogue.GAMES]))


class GuideApprovalForm(forms.Form):
    approved_on = _Day(label="Approved by the Bureau of Gaming Operations on")
    reference = forms.CharField(max_length=200, required=False)


class RequirementsForm(forms.Form):
    """A game's additional wagering requirements (§ 521.7(d)): a row each, in the words patrons read, with the
    increment in dollars where the requirement is that wagers be made in multiples of an amount."""

    def __init__(self, *args: Any, current: list[dict[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for number in range(1, requirements.MAX_REQUIREMENTS + 1):
            row = current[number - 1] if number <= len(current) else {}
            self.fields[f"words_{number}"] = forms.CharField(
                max_length=requirements.MAX_WORDS, required=False, label=f"Requirement {number}",
                initial=row.get("words", ""),
                help_text="e.g. 'Wagers are made in increments of $5.' Leave empty for none." if number == 1 else "")
            self.fields[f"increment_{number}"] = AmountField(
                max_digits=12, decimal_places=2, min_value=Decimal("0.01"), max_value=requirements.MAX_INCREMENT,
                required=False, label=f"Requirement {number}: increment ($)", initial=row.get("increment", ""),
                help_text="Only for wagers in multiples of an amount: the table's limits must be multiples of it."
                if number == 1 else "")

    def rows(self) -> list[dict[str, str]]:
        return [{"words": self.cleaned_data.get(f"words_{n}") or "",
                 "increment": str(self.cleaned_data.get(f"increment_{n}") or "")}
                for n in range(1, requirements.MAX_REQUIREMENTS + 1)]


class SignApprovalForm(forms.Form):
    kind = forms.ChoiceField(choices=SignKind.choices, widget=forms.RadioSelect, label="Sign")
    location = forms.CharField(max_length=300, label="Location at the table",
                               help_text="As the Bureau approved it, e.g. 'On the sign stand at the dealer's left'")
    size = forms.ChoiceField(choices=SignSize.choices, widget=forms.RadioSelect,
                             help_text="The sign prints at this size")
    language = forms.ChoiceField(choices=[(name, name) for name in SIGN_LANGUAGES],
                                 help_text="The system prints its signs in English")
    approved_on = _Day(label="Approved by the Bureau of Gaming Operations on")
    reference = forms.CharField(max_length=200, help_text="The Bureau's letter or file reference")
