"""The coupon program, § 525.21(b), (c), (i), (p): approvals, series and approved storage areas."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from compliance.actors import acts_as_user
from compliance.bounds import EARLIEST_DAY, MAX_DENOMINATION_CENTS, require_count, require_day_between, years
from compliance.models import Facility, Game
from compliance.roles import Capability, require_capability
from compliance.services import record_sign
from coupons.days import today
from coupons.models import CouponProgram, CouponSeries, ProgramApproval, StorageLocation
from coupons.services._common import create

# Restrictions written as "even money" / "even-money" must be the enforced flag, not words alone.
EVEN_MONEY_WORDS = re.compile(r"\beven[\s-]*money\b", re.IGNORECASE)

__all__ = ["approval_record", "location_create", "series_create"]


@transaction.atomic
@acts_as_user
def approval_record(
    *,
    facility: Facility,
    program: CouponProgram,
    kind: str,
    approved_on: date,
    reference: str,
    user: Any,
    password: str | None,
    series: CouponSeries | None = None,
    notes: str = "",
) -> ProgramApproval:
    require_capability(user, Capability.APPROVE_COUPON_PROGRAM)
    if not reference.strip():
        raise ValidationError("Enter the approval's reference (letter or approval number).")
    if kind == ProgramApproval.Kind.DESIGN and series is None:
        raise ValidationError("A design approval is for one coupon series: choose the series.")
    if kind != ProgramApproval.Kind.DESIGN:
        series = None
    if approved_on > today(facility):
        raise ValidationError("The approval date is in the future.")
    require_day_between(approved_on, EARLIEST_DAY, today(facility), "the approval date")
    approval = create(
        ProgramApproval, user, facility=facility, program=program, kind=kind, approved_on=approved_on,
        reference=reference.strip(), series=series, notes=notes,
    )
    record_sign(record=approval, slot="recorded", user=user, password=password)
    return approval


def _require_series_rules(*, denomination_cents: int, games: Sequence[Game], wager_restrictions: str,
                          value_visible_on_surveillance: bool, has_chip_area: bool) -> None:
    if denomination_cents <= 0:
        raise ValidationError("A coupon needs a stated value above $0 (§ 525.21(a)).")
    if not games:
        raise ValidationError("Name the games the coupon may be used on (§ 525.21(c)(4)).")
    not_banking = [g.name for g in games if not g.banking]
    if not_banking:
        raise ValidationError(
            f"Match Play Coupons are used only at games where patrons wager against the house (§ 525.22(a)): "
            f"{', '.join(not_banking)} is not one."
        )
    if not (value_visible_on_surveillance and has_chip_area):
        raise ValidationError(
            "A coupon's value must be readable through surveillance and the chips must have an area that does not "
            "hide it (§ 525.21(c)(2), (6)); change the design before recording the series."
        )
    if not wager_restrictions.strip():
        raise ValidationError("State the wagers the coupon may be used on and other restrictions (§ 525.21(c)(4)).")


def _known_positions(positions: Sequence[str]) -> list[str]:
    from coupons.models import Position

    unknown = sorted(set(positions) - set(Position.values))
    if unknown:
        raise ValidationError(f"Unknown wager positions: {', '.join(unknown)}; choose among those of § 525.22(c).")
    return [p for p in Position.values if p in set(positions)]


@transaction.atomic
@acts_as_user
def series_create(
    *,
    facility: Facility,
    program: CouponProgram,
    code: str,
    name: str,
    denomination_cents: int,
    expires_on: date,
    games: Sequence[Game],
    wager_restrictions: str,
    user: Any,
    serial_prefix: str = "",
    serial_digits: int = 7,
    printed_name: str = "",
    shows_logo: bool = True,
    design_specification: str = "",
    value_visible_on_surveillance: bool = True,
    has_chip_area: bool = True,
    positions: Sequence[str] = (),
    even_money_only: bool = False,
) -> CouponSeries:
    """A coupon series with what § 525.21(c) requires each coupon to show; ``positions`` the wagers its
    restrictions allow (empty: any position the game allows, § 525.22(c))."""
    require_capability(user, Capability.RECORD_COUPON_RECEIPT)
    # A series already expired when recorded could never be used; one printed to last decades is a typo.
    now = today(facility)
    require_day_between(expires_on, now, now + years(10), "the expiry date printed on the coupon")
    require_count(denomination_cents, "the denomination in cents", maximum=MAX_DENOMINATION_CENTS)
    _require_series_rules(denomination_cents=denomination_cents, games=games, wager_restrictions=wager_restrictions,
                          value_visible_on_surveillance=value_visible_on_surveillance, has_chip_area=has_chip_area)
    if CouponSeries.objects.filter(facility=facility, code=code).exists():
        raise ValidationError(f"There is already a series called {code}.")
    if EVEN_MONEY_WORDS.search(wager_restrictions) and not even_money_only:
        raise ValidationError("The restrictions say even-money wagers: tick \u201cEven-money wagers only\u201d so the "
                              "redemption at the table enforces them (§ 525.21(c)(4)).")
    series = CouponSeries.objects.create(
        facility=facility, program=program, code=code, name=name, denomination_cents=denomination_cents,
        expires_on=expires_on, wager_restrictions=wager_restrictions.strip(), serial_prefix=serial_prefix.strip(),
        serial_digits=serial_digits, printed_name=printed_name or facility.name, shows_logo=shows_logo,
        design_specification=design_specification, value_visible_on_surveillance=value_visible_on_surveillance,
        has_chip_area=has_chip_area, positions=_known_positions(positions), even_money_only=even_money_only,
    )
    series.games.set(games)
    return series


@transaction.atomic
@acts_as_user
def location_create(
    *,
    facility: Facility,
    name: str,
    department: str,
    user: Any,
    bcc_approved_on: date | None,
    bcc_approval_reference: str,
    internal_controls_reference: str = "",
) -> StorageLocation:
    """A storage area the Bureau of Casino Compliance approved (§ 525.21(i), (k))."""
    require_capability(user, Capability.APPROVE_COUPON_PROGRAM)
    if bcc_approved_on is not None:
        require_day_between(bcc_approved_on, EARLIEST_DAY, today(facility), "the Bureau's approval date")
    if StorageLocation.objects.filter(facility=facility, name=name).exists():
        raise ValidationError(f"There is already a location called {name}.")
    return StorageLocation.objects.create(
        facility=facility, name=name, department=department, bcc_approved_on=bcc_approved_on,
        bcc_approval_reference=bcc_approval_reference, internal_controls_reference=internal_controls_reference,
    )
