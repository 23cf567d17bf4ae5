"""What the coupon models share: money in words, the states a coupon passes through, and who signs."""

from __future__ import annotations

from typing import Any

from django.db import models

from compliance.models import (
    Meaning,
    SignatureRequirement,
)
from compliance.roles import Role


def format_cents(cents: int | None) -> str:
    if cents is None:
        return ""
    dollars, rest = divmod(int(cents), 100)
    return f"${dollars:,}" if rest == 0 else f"${dollars:,}.{rest:02d}"


class CouponState(models.TextChoices):
    # § 525.21(e)–(f): coupons received are finance's stock only once one member of finance and one of
    # marketing have opened and examined them and a finance supervisor recorded them.
    RECEIVED = "received", "Received, awaiting examination"
    IN_STOCK = "in_stock", "In finance stock"
    ISSUED = "issued", "Issued to marketing"
    DISTRIBUTED = "distributed", "Distributed to a patron"
    VOIDED = "voided", "Voided"
    RETURNED = "returned", "Returned to finance"
    EXPIRED = "expired", "Expired"
    REDEEMED = "redeemed", "Redeemed"
    CANCELLED = "cancelled", "Cancelled"


# Who has the coupons in each state (derived, not stored: § 525.21(d) splits custody this way).
HOLDER_OF_STATE = {
    CouponState.RECEIVED: "Finance (locked storage), awaiting examination by finance and marketing",
    CouponState.IN_STOCK: "Finance (locked storage)",
    CouponState.ISSUED: "Marketing",
    CouponState.DISTRIBUTED: "Patron",
    CouponState.VOIDED: "Voided, awaiting cancellation by finance",
    CouponState.RETURNED: "Finance, awaiting daily processing",
    CouponState.EXPIRED: "Finance (expired, out of circulation)",
    CouponState.REDEEMED: "Drop box / finance, awaiting cancellation",
    CouponState.CANCELLED: "Finance (cancelled)",
}


# The regulation gives these signatures to "a finance department supervisor" and "a marketing department
# supervisor" (§ 525.21(f), (g)(4)–(5), (h)(3), (j)(8), (l)(5)): the role and the department both count, so
# a person of another department holding the role (an error the role guard now refuses) cannot sign.
FINANCE = frozenset({"finance"})
MARKETING = frozenset({"marketing"})


def finance_supervisor_slot(slot: str, meaning: Meaning, label: str, citation: str, distinct: bool = True) -> Any:
    return SignatureRequirement(
        slot, meaning, label, roles=frozenset({Role.FINANCE_SUPERVISOR}), departments=FINANCE, distinct=distinct,
        citation=citation,
    )


def marketing_supervisor_slot(slot: str, meaning: Meaning, label: str, citation: str) -> Any:
    return SignatureRequirement(slot, meaning, label, roles=frozenset({Role.MARKETING_SUPERVISOR}),
                                departments=MARKETING, citation=citation)
