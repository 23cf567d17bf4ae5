"""Numbers as people type them: the one reading of a typed amount, count or serial (issue 22, item 6).

Python reads digits of every script (``int("١٢٣") == 123``, ``Decimal("１２３")``) and words for infinity
(``Decimal("Infinity")``); Django's and DRF's number fields inherit both. A serial, a quantity or an amount on a
regulated form is typed with the digits 0–9, so anything else is refused in words, never saved as a number the
person did not see, and never carried into arithmetic that breaks (``int(Decimal("Infinity"))``). Every form
and API number field of the project is one of the fields below (``tests/test_architecture.py`` holds it), and
the admin's are too (``NUMBER_FORMFIELDS``).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from rest_framework import serializers

__all__ = [
    "NUMBER_FORMFIELDS",
    "AmountField",
    "ApiDecimalField",
    "ApiIntegerField",
    "WholeNumberField",
    "ascii_number_refusal",
    "how_many",
    "read_amount",
    "typed_dollars",
]

LARGEST_DIGITS = 15  # no amount typed into this system reaches a quadrillion (10 ** 15)
DIGITS_ONLY = "Type the number with the digits 0–9 (as on the coupon or the form), e.g. 25 or 25.50."


def ascii_number_refusal(value: Any) -> str:
    """Words refusing a typed number written with anything but ASCII digits, a sign, a point, commas, a dollar
    sign and spaces ("" when it is fine, or not text at all)."""
    if not isinstance(value, str):
        return ""
    if any(ch.isdigit() and not ("0" <= ch <= "9") for ch in value) or any(
            ch.isnumeric() and not ch.isdigit() for ch in value):
        return DIGITS_ONLY
    if "\x00" in value:
        return "The value holds a NUL character: type it again."
    if "_" in value:  # Python reads "1_000" as 1000; nobody types it so on a form
        return DIGITS_ONLY
    return ""


def _too_large(number: Decimal) -> bool:
    """At or above 10 ** ``LARGEST_DIGITS``, read from the exponent (no arithmetic: ``1e999999999`` would overflow it)."""
    return number != 0 and number.adjusted() >= LARGEST_DIGITS


def read_amount(value: Any, *, what: str = "an amount in dollars, e.g. 25 or 25.00") -> Decimal:
    """A typed amount (``$1,250.50``) as a finite Decimal; refusals in words."""
    text = str(value)
    refusal = ascii_number_refusal(text)
    if refusal:
        raise ValidationError(refusal)
    try:
        amount = Decimal(text.replace("$", "").replace(",", "").strip())
    except InvalidOperation:
        raise ValidationError(f"Enter {what}.") from None
    if not amount.is_finite():
        raise ValidationError(f"Enter {what}: a number, not “{text.strip()[:20]}”.")
    if _too_large(amount):  # "1e999999999" is finite, and a billion digits long once multiplied out
        raise ValidationError(f"Enter {what}: “{text.strip()[:20]}” is far larger than any amount on a form.")
    return amount


def typed_dollars(text: Any) -> Decimal | None:
    """Dollars as a person types them in a rule ("$1,250.50", "5") as a finite Decimal, or None when it is not such
    a number (other digits than 0–9, words, NaN, far too large); the caller says what it had to be."""
    raw = str(text if text is not None else "").strip().replace(",", "").lstrip("$").strip()
    if not raw or ascii_number_refusal(raw):
        return None
    try:
        amount = Decimal(raw)
    except InvalidOperation:
        return None
    return amount if amount.is_finite() and not _too_large(amount) else None


class WholeNumberField(forms.IntegerField):
    """Django's integer field, typed with the digits 0–9 only."""

    def to_python(self, value: Any) -> Any:
        refusal = ascii_number_refusal(value)
        if refusal:
            raise ValidationError(refusal, code="invalid")
        return super().to_python(value)


class AmountField(forms.DecimalField):
    """Django's decimal field, typed with the digits 0–9 only (it refuses NaN and infinity already), and below
    10 ** ``LARGEST_DIGITS``."""

    def to_python(self, value: Any) -> Any:
        refusal = ascii_number_refusal(value)
        if refusal:
            raise ValidationError(refusal, code="invalid")
        number = super().to_python(value)
        if number is not None and number.is_finite() and _too_large(number):
            raise ValidationError("That is far larger than any amount on a form.", code="invalid")
        return number


class ApiIntegerField(serializers.IntegerField):
    """DRF's integer field, digits 0–9 only (a JSON number is fine; a string of other digits is refused)."""

    def to_internal_value(self, data: Any) -> int:
        if ascii_number_refusal(data):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class ApiDecimalField(serializers.DecimalField):
    """DRF's decimal field, digits 0–9 only, finite only."""

    def to_internal_value(self, data: Any) -> Decimal:
        if ascii_number_refusal(data):
            self.fail("invalid")
        value = super().to_internal_value(data)
        if not isinstance(value, Decimal) or not value.is_finite() or _too_large(value):
            self.fail("invalid")
        return value


# The admin's number fields (``formfield_overrides``): the same reading as every other form.
NUMBER_FORMFIELDS: dict[type[models.Field[Any, Any]], dict[str, Any]] = {
    models.IntegerField: {"form_class": WholeNumberField},
    models.BigIntegerField: {"form_class": WholeNumberField},
    models.SmallIntegerField: {"form_class": WholeNumberField},
    models.PositiveIntegerField: {"form_class": WholeNumberField},
    models.PositiveBigIntegerField: {"form_class": WholeNumberField},
    models.PositiveSmallIntegerField: {"form_class": WholeNumberField},
    models.DecimalField: {"form_class": AmountField},
}


def how_many(count: int, noun: str = "coupon", plural: str = "") -> str:
    """A count with its noun as a person writes it: "1 coupon", "2,500 coupons", never "1 coupons"."""
    return f"{count:,} {noun if count == 1 else (plural or noun + 's')}"
