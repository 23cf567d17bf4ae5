"""Reads of mailed coupons, § 525.21(q): mailing providers, campaigns, their patron lists and the list released."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet

from compliance.models import Facility
from coupons.models import MailedCoupon, MailingCampaign, MailingListImport, MailingProvider, MailingRecipient

__all__ = ["campaign_in", "campaigns_of", "list_import_of", "mailed_coupons", "mailing_providers_of", "recipients_of"]


def mailing_providers_of(facility: Facility, *, active_only: bool = False) -> QuerySet[MailingProvider]:
    providers = MailingProvider.objects.filter(facility=facility)
    return providers.filter(active=True) if active_only else providers


def campaigns_of(facility: Facility) -> QuerySet[MailingCampaign]:
    return (MailingCampaign.objects.filter(facility=facility).select_related("provider", "series")
            .annotate(patrons=Count("recipients", distinct=True), mailed=Count("coupons", distinct=True))
            .prefetch_related("signatures").order_by("-gaming_date", "-pk"))


def campaign_in(facility: Facility, pk: Any) -> MailingCampaign | None:
    return (MailingCampaign.objects.filter(facility=facility, pk=pk)
            .select_related("provider", "series", "facility").prefetch_related("signatures").first())


def recipients_of(campaign: MailingCampaign) -> list[MailingRecipient]:
    return list(MailingRecipient.objects.filter(campaign=campaign).order_by("pk"))


def mailed_coupons(campaign: MailingCampaign) -> QuerySet[MailedCoupon]:
    """The released list, by serial: what the provider received ((q)(2)) and finance keeps ((q)(4))."""
    return (MailedCoupon.objects.filter(campaign=campaign).select_related("recipient", "series")
            .order_by("serial"))


def list_import_of(campaign: MailingCampaign) -> MailingListImport | None:
    """The reading of the mailing's uploaded list (none for a list read before it was a job)."""
    return MailingListImport.objects.filter(campaign=campaign).first()

