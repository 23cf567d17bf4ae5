"""Forms of the provider pages; each hands its cleaned data to one service."""

from __future__ import annotations

from typing import Any

from django import forms

from compliance.forms import BoundedDateField
from compliance.models import Facility, Game
from compliance.providers.models import Decision, ProviderOffering
from compliance.selectors import tables_of

__all__ = [
    "CertificationForm",
    "DecisionForm",
    "LabApprovalForm",
    "OfferingForm",
    "PermissionForm",
    "ProviderForm",
    "RenewalForm",
    "RescissionForm",
    "TableOfferingForm",
    "UseApprovalForm",
]


_Day = BoundedDateField


class ProviderForm(forms.Form):
    name = forms.CharField(max_length=200)
    board_file_number = forms.CharField(max_length=40, label="Board file number",
                                        help_text="The Board's file or certification number")
    contact = forms.CharField(max_length=300, required=False)


class OfferingForm(forms.Form):
    game = forms.ModelChoiceField(queryset=Game.objects.order_by("name"), required=False,
                                  help_text="The game it is or belongs to (leave empty for a wager or feature of "
                                            "any game)")
    name = forms.CharField(max_length=120, required=False, help_text="The wager or feature, e.g. a side bet")
    lab_approved_on = _Day(required=False, label="Approved by the Gaming Laboratory on",
                           help_text="§ 528.7(1); leave empty until it is")


class LabApprovalForm(forms.Form):
    approved_on = _Day(label="Approved by the Gaming Laboratory on")


class UseApprovalForm(forms.Form):
    approved_on = _Day(label="Board's written approval for use on", help_text="§ 528.7(3)")
    reference = forms.CharField(max_length=100, required=False)


class CertificationForm(forms.Form):
    approved_on = _Day(label="Board approval", help_text="Valid 4 years from this date (§ 528.4(a))")
    certificate_number = forms.CharField(max_length=40, required=False)


class RenewalForm(forms.Form):
    filed_on = _Day(label="Renewal application and fee filed on",
                    help_text="At least 60 days before the expiry keeps it in effect until decided (§ 528.4(b)–(c))")


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=Decision.choices)
    decided_on = _Day(label="Written notification sent on")


class PermissionForm(forms.Form):
    granted_on = _Day(label="Permission granted on", help_text="By the Bureau of Licensing (§ 528.8(a))")
    reference = forms.CharField(max_length=100, required=False)


class RescissionForm(forms.Form):
    rescinded_on = _Day(label="Notice of rescission dated")
    cease_by = _Day(label="Cease conducting business by", help_text="The date in the notice (§ 528.8(c))")


class TableOfferingForm(forms.Form):
    table: Any = forms.ModelChoiceField(queryset=None)
    offering = forms.ModelChoiceField(queryset=ProviderOffering.objects.select_related("provider", "game"))

    def __init__(self, *args: Any, facility: Facility, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["table"].queryset = tables_of(facility)  # type: ignore[attr-defined]
