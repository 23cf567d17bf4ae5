"""Forms of the coupon ledger: what the clerk types, in the clerk's words. Services do the rules."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib.auth import get_user_model

from compliance.bounds import MAX_COUNT, MAX_SERIAL, require_filter_day
from compliance.gaming_day import gaming_day
from compliance.models import Game
from compliance.numbers import WholeNumberField, read_amount
from compliance.people import person_name
from compliance.roles import Role
from compliance.selectors import people_holding
from coupons.models import (
    CouponProgram,
    CouponSeries,
    Position,
    ProgramApproval,
    ReconciliationForm,
    StorageLocation,
    format_cents,
)
from coupons.services import invoice_serials_reversed
from coupons.variances import COUNTED_STATES

DATE = forms.DateInput(attrs={"type": "date"})
SERIALS_HELP = "Serial numbers or ranges, e.g. 100001-100500, 100601. Printed serials and scans (one per line) work too."


def password_field(label: str = "Your password") -> forms.CharField:
    return forms.CharField(
        label=label, strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text="Entering your password is your electronic signature on this record.",
    )


def people_in(facility: Any, roles: list[str] | None = None, department: str | None = None) -> Any:
    return people_holding(facility, [Role(r) for r in roles or ()], department=department)


class PersonChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return person_name(obj, credential=True)


def dollars_to_cents(value: Any) -> int:
    amount = read_amount(value)
    cents = amount * 100
    if cents != cents.to_integral_value() or cents <= 0:
        raise forms.ValidationError("Enter a whole number of cents above $0, e.g. 25 or 25.50.")
    return int(cents)


class FacilityForm(forms.Form):
    def __init__(self, *args: Any, facility: Any, **kwargs: Any) -> None:
        self.facility = facility
        super().__init__(*args, **kwargs)

    def field(self, name: str) -> Any:
        return self.fields[name]


class ApprovalForm(FacilityForm):
    program = forms.ModelChoiceField(queryset=CouponProgram.objects.filter(active=True), empty_label=None)
    kind = forms.ChoiceField(choices=ProgramApproval.Kind.choices, label="What was approved")
    series = forms.ModelChoiceField(queryset=CouponSeries.objects.none(), required=False,
                                    help_text="For a design approval: the series whose design was approved")
    approved_on = forms.DateField(widget=DATE, label="Date approved")
    reference = forms.CharField(max_length=120, label="Approval reference", help_text="Letter or approval number")
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    password = password_field()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.field("series").queryset = CouponSeries.objects.filter(facility=self.facility)


class LocationForm(FacilityForm):
    name = forms.CharField(max_length=120)
    department = forms.ChoiceField(choices=StorageLocation.Department.choices)
    bcc_approved_on = forms.DateField(widget=DATE, label="Approved by the Bureau of Casino Compliance on")
    bcc_approval_reference = forms.CharField(max_length=100, label="Approval reference")
    internal_controls_reference = forms.CharField(max_length=100, required=False,
                                                  label="Where the internal controls name it")


class SeriesForm(FacilityForm):
    program = forms.ModelChoiceField(queryset=CouponProgram.objects.filter(active=True), empty_label=None)
    code = forms.SlugField(max_length=40, help_text="Short name, e.g. mp25-2026")
    name = forms.CharField(max_length=150, help_text="e.g. $25 Match Play, winter 2026")
    denomination = forms.CharField(label="Denomination ($)", help_text="The stated value, e.g. 25")
    serial_prefix = forms.CharField(max_length=10, required=False, help_text="Printed before the number, e.g. MP")
    serial_digits = WholeNumberField(min_value=1, max_value=18, initial=7, help_text="Printed width of the number")
    expires_on = forms.DateField(widget=DATE, help_text="The expiry date printed on the coupon, § 525.21(c)(5)")
    games = forms.ModelMultipleChoiceField(queryset=Game.objects.filter(banking=True),
                                           widget=forms.CheckboxSelectMultiple,
                                           help_text="Games the coupon may be used on, § 525.21(c)(4)")
    wager_restrictions = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}),
                                         help_text="Wagers it may be used on and other restrictions")
    positions = forms.MultipleChoiceField(
        choices=Position.choices, required=False, widget=forms.CheckboxSelectMultiple,
        label="Positions it may be wagered on",
        help_text="Checked at redemption; leave all unchecked for any position the game allows, § 525.22(c)")
    even_money_only = forms.BooleanField(
        required=False, label="Even-money wagers only",
        help_text="Checked at redemption: Roulette's dozens (2 to 1) and any wager paying more than 1 to 1 refused, "
                  "§ 525.21(c)(4)")
    printed_name = forms.CharField(max_length=200, required=False, help_text="Defaults to the facility name")
    shows_logo = forms.BooleanField(required=False, initial=True, label="The logo is printed")
    value_visible_on_surveillance = forms.BooleanField(
        required=True, label="The value can be read through the surveillance system, § 525.21(c)(2)")
    has_chip_area = forms.BooleanField(
        required=True, label="The coupon has an area for the chips that does not hide the value, § 525.21(c)(6)")
    design_specification = forms.CharField(max_length=200, required=False, label="Design document reference")

    def clean_denomination(self) -> int:
        return dollars_to_cents(self.cleaned_data["denomination"])


class ReceiptForm(FacilityForm):
    series = forms.ModelChoiceField(queryset=CouponSeries.objects.none())
    source = forms.ChoiceField(choices=[("provider", "Gaming service provider"),
                                        ("internal", "Printed in house, § 525.21(p)")])
    supplier = forms.CharField(max_length=150, label="Provider or print shop")
    invoice_number = forms.CharField(max_length=60)
    invoice_quantity = WholeNumberField(min_value=1, max_value=MAX_COUNT, label="Quantity on the invoice")
    invoice_first_serial = WholeNumberField(min_value=0, max_value=MAX_SERIAL, label="First serial on the invoice")
    invoice_last_serial = WholeNumberField(min_value=0, max_value=MAX_SERIAL, label="Last serial on the invoice")
    received = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), label="Serials received",
                               help_text="Leave empty if exactly the invoice's serials arrived. " + SERIALS_HELP)
    received_on = forms.DateField(widget=DATE, label="Date received")
    location = forms.ModelChoiceField(queryset=StorageLocation.objects.none(), label="Stored in",
                                      help_text="Approved locked finance area, § 525.21(i)")
    password = password_field("Your password (finance supervisor recording)")
    examiner_finance = PersonChoice(queryset=get_user_model().objects.none(), required=False,
                                    label="Finance member who examined (optional, signs now)")
    examiner_finance_password = forms.CharField(required=False, strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "off"}),
                                                label="Their password")
    examiner_marketing = PersonChoice(queryset=get_user_model().objects.none(), required=False,
                                      label="Marketing member who examined (optional, signs now)")
    examiner_marketing_password = forms.CharField(required=False, strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "off"}),
                                                  label="Their password")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.field("series").queryset = CouponSeries.objects.filter(facility=self.facility)
        self.field("location").queryset = StorageLocation.objects.filter(
            facility=self.facility, department="finance", active=True)
        self.field("examiner_finance").queryset = people_in(self.facility, department="finance")
        self.field("examiner_marketing").queryset = people_in(self.facility, department="marketing")
        self.fields["received_on"].initial = gaming_day(self.facility)
        for name in ("series", "location"):  # one choice: choose it
            only = list(self.field(name).queryset[:2])
            if len(only) == 1:
                self.fields[name].initial = only[0].pk

    def clean(self) -> dict[str, Any]:
        data = super().clean() or self.cleaned_data
        first, last = data.get("invoice_first_serial"), data.get("invoice_last_serial")
        if first is not None and last is not None and first > last:
            # Left empty, "Serials received" means the invoice's serials: a reversed pair cannot be read.
            self.add_error("invoice_last_serial", invoice_serials_reversed(first, last))
        return data


class RequisitionForm(FacilityForm):
    """Only programs finance can fill now (§ 525.21(g)–(h)): a program with a series approved, unexpired and in
    stock; the only one is chosen, several are left for the supervisor to choose."""

    program = forms.ModelChoiceField(queryset=CouponProgram.objects.none(), empty_label="Choose the program",
                                     help_text="Programs with coupons finance can issue now")
    needed_for = forms.DateField(widget=DATE, label="Date the coupons are needed", help_text="§ 525.21(g)(2)")
    promotion = forms.CharField(max_length=150, required=False, help_text="Promotion, if any")
    denomination = forms.ChoiceField(label="Denomination", help_text="§ 525.21(g)(3)")
    quantity = WholeNumberField(min_value=1, max_value=MAX_COUNT, help_text="Your estimate for the gaming day or promotion")
    password = password_field("Your password (marketing supervisor completing the requisition)")

    def __init__(self, *args: Any, issuable: list[CouponSeries], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        programs = {s.program_id for s in issuable}
        self.field("program").queryset = CouponProgram.objects.filter(pk__in=programs).order_by("name")
        if len(programs) == 1:
            self.field("program").empty_label = None
            self.fields["program"].initial = next(iter(programs))
        values = sorted({s.denomination_cents for s in issuable})
        choices: list[tuple[int | str, str]] = [(v, format_cents(v)) for v in values]
        self.field("denomination").choices = (
            choices if len(choices) == 1 else [("", "Choose the denomination"), *choices])
        if len(choices) == 1:
            self.fields["denomination"].initial = values[0]
        self.fields["needed_for"].initial = gaming_day(self.facility)


class RequisitionCancelForm(FacilityForm):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=500,
                             label="Why the requisition is cancelled",
                             help_text="Kept with the requisition, which stays as it was signed")
    password = password_field("Your password (supervisor cancelling)")


class IssuanceForm(FacilityForm):
    series = forms.ModelChoiceField(queryset=CouponSeries.objects.none(), empty_label=None)
    serials = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), label="Serials issued",
                              help_text=SERIALS_HELP + ' Voided ones can be typed as on the paper: "100001-100500 with '
                              '100013 voided" (then give the reason below).', required=False)
    void_serials = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False,
                                   label="Serials voided at issuance", help_text="§ 525.21(h)(4)")
    void_reason = forms.CharField(required=False, label="Why they were voided")
    needed_date_passed = forms.BooleanField(
        required=False, label="Issue although the date has passed",
        help_text="Asked only when the date the coupons were needed for (§ 525.21(g)(2)) is already past.")
    password = password_field("Your password (finance supervisor issuing)")
    receiver = PersonChoice(queryset=get_user_model().objects.none(), required=False,
                            label="Marketing supervisor receiving (optional, signs now)")
    receiver_password = forms.CharField(required=False, strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "off"}),
                                        label="Their password")

    def __init__(self, *args: Any, requisition: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.field("series").queryset = CouponSeries.objects.filter(
            facility=self.facility, denomination_cents=requisition.denomination_cents, program=requisition.program)
        self.field("receiver").queryset = people_in(self.facility, roles=["marketing_supervisor"])


class DistributionForm(FacilityForm):
    # Marketing's "today" page shows this form beside the void form: each has its own prefix, so every field's
    # id (and the label pointing at it) is unique on the page.
    prefix = "distribute"
    series = forms.ModelChoiceField(queryset=CouponSeries.objects.none(), empty_label=None)
    serials = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "autofocus": True}),
                              label="Serials handed to patrons", help_text=SERIALS_HELP)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.field("series").queryset = CouponSeries.objects.filter(facility=self.facility)


class VoidForm(DistributionForm):
    prefix = "void"
    reason = forms.CharField(max_length=300, label="Why they are voided", help_text="§ 525.21(j)(6)")
    password = password_field("Your password (supervisor voiding)")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["serials"].label = "Serials to void"


class UndoForm(FacilityForm):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=500,
                             label="What was recorded by mistake, and why it is taken back",
                             help_text="Kept with the reversing entry, § 525.21(j)(7)")
    password = password_field("Your password (marketing supervisor)")


class ReconciliationCompleteForm(FacilityForm):
    variation_explanation = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, label="Variations and their explanation",
        help_text="Required when a count differs from the ledger, § 525.21(j)(7)")
    disposition = forms.ChoiceField(choices=ReconciliationForm.Disposition.choices, widget=forms.RadioSelect,
                                    initial="return", label="Undistributed coupons")
    kept_in = forms.ModelChoiceField(queryset=StorageLocation.objects.none(), required=False,
                                     label="Approved locked marketing area (if kept)")
    password = password_field("Your password (marketing supervisor completing the form)")
    receiver = PersonChoice(queryset=get_user_model().objects.none(), required=False,
                            label="Finance supervisor receiving the return (optional, signs now)")
    receiver_password = forms.CharField(required=False, strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "off"}),
                                        label="Their password")

    def __init__(self, *args: Any, denominations: list[tuple[int, str, int]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        counted: dict[str, forms.Field] = {}
        for cents, label, expected in denominations:
            counted[f"count_{cents}"] = WholeNumberField(
                min_value=0, max_value=MAX_COUNT, label=f"{label} coupons counted remaining",
                help_text=f"The ledger expects {expected:,}.")
        self.fields = {**counted, **self.fields}
        self.field("kept_in").queryset = StorageLocation.objects.filter(
            facility=self.facility, department="marketing", active=True)
        self.field("receiver").queryset = people_in(self.facility, roles=["finance_supervisor"])

    def counts(self) -> dict[int, int]:
        return {int(name.removeprefix("count_")): value for name, value in self.cleaned_data.items()
                if name.startswith("count_")}


class ReturnForm(FacilityForm):
    what = forms.ChoiceField(choices=[("expired", "Only the expired coupons (daily return, § 525.21(k))"),
                                      ("denomination", "Every coupon of one denomination"),
                                      ("serials", "The serials listed below"),
                                      ("all", "Every coupon marketing holds")], widget=forms.RadioSelect,
                             initial="expired")
    denomination = forms.TypedChoiceField(coerce=int, required=False, choices=[],
                                          label="Denomination (with “every coupon of one denomination”)")
    series = forms.ModelChoiceField(queryset=CouponSeries.objects.none(), required=False,
                                    label="Series (with “the serials listed below”)")
    serials = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False, label="Serials returned",
                              help_text=SERIALS_HELP)
    gaming_date = forms.DateField(widget=DATE)
    password = password_field("Your password (marketing supervisor returning)")
    receiver = PersonChoice(queryset=get_user_model().objects.none(), required=False,
                            label="Finance supervisor receiving (optional, signs now)")
    receiver_password = forms.CharField(required=False, strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "off"}),
                                        label="Their password")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["gaming_date"].initial = gaming_day(self.facility)
        self.field("receiver").queryset = people_in(self.facility, roles=["finance_supervisor"])
        self.field("series").queryset = CouponSeries.objects.filter(facility=self.facility)
        held = sorted({s.denomination_cents for s in CouponSeries.objects.filter(facility=self.facility)})
        self.field("denomination").choices = [("", "—"), *[(c, format_cents(c)) for c in held]]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("what") == "denomination" and not data.get("denomination"):
            self.add_error("denomination", "Choose the denomination to return.")
        if data.get("what") == "serials" and not (data.get("series") and (data.get("serials") or "").strip()):
            self.add_error("serials", "Choose the series and list the serials to return.")
        return data


class ProcessForm(FacilityForm):
    """Finance's count, § 525.21(m)(1), by denomination and state, in the order of the figures above it. A count
    that differs from the ledger comes back once to be counted again: ``first_count`` carries the first count."""

    gaming_date = forms.DateField(widget=DATE)
    restock_location = forms.ModelChoiceField(queryset=StorageLocation.objects.none(), required=False,
                                              label="Returned coupons go back to",
                                              help_text="Approved locked finance area, § 525.21(i)")
    count_explanation = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=2000,
        label="Why your count differs (if it differs twice)",
        help_text="Asked when a second count gives the same difference; it goes to internal audit, § 525.21(m)(3)")
    first_count = forms.CharField(required=False, widget=forms.HiddenInput)
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    password = password_field("Your password (finance, counted and reviewed)")

    def __init__(self, *args: Any, denominations: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        counted: dict[str, forms.Field] = {}
        for cents in denominations:
            for label in COUNTED_STATES:
                counted[f"{label}_{cents}"] = WholeNumberField(
                    min_value=0, max_value=MAX_COUNT, label=f"{format_cents(cents)} {label} coupons counted")
        fields = dict(self.fields)
        self.fields = {"gaming_date": fields.pop("gaming_date"), **counted, **fields}
        self.field("restock_location").queryset = StorageLocation.objects.filter(
            facility=self.facility, department="finance", active=True)

    def counts(self) -> dict[int, dict[str, int]]:
        """What was counted: ``{denomination_cents: {"returned": n, "voided": n, "redeemed": n}}``."""
        found: dict[int, dict[str, int]] = {}
        for name, value in self.cleaned_data.items():
            label, _, cents = name.rpartition("_")
            if label in COUNTED_STATES and cents.isdigit():
                found.setdefault(int(cents), {})[label] = value or 0
        return found

    def clean_first_count(self) -> dict[int, dict[str, int]] | None:
        """The count refused the first time, as the page carried it; anything unreadable is no first count."""
        return read_counts(self.cleaned_data.get("first_count") or "")


def write_counts(counts: dict[int, dict[str, int]]) -> str:
    return json.dumps({str(cents): by_state for cents, by_state in sorted(counts.items())}, sort_keys=True)


def read_counts(text: str) -> dict[int, dict[str, int]] | None:
    try:
        raw = json.loads(text) if text else None
    except ValueError:
        return None
    if not isinstance(raw, dict):
        return None
    counts: dict[int, dict[str, int]] = {}
    for cents, by_state in raw.items():
        if not (isinstance(cents, str) and cents.isdigit() and isinstance(by_state, dict)):
            return None
        if not all(label in COUNTED_STATES and type(n) is int and 0 <= n <= MAX_COUNT
                   for label, n in by_state.items()):
            return None
        counts[int(cents)] = dict(by_state)
    return counts


class InventoryForm(FacilityForm):
    counted_on = forms.DateField(
        widget=DATE, label="Date counted", disabled=True,
        help_text="The gaming day the count is recorded, § 525.21(n): an inventory is not back-dated.")
    password = password_field("Your password (finance, took the inventory)")

    def __init__(self, *args: Any, expected: list[tuple[CouponSeries, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.series_by_field: dict[str, CouponSeries] = {}
        counted: dict[str, forms.Field] = {}
        for series, expected_text in expected:
            name = f"series_{series.pk}"
            self.series_by_field[name] = series
            counted[name] = forms.CharField(
                required=False, widget=forms.Textarea(attrs={"rows": 2}), label=f"{series.name}: serials counted",
                help_text=f"The ledger expects: {expected_text or 'none'}. Leave empty if none were found.")
        self.fields = {**counted, **self.fields}
        self.fields["counted_on"].initial = gaming_day(self.facility)


class ResolveForm(forms.Form):
    resolution = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), label="Resolution",
                                 error_messages={"required": "Say how the report was resolved."})


class LedgerFilterForm(FacilityForm):
    date_from = forms.DateField(required=False, widget=DATE, label="From")
    date_to = forms.DateField(required=False, widget=DATE, label="To")
    kind = forms.ChoiceField(required=False, label="Entry")
    series = forms.ModelChoiceField(queryset=CouponSeries.objects.none(), required=False)
    denomination = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label="Denomination")
    state = forms.ChoiceField(required=False, label="State")
    serial = WholeNumberField(required=False, min_value=0, max_value=MAX_SERIAL, label="Serial number")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from coupons.models import CouponState, LedgerLine

        super().__init__(*args, **kwargs)
        self.field("kind").choices = [("", "Any entry"), *LedgerLine.Kind.choices]
        self.field("state").choices = [("", "Any state"), *CouponState.choices]
        self.field("series").queryset = CouponSeries.objects.filter(facility=self.facility)
        from coupons.models import format_cents

        values = sorted(set(CouponSeries.objects.filter(facility=self.facility).values_list(
            "denomination_cents", flat=True)))
        self.field("denomination").choices = [("", "Any"), *((v, format_cents(v)) for v in values)]

    def clean_date_from(self) -> Any:
        return require_filter_day(self.cleaned_data.get("date_from"), "the first day")

    def clean_date_to(self) -> Any:
        return require_filter_day(self.cleaned_data.get("date_to"), "the last day")

    def filters(self) -> dict[str, Any]:
        if not self.is_valid():
            return {}
        data = self.cleaned_data
        return {
            "date_from": data.get("date_from"),
            "date_to": data.get("date_to"),
            "kind": data.get("kind") or "",
            "series_id": data["series"].pk if data.get("series") else None,
            "denomination_cents": data.get("denomination"),
            "state": data.get("state") or "",
            "serial": data.get("serial"),
        }
