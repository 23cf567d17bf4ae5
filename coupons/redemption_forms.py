"""Forms of redemption at the table, the table scanners and the drop-box count, in the dealer's words."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from django import forms

from compliance.bounds import require_filter_day
from compliance.models import GamingTable
from compliance.numbers import AmountField
from coupons.models import Position
from coupons.models.redemption import CHIPS
from coupons.services.drop_count import MAX_SCANS

__all__ = ["DropCountForm", "ScannerForm", "ScannerRevokeForm", "TableScanForm"]


class TableScanForm(forms.Form):
    """What a keyboard-wedge scanner and the dealer give: the serial (scanned, then Enter), the position
    and the chips wagered with the coupon.

    The dealer's flow (``static/coupons/table_screen.js``): the position and the chips are the table's usual
    wager, shown first and kept from coupon to coupon; the serial field keeps the focus so each scan's Enter
    redeems at once. A scan with no chips entered yet is held (the serial kept) and the focus goes to the
    chips — by the script, or here when the page comes back without it."""

    field_order = ["position", "chips", "serial", "wager"]
    CHIPS_MISSING = "Enter the chips wagered with this coupon, then press Enter: the serial scanned is kept."

    serial = forms.CharField(
        max_length=40, label="Coupon serial",
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off", "inputmode": "text",
                                      "class": "scan", "placeholder": "Scan the coupon's barcode"}),
    )
    position = forms.ChoiceField(label="Where the coupon lies (§ 525.22(c))")
    chips = AmountField(
        label="Chips wagered with it, $ (§ 525.22(b))", max_digits=12, decimal_places=2,
        min_value=Decimal("0.01"), max_value=Decimal(CHIPS.maximum) / 100,
        widget=forms.NumberInput(attrs={"step": "0.01", "inputmode": "decimal"}),
        help_text="Kept for the next coupon: change it only when the wager changes.",
        error_messages={"required": CHIPS_MISSING},
    )
    wager = forms.CharField(max_length=40, required=False, label="Wager reference (optional)",
                            help_text="Round and seat, e.g. R12-S3: a wager carries one coupon (§ 525.22(d)).")

    def __init__(self, *args: Any, table: GamingTable, positions: frozenset[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(value, label) for value, label in Position.choices if value in positions]
        self.fields["position"].choices = choices  # type: ignore[attr-defined]
        if len(positions) == 1:
            self.fields["position"].initial = next(iter(positions))
        if self.is_bound and (self.data.get("serial") or "").strip() and not (self.data.get("chips") or "").strip():
            # Scanned before the chips were entered: the serial stays, the dealer types the chips next.
            self.fields["serial"].widget.attrs.pop("autofocus", None)
            self.fields["chips"].widget.attrs["autofocus"] = True

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("chips") is not None:
            data["chips_cents"] = int(data["chips"] * 100)
        data["wager"] = (data.get("wager") or "").strip()
        return data


class ScannerForm(forms.Form):
    table = forms.ModelChoiceField(queryset=GamingTable.objects.none(), label="Table")
    name = forms.CharField(max_length=80, label="Name on the device's label", help_text="e.g. “TDF-2 scanner”")

    def __init__(self, *args: Any, facility: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["table"].queryset = GamingTable.objects.filter(facility=facility).select_related("game")  # type: ignore[attr-defined]


class ScannerRevokeForm(forms.Form):
    """A scanner's Revoke button on the scanners page: which scanner and why (the service refuses a reason
    missing or too long, in words)."""

    revoke = forms.CharField(required=False)
    reason = forms.CharField(required=False, strip=False)


class DropCountForm(forms.Form):
    table = forms.ModelChoiceField(queryset=GamingTable.objects.none(), label="Table of the drop box")
    gaming_date = forms.DateField(label="Gaming day of the drop", widget=forms.DateInput(attrs={"type": "date"}))
    scanned = forms.CharField(
        label="Coupons in the drop box", widget=forms.Textarea(attrs={"rows": 10, "class": "scan"}),
        help_text="Scan each coupon; one serial per line. Leave empty for a box with no coupons.", required=False,
        max_length=MAX_SCANS * 42,
    )

    def __init__(self, *args: Any, facility: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["table"].queryset = GamingTable.objects.filter(facility=facility).select_related("game")  # type: ignore[attr-defined]

    def clean_gaming_date(self) -> date | None:
        return require_filter_day(self.cleaned_data.get("gaming_date"), "the gaming day of the drop")

    def clean_scanned(self) -> list[str]:
        lines = [line.strip() for line in (self.cleaned_data.get("scanned") or "").splitlines()]
        return [line for line in lines if line]
