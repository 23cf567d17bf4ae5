"""Demo data for the register of approved equipment: the Bureaus' approvals of every device the demo's games need
(§ 539.1(b), (d); § 675a.1(c); § 675a.3(b)(2); § 668a.3(b); § 575.2(c)), so the demo's tables wait only on what
the floor does."""

from __future__ import annotations

from datetime import date

from compliance.actors import acts_as_system
from compliance.models import Facility
from compliance.roles import Role
from compliance.selectors import people_holding
from equipment.approval_kinds import KINDS
from equipment.models import EquipmentApproval

__all__ = ["equipment_demo_seed"]


@acts_as_system
def equipment_demo_seed(facility: Facility) -> int:
    """Record each device's approval once; returns how many were added."""
    officer = people_holding(facility, [Role.COMPLIANCE_OFFICER]).first()
    if officer is None:
        return 0
    made = 0
    for number, kind in enumerate(KINDS, start=1):
        if EquipmentApproval.objects.filter(facility=facility, kind=kind.code).exists():
            continue
        EquipmentApproval.objects.create(
            facility=facility, kind=kind.code, device=f"Demo {kind.label.split(' (')[0]}", bureau=kind.bureau,
            reference=f"{'BGLO' if 'Laboratory' in kind.bureau else 'BGO'}-2026-{100 + number}",
            approved_on=date(2026, 1, 15), bears_logo=kind.needs_logo, has_lockout=kind.needs_lockout,
            recorded_by=officer)
        made += 1
    return made
