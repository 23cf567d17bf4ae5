"""Electronic signatures: "the name, signature and Board-issued credential number" of a person.

A signature freezes, as of signing, who signed (printed name, credential number, department,
the role they signed in), what they meant by it, when, and a SHA-256 hash of the record's content.
It is given only through ``compliance.services.signature_sign`` (which re-checks the password) and
is never edited or deleted: the model refuses, and on PostgreSQL a trigger refuses too.

The two-person rule (segregation of duties, § 525.21(r)(2)) is held by the database: a partial
unique index forbids the same signer twice on one record among the slots marked ``distinct``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.urls import reverse
from django.utils import timezone

from compliance.bounds import ROW_ID
from compliance.models.base import AppendOnly, RegulatedQuerySet, SignedRecordError
from compliance.models.chain import Sealed
from compliance.roles import Role

__all__ = ["Meaning", "Signature", "SignatureRequirement", "record_label"]


def record_label(content_type_id: Any) -> str:
    """``app_label.Model`` of a content type id (cached by Django), or a word when it is gone."""
    try:
        model = ContentType.objects.get_for_id(int(content_type_id)).model_class()
    except (ContentType.DoesNotExist, TypeError, ValueError):
        return f"record of unknown type #{content_type_id}"
    return model._meta.label if model is not None else f"record of a removed type #{content_type_id}"


class Meaning(models.TextChoices):
    EXAMINED = "examined", "Examined"
    RECORDED = "recorded", "Recorded"
    PREPARED = "prepared", "Prepared"
    REQUISITIONED = "requisitioned", "Requisitioned"
    AUTHORIZED = "authorized", "Authorized"
    ISSUED = "issued", "Issued"
    RECEIVED = "received", "Received"
    RETURNED = "returned", "Returned"
    COMPLETED = "completed", "Completed"
    COUNTED = "counted", "Counted"
    REVIEWED = "reviewed", "Reviewed"
    VERIFIED = "verified", "Verified"
    PLACED = "placed", "Placed in play"
    REMOVED = "removed", "Removed from play"
    INSPECTED = "inspected", "Inspected"
    APPROVED = "approved", "Approved"
    CORRECTED = "corrected", "Corrected"
    VOIDED = "voided", "Voided"


@dataclass(frozen=True)
class SignatureRequirement:
    """One signature a record needs: who may give it and what it means.

    ``roles`` and ``departments`` are alternatives the signer must satisfy (both, when both are
    given). ``distinct`` slots on one record must be signed by different people.

    A slot *bound to an action* (``action_form`` set: a mailing's release) is signed only by performing that
    action on its own form, which checks what the action needs before the signature is given; the common
    signing page refuses it and links to that form instead (``compliance.services.signature_sign``). A slot
    that depends on the action names it in ``after`` and is not awaited before it.
    """

    slot: str
    meaning: Meaning
    label: str
    roles: frozenset[Role] = field(default_factory=frozenset)
    departments: frozenset[str] = field(default_factory=frozenset)
    distinct: bool = True
    citation: str = ""
    after: str = ""  # a slot that must be signed first (approved after prepared); "" for none
    action: str = ""  # the action that gives the signature, as its form's button says ("Release and sign")
    # The page holding that form: a URL name taking the record's pk, with the form's anchor after "#".
    action_form: str = ""

    @property
    def given_by_action(self) -> bool:
        return bool(self.action_form)

    def action_url(self, record: Any) -> str:
        """Where the action that gives this signature is performed on ``record``."""
        name, _, anchor = self.action_form.partition("#")
        url = reverse(name, args=[record.pk])
        return f"{url}#{anchor}" if anchor else url

    def describe_who(self) -> str:
        parts = []
        if self.roles:
            parts.append(" or ".join(sorted(r.label.lower() for r in self.roles)))
        if self.departments:
            parts.append("a member of the " + " or ".join(sorted(self.departments)).replace("_", " ") + " department")
        return " who is ".join(parts) if parts else "anyone"


class SignatureQuerySet(RegulatedQuerySet["Signature"]):
    pass


class Signature(Sealed, AppendOnly):
    append_only_error = SignedRecordError
    append_only_what = "Signatures"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    content_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    object_id = models.PositiveBigIntegerField(validators=ROW_ID.validators)
    record = GenericForeignKey("content_type", "object_id")
    slot = models.CharField(max_length=40)
    meaning = models.CharField(max_length=20, choices=Meaning.choices)
    signer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="signatures")
    printed_name = models.CharField(max_length=200)
    credential_number = models.CharField(max_length=32)
    department = models.CharField(max_length=100)
    role = models.CharField(max_length=40, choices=Role.choices)
    signed_at = models.DateTimeField(default=timezone.now)
    content_hash = models.CharField(max_length=64)
    distinct_person = models.BooleanField(default=True)
    citation = models.CharField(max_length=60, blank=True)

    objects = SignatureQuerySet.as_manager()

    class Meta:
        ordering = ["signed_at", "pk"]
        indexes = [
            models.Index(fields=["content_type", "object_id"]),
            models.Index(fields=["facility", "signed_at"]),
        ]
        constraints = [
            models.UniqueConstraint(fields=["content_type", "object_id", "slot"], name="signature_one_per_slot"),
            models.UniqueConstraint(
                fields=["content_type", "object_id", "signer"],
                condition=models.Q(distinct_person=True),
                name="signature_two_person_rule",
            ),
            models.CheckConstraint(condition=~models.Q(credential_number=""), name="signature_has_credential"),
            *ROW_ID.checks("object_id"),
        ]

    def __str__(self) -> str:
        return f"{self.get_meaning_display()} by {self.printed_name} ({self.credential_number})"

    @classmethod
    def belongs_to(cls, content: dict[str, Any]) -> str:
        """The record signed, named: "coupons.CouponReceipt #12 (its 'recorded' signature, by Jane Doe)"."""
        return (f"{record_label(content.get('content_type_id'))} #{content.get('object_id')} "
                f"(its '{content.get('slot')}' signature, by {content.get('printed_name')})")

    @property
    def printed(self) -> str:
        """The signature as it reads on documents."""
        local = timezone.localtime(self.signed_at)
        return (
            f"{self.get_meaning_display()}: {self.printed_name}, credential {self.credential_number}, "
            f"{local:%d %b %Y %H:%M} {local.tzname()}"
        )

    def matches_record(self) -> bool:
        """The record still has the content signed, and this signature is as it was given: a content
        hash recomputed and written over the signature's own breaks its seal (the key is not in the
        database)."""
        record = self.record
        return record is not None and record.content_hash() == self.content_hash and self.seal_intact()
