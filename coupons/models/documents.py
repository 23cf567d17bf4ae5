"""The documents that move coupons from the printer to marketing, § 525.21(e)–(h), (j): receipts,
requisitions, issuances, distributions and voids, on the common :class:`CouponDocument`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse

from compliance.bounds import COUNT, COUNT_FROM_ONE, DENOMINATION, SERIAL
from compliance.models import (
    Meaning,
    RegulatedRecord,
    RegulatedWriteError,
    SignatureRequirement,
)
from compliance.roles import Role
from coupons.models._common import finance_supervisor_slot, format_cents, marketing_supervisor_slot
from coupons.models.ledger import LedgerLine
from coupons.models.program import CouponProgram, CouponSeries, StorageLocation


class CouponDocument(RegulatedRecord):
    """A regulated document that may move coupons; its ledger lines are part of what is signed."""

    gaming_date = models.DateField(db_index=True)

    kind_label: ClassVar[str] = "Document"
    url_name: ClassVar[str] = "coupons:document"

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.kind_label} #{self.pk} ({self.gaming_date:%d %b %Y})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._state.adding and self.corrects_id:
            # A copy of a movement document would carry none of its ledger lines: in the coupon
            # ledger, a mistake is corrected by a compensating movement (void, return, inventory).
            raise RegulatedWriteError(
                f"A {self._meta.verbose_name} is corrected in the ledger by a new movement (a void, a return or "
                f"an inventory count), not by a copy of the document."
            )
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        if self.url_name == "coupons:document":
            return reverse("coupons:ledger") + f"?kind=&serial=&page=1#doc-{self.pk}"
        return reverse(self.url_name, args=[self.pk])

    def ledger_lines(self) -> models.QuerySet[LedgerLine]:
        return LedgerLine.objects.filter(
            document_type=ContentType.objects.get_for_model(type(self)), document_id=self.pk
        ).select_related("series")

    # Lines a document's completing signature writes (a receipt's examination into stock): the
    # signatures' consequence, not what they vouch for, so left out of the signed content (it changed
    # after the last signature and every receipt read as altered since signed).
    lines_after_signing: ClassVar[frozenset[str]] = frozenset()

    def signable_content(self) -> dict[str, Any]:
        content = super().signable_content()
        content["ledger_lines"] = self.content_part("ledger_lines")
        return content

    @classmethod
    def content_parts(cls) -> dict[str, Callable[[list[int]], dict[int, list[list[Any]]]]]:
        """What the signed content reads beyond the row, by its key: for a list of the type's ids, each record's rows
        (its ledger lines; a form's figures, an inventory's counts), read for one record or a page of them alike."""
        return {"ledger_lines": cls._ledger_lines_of}

    @classmethod
    def _ledger_lines_of(cls, ids: list[int]) -> dict[int, list[list[Any]]]:
        lines = LedgerLine.objects.filter(document_type=ContentType.objects.get_for_model(cls), document_id__in=ids)
        return rows_by_record(lines.exclude(kind__in=cls.lines_after_signing).order_by("pk").values_list(
            "document_id", "kind", "series_id", "first_serial", "last_serial", "quantity", "reason"))

    @classmethod
    def read_content_of(cls, records: list[Any]) -> None:
        ids = [record.pk for record in records if record.pk is not None]
        if not ids:
            return
        for key, read in cls.content_parts().items():
            rows = read(ids)
            for record in records:
                record.__dict__.setdefault("_content_read", {})[key] = rows.get(record.pk, [])

    def content_part(self, key: str) -> list[list[Any]]:
        """One part of the signed content: as :meth:`read_content_of` read it for a page (once), else read now."""
        kept = self.__dict__.get("_content_read", {}).pop(key, None)
        if kept is not None:
            return kept
        return self.content_parts()[key]([self.pk]).get(self.pk, []) if self.pk is not None else []


def rows_by_record(rows: Iterable[tuple[Any, ...]]) -> dict[int, list[list[Any]]]:
    """``(record id, *values)`` rows, in their order, as each record's list of values."""
    grouped: dict[int, list[list[Any]]] = defaultdict(list)
    for record_id, *values in rows:
        grouped[record_id].append(values)
    return grouped


