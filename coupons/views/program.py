"""Screens of the coupon program, § 525.21(a)–(c), (i), (p): the overview, approvals, series, storage."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.key_pages import start_asked
from compliance.roles import Capability
from compliance.views import ServiceFormView, found_or_404
from coupons import forms as f
from coupons import selectors, services
from coupons.days import today as gaming_today
from coupons.models import (
    HOLDER_OF_STATE,
    CouponState,
    format_cents,
)
from coupons.selectors.program import expired_words, held_of_series, issue_refusals
from coupons.views._base import CouponFormView, CouponPage


class HomeView(CouponPage, TemplateView):
    template_name = "coupons/home.html"
    title = "Match Play Coupons"
    citation = ("525.21(a)", "525.21(d)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        totals = selectors.state_totals(self.facility)
        today = gaming_today(self.facility)
        series = list(selectors.series_of(self.facility))
        approvals = selectors.facility_approvals(self.facility.pk, today)  # once, not once per series
        held = held_of_series(s for s in series if s.is_expired_on(today))
        context.update(
            # A state a row, a denomination a column: nine states side by side do not fit a laptop's width.
            denominations=[format_cents(d) for d in sorted(totals)],
            by_state=[(str(CouponState(s).label), [totals[d][s] for d in sorted(totals)])
                      for s in selectors.LEDGER_STATES],
            series=[(s, issue_refusals(s, today, approvals=approvals, held=held.get(s.pk, {}))) for s in series],
            today=today,
        )
        return context


class ProgramView(CouponPage, TemplateView):
    template_name = "coupons/program.html"
    title = "Coupon program: approvals, series and storage"
    citation = ("525.21(b)", "525.21(c)", "525.21(i)", "525.21(p)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        today = gaming_today(self.facility)
        series = list(selectors.series_of(self.facility))
        held = held_of_series(s for s in series if s.is_expired_on(today))
        context.update(
            programs=selectors.programs(),
            approvals=selectors.approvals_of(self.facility),
            series=[(s, expired_words(s, today, held.get(s.pk, {}))) for s in series],
            locations=selectors.locations_of(self.facility),
        )
        return context


class ApprovalCreateView(CouponFormView):
    form_class = f.ApprovalForm
    capability = Capability.APPROVE_COUPON_PROGRAM
    title = "Record a program approval"
    citation = ("525.21(b)", "525.21(p)")
    submit_label = "Record and sign"
    intro = "No coupon may be issued or used until its design and the program's internal controls are approved."

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        services.approval_record(
            facility=self.facility, program=data["program"], kind=data["kind"], approved_on=data["approved_on"],
            reference=data["reference"], series=data["series"], notes=data["notes"], user=self.request.user,
            password=data["password"],
        )
        messages.success(self.request, "Approval recorded.")
        return reverse("coupons:program")


class LocationCreateView(CouponFormView):
    form_class = f.LocationForm
    capability = Capability.APPROVE_COUPON_PROGRAM
    title = "Record an approved storage area"
    citation = ("525.21(i)", "525.21(k)")

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        services.location_create(facility=self.facility, user=self.request.user, **data)
        messages.success(self.request, f"{data['name']} recorded.")
        return reverse("coupons:program")


class SeriesCreateView(CouponFormView):
    form_class = f.SeriesForm
    capability = Capability.RECORD_COUPON_RECEIPT
    title = "New coupon series"
    citation = "525.21(c)"
    intro = "What every coupon of the series shows, § 525.21(c)."

    def perform(self, form: Any) -> str:
        data = dict(form.cleaned_data)
        data["denomination_cents"] = data.pop("denomination")
        data["games"] = list(data["games"])
        series = services.series_create(facility=self.facility, user=self.request.user, **data)
        messages.success(self.request, f"{series.name} created. Record its design approval before issuing it.")
        return series.get_absolute_url()


class SeriesDetailView(CouponPage, TemplateView):
    template_name = "coupons/series_detail.html"
    title = "Coupon series"
    citation = ("525.21(c)", "525.21(f)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        series = found_or_404(selectors.series_in(self.facility, kwargs["pk"]), "series")
        today = gaming_today(self.facility)
        start, refusal = start_asked(_without_prefix(self.request.GET, series.serial_prefix))
        if refusal:
            messages.warning(self.request, refusal)
        page, ranges = selectors.series_ranges(series, start)
        context.update(
            series=series, ranges=ranges, page=page, holders=HOLDER_OF_STATE,
            refusals=issue_refusals(series, today), expired=series.is_expired_on(today),
        )
        return context


def _without_prefix(query: Any, prefix: str) -> dict[str, str]:
    """The ``from`` a person typed, as printed ("MA2610-0001234") or as a number: the number."""
    text = str(query.get("from", "")).strip()
    if prefix and text.upper().startswith(prefix.upper()):
        text = text[len(prefix):].lstrip("-")
    return {"from": text}


class ExpireView(CouponPage, ServiceFormView):
    button = True
    capability = Capability.PROCESS_FINANCE_DAY
    citation = "525.21(k)"
    title = "Take expired coupons out of circulation"

    def find_records(self) -> None:
        self.series = found_or_404(selectors.series_in(self.facility, self.kwargs["pk"]), "series")

    def back_url(self) -> str:
        return self.series.get_absolute_url()

    def perform(self, form: Any) -> str:
        expiry = services.stock_expire(series=self.series, user=self.request.user)
        messages.success(self.request, f"{expiry.quantity:,} expired coupons taken out of circulation.")
        return self.back_url()
