"""Forms used at the table on a tablet: few fields, big targets, passwords to sign."""

from __future__ import annotations

from typing import Any

from django import forms

from compliance.numbers import WholeNumberField
from compliance.people import person_name
from equipment.models import DeckSet, DiceMethod, EquipmentRequirement, Malfunction, RemovalReason

_DICE_REASONS = [
    (RemovalReason.SCHEDULED, "Scheduled 24-hour change"),
    (RemovalReason.TABLE_REOPENED, "Table reopened for gaming"),
    (RemovalReason.DIE_LOST, "A die went off the table and was lost"),
    (RemovalReason.TAMPERING, "Signs of tampering or alteration, or marked"),
    (RemovalReason.DAMAGED, "Chipped, scratched or no longer suitable for play"),
    (RemovalReason.TABLE_CLOSED, "Table closed"),
]
_DECK_REASONS = [
    (RemovalReason.SCHEDULED, "Scheduled change (4 h by hand / 8 h from a shoe)"),
    (RemovalReason.TABLE_REOPENED, "Table reopened for gaming"),
    (RemovalReason.DEFECTIVE_CARDS, "Cards defective"),
    (RemovalReason.DEVICE_OUT_OF_ORDER, "Shoe or shuffler out of order: dealing by hand (§ 575.13(n))"),
    (RemovalReason.TABLE_CLOSED, "Table closed"),
]


class _SignedForm(forms.Form):
    password = forms.CharField(
        label="Your password (signs the record)",
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class _WithDealer(_SignedForm):
    dealer: forms.ModelChoiceField[Any] = forms.ModelChoiceField(queryset=None, label="Dealer present")
    dealer_password = forms.CharField(
        label="Dealer's password (the dealer signs too)",
        widget=forms.PasswordInput(attrs={"autocomplete": "off"}),
    )

    def __init__(self, *args: Any, dealers: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["dealer"].queryset = dealers  # type: ignore[attr-defined]
        self.fields["dealer"].label_from_instance = lambda u: person_name(u, credential=True)  # type: ignore[attr-defined]


class DiceChangeForm(_WithDealer):
    reason = forms.ChoiceField(label="Why the set in play leaves play", choices=_DICE_REASONS, required=False)
    dice_lost = WholeNumberField(label="Dice lost off the table", min_value=0, max_value=99, initial=0, required=False)
    note = forms.CharField(label="Note on the removed set", required=False, widget=forms.Textarea(attrs={"rows": 2}))
    identifiers = forms.CharField(label="New dice: serial numbers or lot", max_length=300)
    colours = forms.CharField(label="Colours", max_length=100, required=False)
    dice_count = WholeNumberField(label="Number of dice", min_value=1, max_value=99)
    field_order = [
        "reason",
        "dice_lost",
        "note",
        "identifiers",
        "colours",
        "dice_count",
        "dealer",
        "dealer_password",
        "password",
    ]

    def __init__(self, *args: Any, requirement: EquipmentRequirement, has_current: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["dice_count"].initial = requirement.dice_count
        self.fields["colours"].initial = requirement.dice_colours
        if requirement.dice_colours:
            self.fields["colours"].help_text = f"Required: {requirement.dice_colours}"
        if not has_current:
            for name in ("reason", "dice_lost", "note"):
                del self.fields[name]
        else:
            self.fields["reason"].required = True


class DeckChangeForm(_WithDealer):
    reason = forms.ChoiceField(label="Why the cards in play leave play", choices=_DECK_REASONS, required=False)
    note = forms.CharField(label="Note", required=False, widget=forms.Textarea(attrs={"rows": 2}))
    deck_count = forms.TypedChoiceField(
        label="Decks", choices=[(1, "One deck"), (2, "Two decks (shuffler)")], coerce=int
    )
    back_colours = forms.CharField(label="Back colour(s)", help_text="Two decks: e.g. red / blue", max_length=100)
    identifiers = forms.CharField(label="Deck serials or lot", max_length=300, required=False)
    dealt_from = forms.ChoiceField(label="Dealt", choices=DeckSet.DealtFrom.choices)
    automated_shuffler = forms.BooleanField(label="Automated card shuffling device in use", required=False)
    jokers_per_deck = forms.TypedChoiceField(
        label="Jokers in each deck as made", choices=[(1, "One"), (2, "Two")], coerce=int
    )
    second_joker_torn = forms.BooleanField(
        label="Second joker torn in half and put back in the box (§ 575.4(b))", required=False
    )
    field_order = ["reason", "note", "deck_count", "back_colours", "identifiers", "dealt_from", "automated_shuffler",
                   "jokers_per_deck", "second_joker_torn", "dealer", "dealer_password", "password"]  # fmt: skip

    def __init__(self, *args: Any, has_current: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["dealer"].label = "Dealer who inspected the cards (§ 575.4(a))"
        self.fields["password"].label = "Your password: you verify the dealer's inspection"
        if not has_current:
            del self.fields["reason"], self.fields["note"]
        else:
            self.fields["reason"].required = True


_DIE = [(n, str(n)) for n in range(1, 7)]


class InspectionForm(_SignedForm):
    value_1 = forms.TypedChoiceField(label="First value entered", choices=_DIE, coerce=int)
    value_2 = forms.TypedChoiceField(label="Second value entered", choices=_DIE, coerce=int)
    value_3 = forms.TypedChoiceField(label="Third value entered", choices=_DIE, coerce=int)
    combinations_illuminated = forms.BooleanField(
        label="Every winning combination was properly illuminated", required=False
    )
    automated_shaker_in_use = forms.BooleanField(label="An automated dice shaker is in use", required=False)
    shaker_operations = WholeNumberField(
        label="Times the shaker was operated", min_value=0, max_value=99, initial=0, required=False
    )
    shaker_tossed_properly = forms.BooleanField(label="The dice were properly tossed each time", required=False)
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    field_order = ["value_1", "value_2", "value_3", "combinations_illuminated", "automated_shaker_in_use",
                   "shaker_operations", "shaker_tossed_properly", "note", "password"]  # fmt: skip


class MalfunctionForm(_SignedForm):
    device = forms.ChoiceField(choices=Malfunction.Device.choices)
    description = forms.CharField(label="What happened", widget=forms.Textarea(attrs={"rows": 3}))
    round_outcome = forms.ChoiceField(label="What happened to the round", choices=Malfunction.RoundOutcome.choices)
    out_of_order = forms.BooleanField(
        label="Device covered or signed out of order before another method was used", required=False
    )
    field_order = ["device", "description", "round_outcome", "out_of_order", "password"]

    def __init__(self, *args: Any, devices: set[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["device"].choices = [c for c in Malfunction.Device.choices if c[0] in devices]  # type: ignore[attr-defined]


class BackInServiceForm(_SignedForm):
    repair = forms.CharField(label="What was done (fixed, replaced, tested)", widget=forms.Textarea(attrs={"rows": 3}))
    field_order = ["repair", "password"]


class DiceMethodForm(forms.Form):
    method = forms.ChoiceField(label="How the starting position is determined (§ 575.2(c))", choices=DiceMethod.choices)
