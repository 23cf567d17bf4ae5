"""Forms of the provider pages; each hands its cleaned data to one service."""

from __future__ import annotations

from typing import Any

from django import forms

from compliance.forms import BoundedDateField
from compliance.models import Facility, Game
from compliance.newgames.rules import MAX_PICTURE_BYTES
from compliance.providers import selectors
from compliance.providers.filing_kinds import FINDINGS, KINDS, QUALIFICATIONS, SUBJECT_ROLES
from compliance.providers.models import Decision, ProviderOffering
from compliance.selectors import tables_of

__all__ = [
    "CertificationForm",
    "DecisionForm",
    "FilingForm",
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
    filed_on = _Day(label="Renewal application and fee received by the Board on",
                    help_text="Due at least 60 days before the expiry (§ 528.4(b)); received on or before the expiry it "
                              "keeps the certification in effect until the Board decides (§ 528.4(c)), flagged if late")


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


def _blank(choices: tuple[tuple[str, str], ...] | list[tuple[str, str]], empty: str) -> list[tuple[str, str]]:
    return [("", empty), *choices]


class FilingForm(forms.Form):
    """What this certificate holder filed or did about a provider (§§ 528.2, 528.3, 528.7(2), 528.8(a), 528.9),
    with its document; a correction names the filing it replaces."""

    provider: Any = forms.ModelChoiceField(queryset=None)
    kind = forms.ChoiceField(label="What was filed or done", choices=[(k.code, k.label) for k in KINDS])
    filed_on = _Day(label="Date", help_text="The day it was submitted, paid, signed, found or reported (the facility's "
                                            "gaming day; not a day still to come)")
    reference = forms.CharField(max_length=100, required=False, help_text="The Board's, the Bureau's or your reference")
    subject_name = forms.CharField(max_length=200, required=False, label="Individual or entity",
                                   help_text="A qualification only (§ 528.3)")
    subject_role = forms.ChoiceField(required=False, label="Role",
                                     choices=_blank([(c, label) for c, label, _ in SUBJECT_ROLES], "— (a qualification only)"))
    qualification = forms.ChoiceField(required=False, label="Outcome",
                                      choices=_blank(QUALIFICATIONS, "— (a qualification only)"))
    finding = forms.ChoiceField(required=False, label="Conclusion",
                                choices=_blank(FINDINGS, "— (an investigation only, § 528.9)"))
    summary = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}), max_length=4000,
                              label="Findings, or the action reported",
                              help_text="An investigation's findings (§ 528.9(a)) or what was reported (§ 528.9(c))")
    notes = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), max_length=4000)
    document = forms.FileField(help_text=f"The document: a PDF, or a PNG or JPEG picture of it; at most 5 MB "
                                         f"({MAX_PICTURE_BYTES:,} bytes)",
                               widget=forms.ClearableFileInput(attrs={"accept": ".pdf,.png,.jpg,.jpeg"}))
    corrects: Any = forms.ModelChoiceField(queryset=None, required=False, label="Corrects filing",
                                           help_text="Only for a correction: the filing it replaces (same provider "
                                                     "and kind)")
    correction_reason = forms.CharField(max_length=300, required=False, label="Why it is corrected")

    def __init__(self, *args: Any, facility: Facility, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fields: Any = self.fields
        fields["provider"].queryset = selectors.providers()
        fields["corrects"].queryset = selectors.filings_to_correct(facility)
        fields["corrects"].label_from_instance = lambda filing: (
            f"#{filing.pk} {filing.provider.name}: {filing.what.cited}, {filing.filed_on:%-d %b %Y}")

    def clean_document(self) -> tuple[str, bytes]:
        """The file's name and bytes; one too big is refused here without reading it (the service checks its size
        and content again)."""
        upload = self.cleaned_data["document"]
        if upload.size > MAX_PICTURE_BYTES:
            raise forms.ValidationError(f"{upload.name} is {upload.size:,} bytes: a document is at most 5 MB "
                                        f"({MAX_PICTURE_BYTES:,} bytes). Nothing was saved.")
        return upload.name, upload.read()
