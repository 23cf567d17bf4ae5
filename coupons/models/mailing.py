"""Coupons mailed to patrons by a gaming service provider, § 525.21(q).

* :class:`MailingProvider`: the register of the gaming service providers the facility authorizes to print and
  mail its coupons (q) — its *mailing providers*, not the register of chapter 528's certified gaming related
  gaming service providers (``compliance.providers``).
* :class:`MailingCampaign`: one mailing — the provider, the series, the patron list — released to the
  provider by a marketing supervisor (the list of (q)(2), sent electronically) and received by finance,
  which keeps it for reconciliation ((q)(4)). It is screened against the exclusion lists before release
  ((q)(7)); an excluded patron is never exported.
* :class:`MailingRecipient`: a patron of the list as uploaded (never changed).
* :class:`MailingListFile` and :class:`MailingListImport`: the patron list as uploaded (its bytes, kept) and its
  reading into recipients by a Celery job (200,000 patrons are not read inside a web request).
* :class:`MailingScreening`: a request to screen the list, run as a Celery job, with its outcome.
* :class:`MailedCoupon`: the serial mailed to a patron, written when the campaign is released — the
  coupons move from marketing's hands to *distributed* (mailed) in the ledger at that moment.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from compliance.bounds import COUNT, SERIAL, TOTAL
from compliance.models import AppendOnly, AuditedModel, Job, Meaning, SignatureRequirement
from compliance.roles import Role
from coupons.models._common import FINANCE, marketing_supervisor_slot
from coupons.models.documents import CouponDocument
from coupons.models.program import CouponSeries

__all__ = [
    "MailedCoupon",
    "MailingCampaign",
    "MailingListFile",
    "MailingListImport",
    "MailingProvider",
    "MailingRecipient",
    "MailingScreening",
]


class MailingProvider(AuditedModel):
    """A mailing provider: a gaming service provider the facility authorizes to print and mail its coupons,
    § 525.21(q)."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    name = models.CharField(max_length=150)
    certificate_number = models.CharField(max_length=60, help_text="The provider's Board certification or "
                                                                   "registration number")
    contact = models.CharField(max_length=200, blank=True, help_text="Who receives the patron lists, and how")
    active = models.BooleanField(default=True)
    added_at = models.DateTimeField(default=timezone.now)
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["facility", "name"], name="coupon_provider_name_unique")]

    def __str__(self) -> str:
        return f"{self.name} ({self.certificate_number})"


class MailingCampaign(CouponDocument):
    """A mailing of Match Play Coupons by a gaming service provider, § 525.21(q)."""

    citation = "525.21(q)"
    kind_label = "Mailing"
    url_name = "coupons:mailing-detail"
    # The release is signed by releasing (its form checks the screening, the marketing day and the stock
    # first, then writes the serials and signs): never on the common signing page. Finance receives the list
    # only once it was released (q)(4).
    signature_requirements = (
        dataclasses.replace(
            marketing_supervisor_slot("released", Meaning.AUTHORIZED, "Marketing supervisor releasing the patron list "
                                      "to the provider", "525.21(q)(2)"),
            action="Release and sign", action_form="coupons:mailing-detail#release",
        ),
        SignatureRequirement(
            "list_received", Meaning.RECEIVED, "Finance member receiving the list for reconciliation",
            roles=frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR}), departments=FINANCE,
            citation="525.21(q)(4)", after="released",
        ),
    )
    name = models.CharField(max_length=150, help_text="The promotion, e.g. 'Winter players' mailer'")
    provider = models.ForeignKey(MailingProvider, on_delete=models.PROTECT, related_name="campaigns")
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    # Set by the release, just before its signature (which vouches for it); empty while a draft.
    released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-gaming_date", "-pk"]

    def get_absolute_url(self) -> str:
        return reverse("coupons:mailing-detail", args=[self.pk])

    @property
    def is_released(self) -> bool:
        return self.released_at is not None

    @classmethod
    def still_awaited(cls, pending: models.QuerySet[Any]) -> models.QuerySet[Any]:
        """A mailing whose patron list was refused is never released (the list is uploaded again as a new
        mailing): no one waits to sign it."""
        return pending.exclude(list_import__status=MailingListImport.Status.FAILED)


