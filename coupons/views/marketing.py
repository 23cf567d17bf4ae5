"""Marketing's screens, § 525.21(d), (j)–(l): today, distribution, voids, the reconciliation form, returns."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from compliance.documents import printed_for
from compliance.middleware import SAFE_METHODS
from compliance.roles import Capability, has_capability
from compliance.views import found_or_404
from coupons import forms as f
from coupons import reports, selectors, services
from coupons.days import today as gaming_today
from coupons.models import (
    CouponReturn,
    ReconciliationForm,
    format_cents,
)
from coupons.ranges import parse_serials
from coupons.views._base import CouponFormView, CouponPage, DocumentDetailView, parse_day


class TodayView(CouponPage, TemplateView):
    template_name = "coupons/today.html"
    title = "Marketing today"
    citation = ("525.21(d)", "525.21(j)", "525.21(k)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        today = gaming_today(self.facility)
        kept = selectors.last_kept_form(self.facility, today)
        context.update(
            today=today,
            kept=kept,
            held=list(selectors.held_by_marketing(self.facility)),
            expired=selectors.expired_held(self.facility, today),
            expiring=selectors.expiring_held(self.facility, today),
            preview=selectors.reconciliation_preview(self.facility, today),
            distribution_form=f.DistributionForm(facility=self.facility),
            void_form=f.VoidForm(facility=self.facility),
        )
        return context


class DistributeView(CouponFormView):
    form_class = f.DistributionForm
    capability = Capability.DISTRIBUTE_COUPONS
    title = "Record coupons distributed"
    citation = ("525.21(d)", "525.21(j)")
    submit_label = "Record"

    def perform(self, form: Any) -> str:
        series = form.cleaned_data["series"]
        spans = parse_serials(form.cleaned_data["serials"], series)
        distribution = services.distribution_record(facility=self.facility, series=series, spans=spans,
                                                    user=self.request.user)
        messages.success(self.request, f"{distribution.quantity:,} coupons recorded as distributed.")
        return reverse("coupons:today")


class VoidView(CouponFormView):
    form_class = f.VoidForm
    capability = Capability.RECONCILE_MARKETING_DAY
    title = "Void coupons"
    citation = "525.21(j)"
    submit_label = "Void and sign"

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        spans = parse_serials(data["serials"], data["series"])
        void = services.coupons_void(facility=self.facility, series=data["series"], spans=spans,
                                    reason=data["reason"], user=self.request.user, password=data["password"])
        messages.success(self.request, f"{void.quantity:,} coupons voided.")
        return reverse("coupons:today")


class ReconciliationView(CouponFormView):
    """The day's form, pre-filled from the ledger; completing it signs it and closes the marketing day."""
    # The day's form is a record everyone reads; completing it is marketing's (compliance.navigation.action_page).
    action_page = False

    form_class = f.ReconciliationCompleteForm
    capability = Capability.VIEW_RECORDS
    template_name = "coupons/reconciliation.html"
    title = "Daily Match Play Coupon Reconciliation Form"
    citation = ("525.21(j)", "525.21(k)")
    submit_label = "Complete and sign the form"

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        self.day = parse_day(kwargs["day"]) if kwargs.get("day") else gaming_today(self.facility)
        return super().dispatch(request, *args, **kwargs)

    @classmethod
    def allows(cls, user: Any, method: str = "GET") -> bool:
        """Everyone reads the form; a marketing supervisor completes it, § 525.21(j)(8)."""
        if method in SAFE_METHODS:
            return super().allows(user, method)
        return has_capability(user, Capability.RECONCILE_MARKETING_DAY)

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        self.preview = selectors.reconciliation_preview(self.facility, self.day)
        # A count is asked for each denomination marketing still holds (nothing left: nothing to count).
        kwargs["denominations"] = [(fig.denomination_cents, fig.denomination, fig.remaining)
                                   for fig in self.preview.figures if fig.remaining]
        return kwargs

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(data=self.preview, day=self.day, expiring=selectors.expiring_held(self.facility, self.day))
        return context

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        services.reconciliation_complete(
            facility=self.facility, gaming_date=self.day, counted_remaining=form.counts(),
            variation_explanation=data["variation_explanation"], disposition=data["disposition"],
            kept_in=data["kept_in"], user=self.request.user, password=data["password"],
            receiver=self.cosigner(form),
        )
        messages.success(self.request, f"The reconciliation form for {self.day:%d %b %Y} is signed; the day is closed.")
        return reverse("coupons:reconciliation", args=[self.day.isoformat()])


class ReconciliationDetailView(CouponPage, View):
    title = "Reconciliation form"
    citation = "525.21(j)"

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        form = found_or_404(selectors.document_in(ReconciliationForm, self.facility, pk), "reconciliation form")
        return redirect("coupons:reconciliation", form.gaming_date.isoformat())


class ReconciliationPdfView(CouponPage, View):
    title = "Reconciliation form (PDF)"
    citation = "525.21(j)"

    def get(self, request: HttpRequest, day: str) -> HttpResponse:
        gaming_date = parse_day(day)
        data = selectors.reconciliation_preview(self.facility, gaming_date)
        response = HttpResponse(reports.reconciliation_pdf(data, printed_for=printed_for(request.user)),
                                content_type="application/pdf")
        response["Content-Disposition"] = (
            f'inline; filename="reconciliation-{self.facility.code}-{gaming_date.isoformat()}.pdf"')
        return response


class ReturnCreateView(CouponFormView):
    form_class = f.ReturnForm
    capability = Capability.RETURN_COUPONS
    title = "Return coupons to finance"
    citation = ("525.21(k)", "525.21(l)")
    submit_label = "Return and sign"
    intro = "Expired coupons go back to finance every day. The finance supervisor receiving them signs too."

    def facts(self) -> list[tuple[str, Any]]:
        expired = selectors.expired_held(self.facility, gaming_today(self.facility))
        return [("Expired coupons held by marketing",
                 ", ".join(r.series.span(r.first_serial, r.last_serial) for r in expired) or "None")]

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        spans: dict[Any, Any] | None = None
        if data["what"] == "serials":
            spans = {data["series"]: parse_serials(data["serials"], data["series"])}
        elif data["what"] == "denomination":
            spans = selectors.held_spans_by_series(self.facility, denomination_cents=data["denomination"])
            if not spans:
                raise ValidationError(f"Marketing holds no {format_cents(data['denomination'])} coupons.")
        document = services.return_record(
            facility=self.facility, user=self.request.user, password=data["password"],
            gaming_date=data["gaming_date"], expired_only=data["what"] == "expired", spans=spans,
            receiver=self.cosigner(form),
        )
        messages.success(self.request, f"Return #{document.pk}: {document.quantity:,} coupons.")
        return document.get_absolute_url()


class ReturnDetailView(DocumentDetailView):
    model = CouponReturn
    title = "Return"
    citation = "525.21(l)"

    def facts(self, r: Any) -> list[tuple[str, Any]]:
        # (l)(4): the coupons marketing voided that day travel back with the return.
        voids = selectors.marketing_voids_on(r.facility, r.gaming_date)
        return [
            ("Date returned, (l)(1)", f"{r.returned_on:%d %b %Y}"),
            ("Quantity, (l)(3)", f"{r.quantity:,}"),
            ("Voided that day, (l)(4)", "; ".join(f"{v.span} ({v.reason})" for v in voids) or "None"),
            ("Copy of the reconciliation form", f"Form #{r.reconciliation_id}" if r.reconciliation_id else "—"),
        ]