class CouponReceipt(CouponDocument):
    """Coupons received from a gaming service provider or printed in house, § 525.21(e)–(f)."""

    citation = "525.21(f)"
    kind_label = "Receipt"
    url_name = "coupons:receipt-detail"
    lines_after_signing = frozenset({"examine"})

    class Source(models.TextChoices):
        PROVIDER = "provider", "Gaming service provider"
        INTERNAL = "internal", "Printed in house, § 525.21(p)"

    # § 525.21(e): at least one finance member and one marketing member open and examine;
    # § 525.21(f): a finance supervisor records. The recorder may also be the finance examiner
    # (the rule asks for two departments, not three people), so "recorded" is not a distinct slot.
    signature_requirements = (
        SignatureRequirement(
            "examined_finance", Meaning.EXAMINED, "Finance department member who opened and examined the coupons",
            departments=frozenset({"finance"}), citation="525.21(e)",
        ),
        SignatureRequirement(
            "examined_marketing", Meaning.EXAMINED, "Marketing department member who opened and examined the coupons",
            departments=frozenset({"marketing"}), citation="525.21(e)",
        ),
        finance_supervisor_slot("recorded", Meaning.RECORDED, "Finance supervisor recording the receipt", "525.21(f)",
                            distinct=False),
    )

    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="receipts")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.PROVIDER)
    supplier = models.CharField(max_length=150, help_text="Gaming service provider, or the in-house print shop")
    invoice_number = models.CharField(max_length=60)
    invoice_quantity = models.PositiveIntegerField(validators=COUNT_FROM_ONE.validators)
    invoice_first_serial = models.BigIntegerField(validators=SERIAL.validators)
    invoice_last_serial = models.BigIntegerField(validators=SERIAL.validators)
    quantity = models.PositiveIntegerField(help_text="Coupons actually received, (f)(2)",
                                           validators=COUNT_FROM_ONE.validators)
    first_serial = models.BigIntegerField(help_text="(f)(3)", validators=SERIAL.validators)
    last_serial = models.BigIntegerField(help_text="(f)(3)", validators=SERIAL.validators)
    location = models.ForeignKey(StorageLocation, on_delete=models.PROTECT, related_name="+")
    custodian = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", help_text="Finance supervisor in control, (i)"
    )
    deviation = models.TextField(blank=True, help_text="How the coupons differ from the invoice, if they do")

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(first_serial__lte=models.F("last_serial")), name="coupon_receipt_serial_order"
            ),
            *COUNT_FROM_ONE.checks("invoice_quantity", "quantity"),
            *SERIAL.checks("invoice_first_serial", "invoice_last_serial", "first_serial", "last_serial"),
        ]


class CouponRequisition(RegulatedRecord):
    """A marketing supervisor's estimate for a gaming day or promotion, § 525.21(g)."""

    citation = "525.21(g)"
    signature_requirements = (
        marketing_supervisor_slot("requisitioned", Meaning.REQUISITIONED, "Marketing supervisor completing the requisition",
                              "525.21(g)(4)"),
        finance_supervisor_slot("authorized", Meaning.AUTHORIZED, "Finance supervisor authorizing the requisition",
                            "525.21(g)(5)"),
    )

    program = models.ForeignKey(CouponProgram, on_delete=models.PROTECT, related_name="+")
    prepared_on = models.DateField(help_text="(g)(1)")
    needed_for = models.DateField(help_text="Gaming day or first day of the promotion, (g)(2)")
    promotion = models.CharField(max_length=150, blank=True)
    denomination_cents = models.PositiveIntegerField(help_text="(g)(3)", validators=DENOMINATION.validators)
    quantity = models.PositiveIntegerField(help_text="(g)(3)", validators=COUNT_FROM_ONE.validators)

    class Meta:
        ordering = ["-needed_for", "-pk"]
        constraints = [
            models.CheckConstraint(condition=models.Q(quantity__gt=0), name="coupon_requisition_quantity"),
            *DENOMINATION.checks("denomination_cents"),
            *COUNT_FROM_ONE.checks("quantity"),
        ]

    def __str__(self) -> str:
        return f"Requisition #{self.pk}: {self.quantity:,} × {format_cents(self.denomination_cents)} for {self.needed_for:%d %b %Y}"

    def get_absolute_url(self) -> str:
        return reverse("coupons:requisition-detail", args=[self.pk])

    @property
    def denomination(self) -> str:
        return format_cents(self.denomination_cents)

    @property
    def cancellation_or_none(self) -> RequisitionCancellation | None:
        return getattr(self, "cancellation", None)

    @classmethod
    def still_awaited(cls, pending: models.QuerySet[Any]) -> models.QuerySet[Any]:
        """A cancelled requisition awaits no one's authorization."""
        return pending.filter(cancellation__isnull=True)

    def after_signature(self, signature: Any) -> None:
        """Signed from the common signing page too: a cancelled requisition is not authorized (the refusal rolls
        the signature back)."""
        cancellation = RequisitionCancellation.objects.filter(requisition_id=self.pk).first()
        if cancellation is not None:
            raise ValidationError(
                f"Requisition #{self.pk} was cancelled on {cancellation.cancelled_on:%-d %b %Y} "
                f"({cancellation.reason}); there is nothing to sign. Ask marketing for a new requisition."
            )


