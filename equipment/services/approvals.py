"""The register of approved equipment: a Bureau's approval recorded, or withdrawn (§ 539.1(b), (d); § 675a.1(c);
§ 675a.3(b)(2); § 668a.3(b); § 575.2(c)). Append-only; each is checked in words before anything is written."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from compliance.actors import acts_as_user
from compliance.gaming_day import gaming_day
from compliance.models import Facility
from compliance.roles import Capability, require_capability
from compliance.service_checks import require_at_facility
from equipment.approval_kinds import kind as approval_kind
from equipment.models import ApprovalWithdrawal, EquipmentApproval

__all__ = ["approval_record", "approval_withdraw"]


def _day(day: date, facility: Facility, what: str) -> date:
    if day > gaming_day(facility):
        raise ValidationError(f"The {what} date {day:%-d %b %Y} is after today: record it once it has happened.")
    return day


@transaction.atomic
@acts_as_user
def approval_record(*, facility: Facility, kind: str, device: str, reference: str, approved_on: date, user: Any,
                    bears_logo: bool = False, has_lockout: bool = False) -> EquipmentApproval:
    """Record a Bureau's approval of a device for use at the facility's tables."""
    require_capability(user, Capability.RECORD_EQUIPMENT_APPROVALS)
    require_at_facility(user, facility)
    found = approval_kind(kind)
    if found is None:
        raise ValidationError("Choose the device the approval is for.")
    if not device.strip():
        raise ValidationError("Name the device as approved: make and model, or the design's reference.")
    if not reference.strip():
        raise ValidationError(f"Give the {found.bureau}'s approval reference (the letter or file number).")
    _day(approved_on, facility, "approval")
    if found.needs_logo and not bears_logo:
        raise ValidationError(f"The {found.label.lower()} must have the name or logo of the certificate holder "
                              f"imprinted or impressed on it (§ {found.clause}): confirm it does, or do not record "
                              "it for use.")
    if found.needs_lockout and not has_lockout:
        raise ValidationError(f"The Extra Roll system must include a mechanism, such as a lock-out button, that "
                              f"prevents an Extra Roll after \u201cno more bets\u201d (§ {found.clause}(2)): confirm "
                              "it has one.")
    return EquipmentApproval.objects.create(
        facility=facility, kind=found.code, device=device.strip()[:200], bureau=found.bureau,
        reference=reference.strip()[:120], approved_on=approved_on, bears_logo=bears_logo, has_lockout=has_lockout,
        recorded_by=user)


@transaction.atomic
@acts_as_user
def approval_withdraw(*, approval: EquipmentApproval, withdrawn_on: date, reason: str, user: Any
                      ) -> ApprovalWithdrawal:
    """The approval is no longer in force from ``withdrawn_on``; tables needing the device are flagged."""
    require_capability(user, Capability.RECORD_EQUIPMENT_APPROVALS)
    require_at_facility(user, approval.facility)
    if ApprovalWithdrawal.objects.filter(approval=approval).exists():
        raise ValidationError("That approval was already withdrawn.")
    if not reason.strip():
        raise ValidationError("Say why the approval is withdrawn (the Bureau's letter, the device taken out of use).")
    _day(withdrawn_on, approval.facility, "withdrawal")
    if withdrawn_on < approval.approved_on:
        raise ValidationError(f"An approval is withdrawn on or after the day it was given "
                              f"({approval.approved_on:%-d %b %Y}).")
    return ApprovalWithdrawal.objects.create(facility=approval.facility, approval=approval, withdrawn_on=withdrawn_on,
                                             reason=reason.strip()[:300], recorded_by=user)
