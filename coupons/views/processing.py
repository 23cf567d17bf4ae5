"""Finance's daily processing, the monthly inventory and the reports, § 525.21(e), (m), (n)."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.bounds import EARLIEST_DAY, LATEST_DAY
from compliance.roles import Capability, has_capability
from compliance.views import ServiceFormView, found_or_404
from coupons import forms as f
from coupons import ranges, selectors, services
from coupons.days import today as gaming_today
from coupons.models import (
    CouponInventory,
    CouponSeries,
    FinanceDayProcessing,
    format_cents,
)
from coupons.ranges import parse_serials
from coupons.views._base import CouponFormView, CouponPage, DocumentDetailView, parse_day


def _coupons(n: int, cents: int) -> str:
    return f"{n:,} ({format_cents(n * cents)})"


class ProcessView(CouponFormView):
    # The day's figures are a record the inspector reads; processing is finance's (compliance.navigation.action_page).
    action_page = False
    form_class = f.ProcessForm
    capability = Capability.PROCESS_FINANCE_DAY
    title = "Finance daily processing"
    citation = "525.21(m)"
    submit_label = "Reconcile, cancel and sign"
    intro = ("Count and examine the returned, voided and redeemed coupons of each denomination, review the "
             "signatures, then sign: voided and redeemed coupons are cancelled and returned coupons go back to stock. "
             "A count that differs from the ledger is asked again before it is signed.")
    first_count: dict[int, dict[str, int]] | None = None

    def day(self) -> date:
        """The day processed: the one typed on the form being posted, else the address's, else today."""
        if not hasattr(self, "_day"):
            typed = self.request.POST.get("gaming_date", "") if self.request.method == "POST" else ""
            asked = self.request.GET.get("day")
            self._day = (_read_day(typed) or (parse_day(asked) if asked else None)
                         or gaming_today(self.facility))
        return self._day

    def figures(self) -> tuple[list[Any], dict[int, dict[str, int]], dict[int, Any]]:
        if not hasattr(self, "_figures"):
            day = self.day()
            self._figures = (selectors.day_figures(self.facility, day),
                             selectors.awaiting_processing(self.facility, day),
                             selectors.to_date_by_denomination(self.facility, through=day))
        return self._figures

    def denominations(self) -> list[int]:
        """Those finance counts: the denominations marketing handled that day or with coupons awaiting it."""
        figures, awaiting, _ = self.figures()
        return sorted({fig.denomination_cents for fig in figures} | set(awaiting))

    def get_initial(self) -> dict[str, Any]:
        return {"gaming_date": self.day()}

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        kwargs["denominations"] = self.denominations()
        return kwargs

    def facts(self) -> list[tuple[str, Any]]:
        day = self.day()
        figures, awaiting, to_date = self.figures()
        by_denomination = {fig.denomination_cents: fig for fig in figures}
        voided = selectors.voided_on(self.facility, day)
        lines: list[tuple[str, Any]] = [("Gaming day", f"{day:%a %d %b %Y}")]
        for cents in sorted(set(by_denomination) | set(awaiting) | set(to_date)):
            label = format_cents(cents)
            fig = by_denomination.get(cents)
            if fig is not None:
                lines.append((f"{label} coupons",
                              f"given to marketing {_coupons(fig.to_distribute, cents)} = returned "
                              f"{_coupons(fig.returned, cents)} + voided by marketing {_coupons(fig.voided, cents)} + "
                              f"distributed {_coupons(fig.distributed, cents)} + kept "
                              f"{_coupons(fig.remaining, cents)}"))
            if cents in voided:
                at_finance, by_marketing = voided[cents]
                lines.append((f"{label} voided",
                              f"{at_finance:,} by finance at issuance or in stock (§ 525.21(h)(4): never marketing's), "
                              f"{by_marketing:,} by marketing from what it held (§ 525.21(j)(6))"))
            if cents in awaiting:
                waiting = awaiting[cents]
                lines.append((f"{label} awaiting processing (count these)",
                              f"{waiting['returned']:,} returned, {waiting['voided']:,} voided, "
                              f"{waiting['redeemed']:,} redeemed"))
            if cents in to_date:
                so_far = to_date[cents]
                lines.append((f"{label} to date, (m)(3)",
                              f"given to marketing {so_far.given:,}, distributed {so_far.distributed:,}, "
                              f"redeemed {so_far.redeemed:,}"))
        if not awaiting:
            lines.append(("Awaiting processing", "Nothing"))
        return lines

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        try:
            processing = services.finance_day_process(
                facility=self.facility, user=self.request.user, gaming_date=data["gaming_date"],
                counted=form.counts(), first_count=data["first_count"], count_explanation=data["count_explanation"],
                restock_location=data["restock_location"], notes=data["notes"], password=data["password"])
        except services.CountDiffers as refusal:
            self.first_count = refusal.counts
            raise
        if processing.variance:
            messages.warning(self.request, "A variance was found: an exception report went to internal audit.")
        else:
            messages.success(self.request, "The day reconciles.")
        return processing.get_absolute_url()

    def form_invalid(self, form: Any) -> HttpResponse:
        if self.first_count is not None:
            # The page carries the count just refused, so the next submission is compared with it.
            form.data = form.data.copy()
            form.data[form.add_prefix("first_count")] = f.write_counts(self.first_count)
        return super().form_invalid(form)


def _read_day(value: str) -> date | None:
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return None
    return day if EARLIEST_DAY <= day <= LATEST_DAY else None


class ProcessingDetailView(DocumentDetailView):
    model = FinanceDayProcessing
    title = "Finance daily processing"
    citation = "525.21(m)"

    def facts(self, p: Any) -> list[tuple[str, Any]]:
        lines: list[tuple[str, Any]] = [
            ("Given to marketing", f"{p.given_to_marketing:,}"),
            ("Returned + voided + distributed (ledger) + kept (held by marketing at the day's end)",
             f"{p.returned:,} + {p.voided:,} + {p.distributed:,} + {p.carried_forward:,}"),
        ]
        figures = list(p.figures.all())
        for fig in figures:
            lines += [
                (f"{fig.denomination} coupons",
                 f"given to marketing {fig.given_to_marketing:,} = returned {fig.returned:,} + voided {fig.voided:,} + "
                 f"distributed {fig.distributed:,} + kept {fig.kept:,}"),
                (f"{fig.denomination} counted: returned / voided / redeemed",
                 f"{fig.counted_returned:,} / {fig.counted_voided:,} / {fig.counted_redeemed:,} (the ledger had "
                 f"{fig.awaiting_returned:,} / {fig.awaiting_voided:,} / {fig.awaiting_redeemed:,})"),
                (f"{fig.denomination} to date, (m)(3)",
                 f"given to marketing {fig.given_to_date:,}, distributed {fig.distributed_to_date:,}, redeemed "
                 f"{fig.redeemed_to_date:,}"),
            ]
        if not figures:  # processed before the figures were kept by denomination
            lines += [
                ("Counted: returned / voided / redeemed",
                 f"{p.counted_returned:,} / {p.counted_voided:,} / {p.counted_redeemed:,}"),
                ("Distributed to date vs redeemed to date", f"{p.distributed_to_date:,} vs {p.redeemed_to_date:,}"),
            ]
        return [
            *lines,
            ("Variance", f"{p.variance:,}"),
            ("What differs", getattr(selectors.exception_report_of(p), "description", "—")),
            ("Why finance's count differs", p.count_explanation or "—"),
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
        else:
            messages.success(self.request, f"Inventory #{inventory.pk} recorded: the count agrees with the ledger.")
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