class RequisitionCancellation(RegulatedRecord):
    """A requisition nothing was issued against, cancelled with the reason, § 525.21(g)–(h).

    The requisition is never changed: like a correction in the ledger, the cancellation is a record of its own,
    linked to it and signed, so the requisition stays readable as it was signed, with why it went no further.
    """

    citation = "525.21(g)"
    signature_requirements = (
        SignatureRequirement(
            "cancelled", Meaning.VOIDED, "Supervisor cancelling the requisition",
            roles=frozenset({Role.MARKETING_SUPERVISOR, Role.FINANCE_SUPERVISOR}),
            departments=frozenset({"finance", "marketing"}), citation="525.21(g)",
        ),
    )

    requisition = models.OneToOneField(CouponRequisition, on_delete=models.PROTECT, related_name="cancellation")
    cancelled_on = models.DateField(help_text="The gaming day it was cancelled")
    reason = models.TextField()

    class Meta:
        ordering = ["-cancelled_on", "-pk"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(reason=""), name="coupon_requisition_cancellation_reason"),
        ]

    def __str__(self) -> str:
        return f"Cancellation of requisition #{self.requisition_id}"

    def get_absolute_url(self) -> str:
        return reverse("coupons:requisition-detail", args=[self.requisition_id])


class CouponIssuance(CouponDocument):
    """Coupons issued by finance to the marketing supervisor against a requisition, § 525.21(h)."""

    citation = "525.21(h)"
    kind_label = "Issuance"
    url_name = "coupons:issuance-detail"
    # (h)(3) names the issuing finance supervisor; the marketing supervisor's receiving signature
    # is our addition: it marks the hand-over and opens the coupons to the reconciliation form.
    signature_requirements = (
        finance_supervisor_slot("issued", Meaning.ISSUED, "Finance supervisor issuing the coupons", "525.21(h)(3)"),
        marketing_supervisor_slot("received", Meaning.RECEIVED, "Marketing supervisor receiving the coupons", "525.21(h)"),
    )

    requisition = models.ForeignKey(CouponRequisition, on_delete=models.PROTECT, related_name="issuances")
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    # None issued is possible: an issuance may only record serials voided, § 525.21(h)(4).
    quantity = models.PositiveIntegerField(validators=COUNT.validators)
    voided_quantity = models.PositiveIntegerField(default=0, validators=COUNT.validators)

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = COUNT.checks("quantity", "voided_quantity")


class CouponDistribution(CouponDocument):
    """Coupons handed to patrons by marketing (by serial range or one scan at a time), § 525.21(d), (j)(4)."""

    citation = "525.21(j)"
    kind_label = "Distribution"
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveIntegerField(validators=COUNT_FROM_ONE.validators)

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = COUNT_FROM_ONE.checks("quantity")

    def get_absolute_url(self) -> str:
        return reverse("coupons:today")


class CouponVoid(CouponDocument):
    """Coupons voided by a supervisor, with the reason, § 525.21(h)(4), (j)(6), (l)(4)."""

    citation = "525.21(j)"
    kind_label = "Void"
    signature_requirements = (
        SignatureRequirement(
            "voided", Meaning.VOIDED, "Supervisor voiding the coupons",
            roles=frozenset({Role.MARKETING_SUPERVISOR, Role.FINANCE_SUPERVISOR}),
            departments=frozenset({"finance", "marketing"}), citation="525.21(j)(6)",
        ),
    )
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveIntegerField(validators=COUNT_FROM_ONE.validators)
    reason = models.TextField()

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(reason=""), name="coupon_void_reason"),
            *COUNT_FROM_ONE.checks("quantity"),
        ]

    def get_absolute_url(self) -> str:
        return reverse("coupons:today")
