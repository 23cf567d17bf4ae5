"""The register of approved equipment: each device a chapter requires approved before it is used, with the
approving Bureau's reference and date (§ 539.1(b), (d); § 675a.1(c); § 675a.3(b)(2); § 668a.3(b);
§ 575.2(c)(1)–(3)). Append-only: an approval withdrawn is a linked :class:`ApprovalWithdrawal`, never an edit.

What each game needs approved is data (:data:`equipment.approval_kinds.KINDS`); readiness refuses to open a
table, and flags an open one, while a device it needs has no approval in force.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from compliance.models import AppendOnly, AuditedModel

__all__ = ["ApprovalWithdrawal", "EquipmentApproval"]


class EquipmentApproval(AppendOnly, AuditedModel):
    """A Bureau's approval of a device (a model or design) for use at the facility's tables."""

    append_only_what = "Equipment approvals"
    append_only_hint = "; record a withdrawal, or a new approval"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=40, help_text="The device, from equipment.approval_kinds")
    device = models.CharField(max_length=200, help_text="Make, model or design as approved")
    bureau = models.CharField(max_length=120)
    reference = models.CharField(max_length=120, help_text="The Bureau's approval letter or file reference")
    approved_on = models.DateField()
    bears_logo = models.BooleanField(default=False, help_text="The name or logo of the certificate holder is "
                                                              "imprinted or impressed on it")
    has_lockout = models.BooleanField(default=False, help_text="A lock-out that refuses an Extra Roll after "
                                                               "'no more bets'")
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["facility", "kind", "-approved_on", "-pk"]
        constraints = [models.CheckConstraint(condition=~Q(reference=""), name="equipment_approval_reference")]

    def __str__(self) -> str:
        return f"{self.device} approved {self.approved_on:%-d %b %Y} ({self.reference})"


class ApprovalWithdrawal(AppendOnly, AuditedModel):
    """The approval no longer in force from ``withdrawn_on`` (the Bureau withdrew it, or the device left use)."""

    append_only_what = "Withdrawals of equipment approvals"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    approval = models.OneToOneField(EquipmentApproval, on_delete=models.PROTECT, related_name="withdrawal")
    withdrawn_on = models.DateField()
    reason = models.CharField(max_length=300)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    def __str__(self) -> str:
        return f"Withdrawn {self.withdrawn_on:%-d %b %Y}: {self.reason}"
