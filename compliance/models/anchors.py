"""What anchors the chains outside the casino, and what the verifications found.

* :class:`ChainAnchor`: a facility's chain heads (chain, sequence, hash) at one moment — each gaming day
  and each report produced or filed — sent by e-mail to the Board recipients the facility names and to its
  compliance officers, and printed on the report. The Board then holds the truth: a database that no
  longer passes through an anchored head was rewritten, reordered or cut short before it, whoever holds
  the key. Sealed and append-only.
* :class:`ChainAnchorDelivery`: that an anchor's e-mail went, to whom (append-only).
* :class:`ChainVerification`: one verification of the chains (full, daily increment, or against the heads
  the Board holds): what it covered, where each chain stood, what it found. Sealed and append-only; the
  daily increment starts where the last intact one ended.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from compliance.bounds import Bounds
from compliance.models.base import AppendOnly, RegulatedQuerySet
from compliance.models.chain import Sealed

__all__ = ["ChainAnchor", "ChainAnchorDelivery", "ChainVerification", "heads_digest"]

TALLY = Bounds(0, 10**13)  # rows, links and findings a verification went through: a casino's decades


def heads_digest(heads: list[list[Any]]) -> str:
    """SHA-256 of the heads as printed and sent: ``chain:sequence:hash`` lines, sorted."""
    text = "\n".join(f"{chain}:{sequence}:{link_hash}" for chain, sequence, link_hash in sorted(heads))
    return hashlib.sha256(text.encode()).hexdigest()


class ChainAnchorQuerySet(RegulatedQuerySet["ChainAnchor"]):
    pass


class ChainAnchor(Sealed, AppendOnly):
    append_only_what = "Chain anchors"
    append_only_hint = "; anchor the heads again"

    class Reason(models.TextChoices):
        GAMING_DAY = "gaming_day", "End of a gaming day"
        REPORT = "report", "Report produced"
        FILING = "filing", "Report filed with the Board"
        ON_DEMAND = "on_demand", "On demand"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    made_at = models.DateTimeField(default=timezone.now)
    reason = models.CharField(max_length=12, choices=Reason.choices)
    gaming_date = models.DateField(help_text="The gaming day it closes (end of day) or was made on")
    subject = models.CharField(max_length=200, blank=True, help_text="The report it was made for, in words")
    heads = models.JSONField(help_text="[[chain, sequence, link hash], ...]")
    digest = models.CharField(max_length=64, help_text="SHA-256 of the heads (heads_digest)")
    made_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                related_name="+")

    objects = ChainAnchorQuerySet.as_manager()

    class Meta:
        ordering = ["-made_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["facility", "gaming_date"], condition=models.Q(reason="gaming_day"),
                                    name="chain_anchor_once_a_day"),
        ]
        indexes = [models.Index(fields=["facility", "made_at"], name="chain_anchor_facility")]

    def __str__(self) -> str:
        return f"Anchor #{self.pk} of {timezone.localtime(self.made_at):%-d %b %Y %H:%M} ({self.get_reason_display()})"

    @classmethod
    def belongs_to(cls, content: dict[str, Any]) -> str:
        return f"the anchor of facility #{content.get('facility_id')} made {content.get('made_at')}"

    def as_document(self) -> dict[str, Any]:
        """What is sent and what ``verify_audit_chain --anchors`` and the Board's verifier read."""
        return {"format": "pa-table-games-chain-anchor/1", "anchor": self.pk, "facility": self.facility.code,
                "facility_id": self.facility_id, "facility_name": self.facility.name,
                "made_at": self.made_at.isoformat(), "reason": self.reason, "gaming_date": self.gaming_date.isoformat(),
                "subject": self.subject, "heads": self.heads, "digest": self.digest}

    def as_json(self) -> str:
        return json.dumps(self.as_document(), indent=2, sort_keys=True)


class ChainAnchorDelivery(AppendOnly):
    append_only_what = "Anchor deliveries"

    anchor = models.ForeignKey(ChainAnchor, on_delete=models.PROTECT, related_name="deliveries")
    sent_at = models.DateTimeField(default=timezone.now)
    recipients = models.TextField(help_text="The addresses the mail server took, one a line")

    def __str__(self) -> str:
        return f"Anchor #{self.anchor_id} sent {timezone.localtime(self.sent_at):%-d %b %Y %H:%M}"


class ChainVerificationQuerySet(RegulatedQuerySet["ChainVerification"]):
    pass


class ChainVerification(Sealed, AppendOnly):
    append_only_what = "Chain verifications"
    chain_facility: ClassVar[str] = ""  # one chain of their own

    class Mode(models.TextChoices):
        FULL = "full", "Full"
        INCREMENTAL = "incremental", "Daily increment"

    mode = models.CharField(max_length=12, choices=Mode.choices)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(default=timezone.now)
    complete = models.BooleanField(help_text="False: stopped at its time limit before the end")
    intact = models.BooleanField(help_text="Complete and nothing found")
    rows = models.BigIntegerField(default=0, validators=TALLY.validators)
    links = models.BigIntegerField(default=0, validators=TALLY.validators)
    records = models.BigIntegerField(default=0, validators=TALLY.validators)
    anchors = models.BigIntegerField(default=0, validators=TALLY.validators)
    finding_count = models.BigIntegerField(default=0, validators=TALLY.validators)
    findings = models.JSONField(default=list, help_text="The first findings, in words")
    through = models.JSONField(default=dict, help_text="{chain: [sequence, link hash]} verified")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                     related_name="+")

    objects = ChainVerificationQuerySet.as_manager()

    class Meta:
        ordering = ["-finished_at", "-pk"]
        constraints = TALLY.checks("rows", "links", "records", "anchors", "finding_count")

    def __str__(self) -> str:
        verdict = "intact" if self.intact else ("NOT intact" if self.complete else "incomplete")
        return f"{self.get_mode_display()} verification of {timezone.localtime(self.finished_at):%-d %b %Y %H:%M}: {verdict}"

    @classmethod
    def belongs_to(cls, content: dict[str, Any]) -> str:
        return f"the {content.get('mode')} verification finished {content.get('finished_at')}"
