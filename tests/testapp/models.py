"""Regulated records used to test the foundation: a two-person form and a two-department form."""

from __future__ import annotations

from typing import Any

from django.db import models

from compliance.models import AuditedModel, Meaning, RegulatedRecord, SignatureRequirement, SignedPart
from compliance.roles import Role


class TwoPersonForm(RegulatedRecord):
    """Shaped like a § 525.21(g) requisition: prepared by one supervisor, authorized by another."""

    citation = "525.21(g)"
    signature_requirements = (
        SignatureRequirement(
            "prepared",
            Meaning.REQUISITIONED,
            "Marketing supervisor completing the form",
            roles=frozenset({Role.MARKETING_SUPERVISOR}),
        ),
        SignatureRequirement(
            "authorized",
            Meaning.AUTHORIZED,
            "Finance supervisor authorizing the form",
            roles=frozenset({Role.FINANCE_SUPERVISOR, Role.MARKETING_SUPERVISOR}),
        ),
    )

    note = models.CharField(max_length=200)
    quantity = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"Test form #{self.pk}: {self.note}"

    def signable_content(self) -> dict[str, Any]:
        lines = FormLine.objects.filter(form_id=self.pk).order_by("pk")
        return super().signable_content() | {"lines": [[line.text] for line in lines]}


class FormLine(AuditedModel):
    """A line of a two-person form: part of what its signatures vouch for (like a reconciliation form's figures)."""

    facility_through = "form"
    signed_part_of = SignedPart("form")

    form = models.ForeignKey(TwoPersonForm, on_delete=models.PROTECT, related_name="lines")
    text = models.CharField(max_length=200)

    def __str__(self) -> str:
        return self.text


class ExaminationForm(RegulatedRecord):
    """Shaped like a § 525.21(e) receipt: one finance member and one marketing member examine it."""

    citation = "525.21(e)"
    signature_requirements = (
        SignatureRequirement("finance", Meaning.EXAMINED, "Finance member", departments=frozenset({"finance"})),
        SignatureRequirement("marketing", Meaning.EXAMINED, "Marketing member", departments=frozenset({"marketing"})),
    )

    note = models.CharField(max_length=200)

    def __str__(self) -> str:
        return f"Examination #{self.pk}"
