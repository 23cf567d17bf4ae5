"""Forms of exclusion-list screening: what the compliance officer types. The services hold the rules."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from compliance.bounds import EARLIEST_DAY, LATEST_DAY, require_day_between
from compliance.exclusion.csv_format import COLUMNS, MAX_FILE_BYTES, REQUIRED_COLUMNS
from compliance.exclusion.models import Decision, ListKind
from compliance.exclusion.services.decisions import MAX_REASON

__all__ = ["DecisionForm", "ImportForm"]


def _password() -> forms.CharField:
    return forms.CharField(
        label="Your password", strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text="Entering your password is your electronic signature on this record.",
    )


class ImportForm(forms.Form):
    kind = forms.ChoiceField(choices=ListKind.choices, label="List")
    board_list_date = forms.DateField(
        label="Date of the Board's list", widget=forms.DateInput(attrs={"type": "date"}),
        help_text="The date the Board's list is as of; the copy is current for 2 business days after it "
                  "(§ 503a.3(d)).",
    )
    file = forms.FileField(
        label="CSV file",
        help_text=f"UTF-8 CSV with a header row. Required columns: {', '.join(REQUIRED_COLUMNS)}; optional: "
                  f"{', '.join(c for c in COLUMNS if c not in REQUIRED_COLUMNS)}. Aliases separated by ';', dates "
                  f"of birth YYYY-MM-DD. A file with any malformed line is refused whole.",
    )
    password = _password()

    def clean_board_list_date(self) -> date:
        value: date = self.cleaned_data["board_list_date"]
        try:
            return require_day_between(value, EARLIEST_DAY, LATEST_DAY, "the date of the Board's list")
        except ValidationError as error:
            raise forms.ValidationError(error.messages) from None

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_FILE_BYTES:
            raise forms.ValidationError(f"The file is {upload.size:,} bytes; a list file is at most "
                                        f"{MAX_FILE_BYTES:,} bytes.")
        return upload


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=Decision.choices, widget=forms.RadioSelect, label="Is the patron the listed "
                                 "person?")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=MAX_REASON,
                             help_text="What showed it: the date of birth, the address, an identification, …")
    password = _password()
