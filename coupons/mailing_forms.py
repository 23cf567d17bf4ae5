"""Forms of mailed coupons, § 525.21(q)."""

from __future__ import annotations

from typing import Any

from django import forms

from coupons.mailing_csv import MAX_BYTES
from coupons.models import CouponSeries, MailingProvider

__all__ = ["CampaignForm", "MailingProviderForm", "ReleaseForm"]


class MailingProviderForm(forms.Form):
    name = forms.CharField(max_length=150)
    certificate_number = forms.CharField(max_length=60, label="Board certification or registration number")
    contact = forms.CharField(max_length=200, required=False, help_text="Who receives the lists, and how")

    def __init__(self, *args: Any, facility: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=150, help_text="The promotion, e.g. “Winter players' mailer”")
    provider = forms.ModelChoiceField(queryset=MailingProvider.objects.none(), label="Mailing provider")
    series = forms.ModelChoiceField(queryset=CouponSeries.objects.none(), label="Coupon series mailed")
    patron_file = forms.FileField(label="Patron list (CSV)")

    def __init__(self, *args: Any, facility: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["series"].queryset = CouponSeries.objects.filter(facility=facility)  # type: ignore[attr-defined]

    def clean_patron_file(self) -> bytes:
        upload = self.cleaned_data["patron_file"]
        if upload.size > MAX_BYTES:
            raise forms.ValidationError(f"The file is larger than {MAX_BYTES // 1024 // 1024} MB; split the mailing.")
        return bytes(upload.read())


class ReleaseForm(forms.Form):
    password = forms.CharField(label="Your password (marketing supervisor releasing the list)", strip=False,
                               error_messages={"required": "Enter your password to sign the release."},
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}))
