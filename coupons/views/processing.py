"""Finance's daily processing, the monthly inventory and the reports, § 525.21(e), (m), (n)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.roles import Capability, has_capability
from compliance.views import ServiceFormView, found_or_404
from coupons import forms as f
from coupons import ranges, selectors, services
from coupons.days import today as gaming_today
from coupons.models import (
    CouponInventory,
    CouponSeries,
    CouponState,
    FinanceDayProcessing,
    format_cents,
)
from coupons.ranges import parse_serials
from coupons.views._base import CouponFormView, CouponPage, DocumentDetailView, parse_day


class ProcessView(CouponFormView):
    # The day's figures are a record the inspector reads; processing is finance's (compliance.navigation.action_page).
    action_page = False
    form_class = f.ProcessForm
    capability = Capability.PROCESS_FINANCE_DAY
    title = "Finance daily processing"
    citation = "525.21(m)"
    submit_label = "Reconcile, cancel and sign"
    intro = ("Count and examine the returned, voided and redeemed coupons, review the signatures, then sign: "
             "voided and redeemed coupons are cancelled and returned coupons go back to stock.")

    def get_initial(self) -> dict[str, Any]:
        day = self.request.GET.get("day")
        return {"gaming_date": parse_day(day) if day else gaming_today(self.facility)}

    def facts(self) -> list[tuple[str, Any]]:
        day = self.get_initial()["gaming_date"]
        figures = selectors.day_figures(self.facility, day)
        pending = selectors.state_totals(self.facility)
        voided = selectors.voided_on(self.facility, day)

        def coupons(n: int, cents: int) -> str:
            return f"{n:,} ({format_cents(n * cents)})"

        return [
            ("Gaming day", f"{day:%a %d %b %Y}"),
            *[(f"{fig.denomination} coupons",
               f"given to marketing {coupons(fig.to_distribute, fig.denomination_cents)} = returned "
               f"{coupons(fig.returned, fig.denomination_cents)} + voided by marketing "
               f"{coupons(fig.voided, fig.denomination_cents)} + distributed "
               f"{coupons(fig.distributed, fig.denomination_cents)} + kept {coupons(fig.remaining, fig.denomination_cents)}")
              for fig in figures],
            *[(f"{format_cents(cents)} voided",
               f"{at_finance:,} by finance at issuance or in stock (§ 525.21(h)(4): never marketing's), "
               f"{by_marketing:,} by marketing from what it held (§ 525.21(j)(6))")
              for cents, (at_finance, by_marketing) in sorted(voided.items())],
            ("Awaiting processing", ", ".join(
                f"{format_cents(d)}: {row[CouponState.RETURNED]:,} returned, {row[CouponState.VOIDED]:,} voided, "
                f"{row[CouponState.REDEEMED]:,} redeemed" for d, row in sorted(pending.items())) or "Nothing"),
        ]

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        processing = services.finance_day_process(facility=self.facility, user=self.request.user, **data)
        if processing.variance:
            messages.warning(self.request, "A variance was found: an exception report went to internal audit.")
        else:
            messages.success(self.request, "The day reconciles.")
        return processing.get_absolute_url()


class ProcessingDetailView(DocumentDetailView):
    model = FinanceDayProcessing
    title = "Finance daily processing"
    citation = "525.21(m)"

    def facts(self, p: Any) -> list[tuple[str, Any]]:
        return [
            ("Given to marketing", f"{p.given_to_marketing:,}"),
            ("Returned + voided + distributed (ledger) + kept (held by marketing at the day's end)",
             f"{p.returned:,} + {p.voided:,} + {p.distributed:,} + {p.carried_forward:,}"),
            ("Counted: returned / voided / redeemed",
             f"{p.counted_returned:,} / {p.counted_voided:,} / {p.counted_redeemed:,}"),
            ("Distributed to date vs redeemed to date", f"{p.distributed_to_date:,} vs {p.redeemed_to_date:,}"),
            ("Variance", f"{p.variance:,}"),
            ("What differs", getattr(selectors.exception_report_of(p), "description", "—")),
            ("Notes", p.notes or "—"),
        ]


class InventoryCreateView(CouponFormView):
    form_class = f.InventoryForm
    capability = Capability.TAKE_COUPON_INVENTORY
    title = "Monthly coupon inventory"
    citation = "525.21(n)"
    submit_label = "Record in the ledger and sign"
    intro = ("Count every coupon not distributed to patrons (finance stock, held by marketing, returned, and the "
             "voided and expired coupons finance still holds).")

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        self.expected = selectors.expected_inventory(self.facility)
        places = selectors.expected_places(self.facility)
        kwargs["expected"] = [
            (s, f"{ranges.describe(s, spans)} — {places[s.pk]}" if places.get(s.pk) else ranges.describe(s, spans))
            for s, spans in self.expected.items()
        ]
        return kwargs

    def perform(self, form: Any) -> str:
        counted: dict[CouponSeries, Any] = {
            series: parse_serials(form.cleaned_data[name], series)
            for name, series in form.series_by_field.items() if form.cleaned_data[name].strip()
        }
        inventory = services.inventory_record(facility=self.facility, counted=counted, user=self.request.user,
                                              password=form.cleaned_data["password"],
                                              counted_on=form.cleaned_data["counted_on"])
        if inventory.discrepancy:
            messages.warning(self.request, "The count differs from the ledger: see the flagged lines.")
        return inventory.get_absolute_url()


class InventoryDetailView(DocumentDetailView):
    model = CouponInventory
    template_name = "coupons/inventory.html"
    title = "Monthly inventory"
    citation = "525.21(n)"

    def get_object(self) -> Any:
        return found_or_404(selectors.inventory_in(self.facility, self.kwargs["pk"]), "inventory")


class ReportsView(CouponPage, TemplateView):
    template_name = "coupons/reports.html"
    title = "Deviation and exception reports"
    citation = ("525.21(e)", "525.21(m)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(
            today=gaming_today(self.facility),
            exceptions=selectors.exception_reports_of(self.facility),
            deviations=selectors.deviation_reports_of(self.facility),
            resolve_form=f.ResolveForm(),
        )
        return context


class ResolveView(CouponPage, ServiceFormView):
    # Who may resolve depends on the kind of report; the services check it (exceptions: compliance
    # only, deviations: finance supervisors too).
    button = True
    capability = Capability.VIEW_RECORDS
    title = "Resolve a report"
    citation = ("525.21(e)", "525.21(m)")
    form_class = f.ResolveForm

    @classmethod
    def allows(cls, user: Any, method: str = "GET") -> bool:
        """Those who may resolve one kind of report or the other; the service decides for the kind."""
        return has_capability(user, Capability.RESOLVE_COUPON_EXCEPTION) or has_capability(
            user, Capability.CLOSE_COUPON_DEVIATION)

    def find_records(self) -> None:
        kind, pk = self.kwargs["kind"], self.kwargs["pk"]
        self.report: Any = found_or_404(
            selectors.exception_report_in(self.facility, pk) if kind == "exception" else
            selectors.deviation_report_in(self.facility, pk) if kind == "deviation" else None, f"{kind} report")

    def back_url(self) -> str:
        return reverse("coupons:reports")

    def perform(self, form: Any) -> str:
        resolution = form.cleaned_data["resolution"]
        if self.kwargs["kind"] == "exception":
            services.exception_report_resolve(report=self.report, resolution=resolution, user=self.request.user)
        else:
            services.deviation_report_close(report=self.report, resolution=resolution, user=self.request.user)
        messages.success(self.request, "Report resolved.")
        return self.back_url()
