"""Mailed coupons, § 525.21(q): mailing providers, a mailing's patron list and screening, its release, the list
sent to the mailing provider (CSV, (q)(2)) and the coupons' proofs with their barcodes (PDF, (q)(3))."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from compliance.documents import printed_for
from compliance.exclusion.selectors import excluded_keys, pending_keys, runs_for
from compliance.exports import csv_response, safe_csv_writer, xlsx_bytes, xlsx_response
from compliance.roles import Capability
from compliance.times import full
from compliance.views import EchoBuffer, ServiceFormView, found_or_404
from coupons import mailing_forms as forms
from coupons.mailing_proofs import PER_PART, proofs_pdf
from coupons.models import MailingCampaign
from coupons.selectors import mailing as reads
from coupons.services.mailing import campaign_create, campaign_release, mailing_provider_register
from coupons.services.mailing_screening import screening_request
from coupons.views._base import CouponFormView, CouponPage, DocumentDetailView

__all__ = ["CampaignCreateView", "CampaignCsvView", "CampaignDetailView", "CampaignProofsView", "CampaignReleaseView",
           "CampaignScreenView", "MailingListView", "MailingProviderCreateView"]


class MailingListView(CouponPage, TemplateView):
    template_name = "coupons/mailings.html"
    title = "Mailed coupons"
    citation = "525.21(q)"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(campaigns=reads.campaigns_of(self.facility),
                                        providers=reads.mailing_providers_of(self.facility), **kwargs)


class MailingProviderCreateView(CouponFormView):
    form_class = forms.MailingProviderForm
    capability = Capability.MANAGE_MAILING_PROVIDERS
    title = "Authorize a mailing provider"
    citation = "525.21(q)"
    submit_label = "Record the mailing provider"

    def perform(self, form: Any) -> str:
        mailing_provider_register(facility=self.facility, user=self.request.user, **form.cleaned_data)
        return reverse("coupons:mailings")


class CampaignCreateView(CouponFormView):
    form_class = forms.CampaignForm
    capability = Capability.MAIL_COUPONS
    title = "New mailing"
    citation = ("525.21(q)(2)", "525.21(q)(7)")
    submit_label = "Upload the list and screen it"
    intro = ("Upload the patron list (CSV: patron_id, first_name, middle_name, last_name, date_of_birth, address, "
             "city, state, zip). Every patron is screened against the Board's self-exclusion and exclusion lists "
             "before the list can go to the mailing provider.")

    def get_form(self, form_class: Any = None) -> Any:
        form = super().get_form(form_class)
        form.fields["provider"].queryset = reads.mailing_providers_of(self.facility, active_only=True)
        return form

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        campaign = campaign_create(facility=self.facility, provider=data["provider"], series=data["series"],
                                   name=data["name"], patron_file=data["patron_file"], user=self.request.user,
                                   file_name=getattr(self.request.FILES.get("patron_file"), "name", "") or "patrons.csv")
        messages.info(self.request, "The list is saved. It is being read and then screened; this page shows each step "
                                    "as it finishes.")
        return campaign.get_absolute_url()


class CampaignDetailView(DocumentDetailView):
    template_name = "coupons/mailing_detail.html"
    model = MailingCampaign
    title = "Mailing"
    citation = ("525.21(q)", "525.21(q)(7)")

    def facts(self, record: Any) -> list[tuple[str, Any]]:
        return [("Mailing provider", str(record.provider)), ("Series", f"{record.series.name} ({record.series.denomination}, "
                                                                f"expires {record.series.expires_on:%-d %b %Y})"),
                ("Patrons on the list", f"{len(reads.recipients_of(record)):,}"),
                ("Released to the mailing provider", full(record.released_at, record.facility) if record.released_at else
                 "Not yet")]

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        record = context["record"]
        run = runs_for(record).first()
        context.update(run=run, screening=record.screenings.first(), list_import=reads.list_import_of(record), pending=len(pending_keys(run)) if run else 0,
                       excluded=len(excluded_keys(run)) if run else 0,
                       mailed=reads.mailed_coupons(record).count(), release_form=forms.ReleaseForm())
        context["parts"] = range(1, math.ceil(context["mailed"] / PER_PART) + 1)
        return context


class _CampaignButton(CouponPage, ServiceFormView):
    button = True
    capability = Capability.MAIL_COUPONS

    def find_records(self) -> None:
        self.campaign = found_or_404(reads.campaign_in(self.facility, self.kwargs["pk"]), "mailing")

    def back_url(self) -> str:
        return self.campaign.get_absolute_url()


class CampaignScreenView(_CampaignButton):
    title = "Screen a mailing"
    citation = "525.21(q)(7)"

    def perform(self, form: Any) -> str:
        screening_request(campaign=self.campaign, user=self.request.user)
        messages.info(self.request, "Screening the list; this page shows the outcome when it is done.")
        return self.back_url()


class CampaignReleaseView(_CampaignButton):
    title = "Release a mailing"
    citation = ("525.21(q)(2)", "525.21(q)(7)")
    form_class = forms.ReleaseForm

    def perform(self, form: Any) -> str:
        campaign_release(campaign=self.campaign, user=self.request.user, password=form.cleaned_data["password"])
        messages.success(self.request, "Released: the list and the proofs are ready for the mailing provider.")
        return self.back_url()


class CampaignCsvView(CouponPage, View):
    """The list of § 525.21(q)(2), sent to the mailing provider electronically and kept by finance ((q)(4))."""

    title = "Mailing list (CSV)"
    citation = ("525.21(q)(2)", "525.21(q)(4)")

    def get(self, request: HttpRequest, pk: int) -> StreamingHttpResponse:
        campaign = found_or_404(reads.campaign_in(self.facility, pk), "mailing")
        found_or_404(campaign if campaign.is_released else None, "list of a mailing not yet released")
        writer = safe_csv_writer(EchoBuffer())
        return csv_response(self.filename(campaign), (writer.writerow(row) for row in self.export_rows(campaign)))

    def export_rows(self, campaign: Any) -> Iterator[list[Any]]:
        """The released list's rows (the header first), streamed in chunks."""
        yield ["patron_name", "address", "city", "state", "zip", "denomination", "expiration_date", "serial"]
        for coupon in reads.mailed_coupons(campaign).iterator(chunk_size=2000):
            r = coupon.recipient
            yield [r.full_name, r.address, r.city, r.state, r.zip_code, coupon.series.denomination,
                   coupon.series.expires_on.isoformat(), coupon.series.serial(coupon.serial)]

    def filename(self, campaign: Any, extension: str = "csv") -> str:
        return f"mailing-{self.facility.code}-{campaign.pk}.{extension}"