class MailingRecipient(AppendOnly, AuditedModel):
    """A patron of a mailing's list, as uploaded; screened by ``key`` (the patron's club number)."""

    append_only_what = "Patron lists"
    facility_through = "campaign"

    campaign = models.ForeignKey(MailingCampaign, on_delete=models.PROTECT, related_name="recipients")
    key = models.CharField(max_length=60, help_text="The patron's club number (or the list's own identifier)")
    full_name = models.CharField(max_length=300)
    date_of_birth = models.DateField(null=True, blank=True)
    address = models.CharField(max_length=200)
    city = models.CharField(max_length=100)
    state = models.CharField(max_length=2)
    zip_code = models.CharField(max_length=10)

    class Meta:
        ordering = ["campaign", "pk"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="coupon_recipient_once")]

    def __str__(self) -> str:
        return self.full_name

    @property
    def one_line_address(self) -> str:
        return f"{self.address}, {self.city}, {self.state} {self.zip_code}"


class MailedCoupon(AppendOnly, AuditedModel):
    """The coupon serial mailed to one patron ((q)(2)(v)); one patron, one coupon, one serial."""

    append_only_what = "Mailed coupons"
    facility_through = "campaign"

    campaign = models.ForeignKey(MailingCampaign, on_delete=models.PROTECT, related_name="coupons")
    recipient = models.OneToOneField(MailingRecipient, on_delete=models.PROTECT, related_name="coupon")
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    serial = models.BigIntegerField(validators=SERIAL.validators)

    class Meta:
        ordering = ["campaign", "serial"]
        constraints = [models.UniqueConstraint(fields=["series", "serial"], name="coupon_mailed_once"),
                       *SERIAL.checks("serial")]

    def __str__(self) -> str:
        return self.series.serial(self.serial)


class MailingScreening(Job):
    """A request to screen a mailing's patron list, run as a Celery job (a list of 100,000 patrons is not
    screened inside a web request): who asked, when it ran, the screening it produced, or why it failed."""

    facility_through = "campaign"  # its changes are its mailing's facility's (compliance.selectors._audit_branches)

    campaign = models.ForeignKey(MailingCampaign, on_delete=models.PROTECT, related_name="screenings")
    run = models.ForeignKey("exclusion.ScreeningRun", on_delete=models.PROTECT, null=True, blank=True,
                            related_name="+")

    class Meta(Job.Meta):
        constraints = [
            # One screening waiting or running per mailing: asking again while it runs is answered with it.
            models.UniqueConstraint(fields=["campaign"], condition=models.Q(status__in=["queued", "running"]),
                                    name="coupon_mailing_one_active_screening"),
        ]

    def __str__(self) -> str:
        return f"Screening of {self.campaign} ({self.get_status_display().lower()})"


class MailingListFile(AppendOnly):
    """The patron list's bytes as marketing uploaded them, kept apart so lists of mailings never load them."""

    append_only_what = "Uploaded patron lists"

    campaign = models.OneToOneField(MailingCampaign, on_delete=models.PROTECT, related_name="list_file")
    name = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField(validators=TOTAL.validators)
    sha256 = models.CharField(max_length=64)
    data = models.BinaryField()

    class Meta:
        constraints = TOTAL.checks("size")

    def __str__(self) -> str:
        return f"{self.name} ({self.size:,} bytes)"


class MailingListImport(Job):
    """Reading the uploaded list into the mailing's recipients, as a Celery job (``compliance.models.Job``): queued,
    running, succeeded (with how many patrons) or failed (with every problem found, in words; nothing of the list is
    then kept as recipients)."""

    facility_through = "campaign"

    campaign = models.OneToOneField(MailingCampaign, on_delete=models.PROTECT, related_name="list_import")
    patrons = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    problems = models.JSONField(default=list, blank=True, help_text="Each problem found, in words")

    class Meta(Job.Meta):
        constraints = COUNT.checks("patrons")

    def __str__(self) -> str:
        return f"Patron list of {self.campaign} ({self.get_status_display().lower()})"
