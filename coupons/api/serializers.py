"""What the redemption API reads and writes (the OpenAPI schema is generated from these)."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from compliance.numbers import ApiDecimalField, ApiIntegerField
from coupons.models import Position
from coupons.models.redemption import CHIPS

__all__ = ["CHIPS_PATTERN", "SERIAL_PATTERN", "RedemptionAnswerSerializer", "RedemptionRequestSerializer",
           "RedemptionSerializer"]

# What the schema tells a client of the values the API reads, beyond their type, so that a request the schema
# allows is never refused as malformed (tests/coupons/test_api_fuzz.py holds the API to it).
# A serial as coupons.redemption_rules.split_serial reads it (less the spaces it forgives): a series prefix and an
# optional hyphen, then the number.
SERIAL_PATTERN = r"^(?:[A-Za-z][A-Za-z0-9]*-?)?[0-9]{1,15}$"
# Dollars with at most two decimals from 0.01 to 9,999,999.99 (CHIPS: at most $10,000,000); a string, as the
# API writes amounts, so that no cent is lost to a binary fraction.
CHIPS_PATTERN = r"^(?:[1-9][0-9]{0,6}(?:\.[0-9]{1,2})?|0?\.(?:0[1-9]|[1-9][0-9]?))$"


@extend_schema_field({"type": "string", "pattern": SERIAL_PATTERN, "example": "MP-0012345"})
class _SerialField(serializers.CharField):
    pass


@extend_schema_field({"type": "string", "format": "decimal", "pattern": CHIPS_PATTERN, "example": "25.00"})
class _ChipsField(ApiDecimalField):
    pass


class RedemptionRequestSerializer(serializers.Serializer):
    """What a scan sends. Read on every scan at the table: each instance takes a shallow copy of the declared
    fields rather than DRF's deep copy (half the serializer's time, about 90 µs a scan; issue 27). Binding sets the
    copy's own name and parent; nothing else a field holds is changed by validating (the validators and choices
    are read, never written), so the copies may share them."""

    def get_fields(self) -> dict[str, Any]:
        return {name: copy.copy(field) for name, field in self._declared_fields.items()}

    serial = _SerialField(max_length=40, help_text="The coupon's serial as scanned, e.g. MP-0012345")
    table = serializers.CharField(
        max_length=20, required=False, allow_blank=True,
        help_text="The table number as painted on the layout. A scanner's token names its table; if given, it must "
                  "be that one.",
    )
    position = serializers.ChoiceField(choices=Position.choices, help_text="Where the coupon lies, § 525.22(c)")
    chips = _ChipsField(
        max_digits=12, decimal_places=2, min_value=Decimal("0.01"), max_value=Decimal(CHIPS.maximum) / 100,
        help_text="Value of the gaming chips wagered with the coupon, in dollars, § 525.22(b)",
    )
    wager = serializers.CharField(
        max_length=40, required=False, allow_blank=True, default="",
        help_text="The scanner's reference of the wager (e.g. round and seat); a wager carries one coupon, § 525.22(d)",
    )


class RedemptionSerializer(serializers.Serializer):
    id = ApiIntegerField()
    coupon = serializers.CharField()
    series = serializers.CharField()
    denomination = serializers.CharField()
    denomination_cents = ApiIntegerField()
    table = serializers.CharField()
    game = serializers.CharField()
    position = serializers.CharField()
    chips_cents = ApiIntegerField(allow_null=True)
    wager = serializers.CharField()
    gaming_date = serializers.DateField()
    redeemed_at = serializers.DateTimeField()
    channel = serializers.CharField()
    electronically_cancelled = serializers.BooleanField()


class RedemptionAnswerSerializer(serializers.Serializer):
    message = serializers.CharField(help_text="The answer for the dealer")
    instructions = serializers.ListField(child=serializers.CharField(),
                                         help_text="How to lay out the wager and what to do with the coupon")
    redemption = RedemptionSerializer()


class RedemptionPageSerializer(serializers.Serializer):
    results = RedemptionSerializer(many=True)
    next = serializers.URLField(allow_null=True, help_text="The next page (also in the Link header); null on the last")