class CampaignXlsxView(CampaignCsvView):
    """The same list as an Excel workbook (a serial with leading zeros stays text)."""

    title = "Mailing list (Excel)"

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:  # type: ignore[override]
        campaign = found_or_404(reads.campaign_in(self.facility, pk), "mailing")
        found_or_404(campaign if campaign.is_released else None, "list of a mailing not yet released")
        header, *rows = self.export_rows(campaign)
        return xlsx_response(self.filename(campaign, "xlsx"),
                             xlsx_bytes([], [("", header, rows)], sheet="Mailing list"))


class CampaignProofsView(CouponPage, View):
    title = "Mailing proofs (PDF)"
    citation = ("525.21(q)(3)", "525.21(c)")

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = found_or_404(reads.campaign_in(self.facility, pk), "mailing")
        coupons = reads.mailed_coupons(campaign)
        parts = max(1, math.ceil(coupons.count() / PER_PART))
        asked = request.GET.get("part", "1")
        part = found_or_404(asked if asked.isascii() and asked.isdigit() and 1 <= int(asked) <= parts else None,
                            "part of these proofs")
        start = (int(part) - 1) * PER_PART
        pdf = proofs_pdf(campaign, list(coupons[start:start + PER_PART]), part=int(part), parts=parts,
                         printed_for=printed_for(request.user))
        response = HttpResponse(pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="mailing-{campaign.pk}-proofs-{part}.pdf"'
        return response
