"""Screens of the Match Play Coupon ledger, § 525.21. Views only read selectors and call services."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import date
from typing import Any, ClassVar

from django.contrib import messages
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.views import View
from django.views.generic import FormView, TemplateView

from compliance.documents import printed_for
from compliance.roles import Capability, has_capability
from compliance.views import CapabilityRequiredMixin
from coupons import forms as f
from coupons import reports, selectors, services
from coupons.models import (
    HOLDER_OF_STATE,
    CouponInventory,
    CouponIssuance,
    CouponProgram,
    CouponReceipt,
    CouponRequisition,
    CouponReturn,
    CouponSeries,
    CouponState,
    DeviationReport,
    ExceptionReport,
    FinanceDayProcessing,
    ProgramApproval,
    ReconciliationForm,
    StorageLocation,
    format_cents,
)
from coupons.ranges import parse_serials


def _errors(error: ValidationError | PermissionDenied) -> list[str]:
    if isinstance(error, ValidationError):
        return list(error.messages)
    return [str(error) or "Your role does not allow this."]


def _parse_day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise Http404("Not a date") from None


class CouponPage(CapabilityRequiredMixin):
    """Every coupon screen: a facility, a capability, a title and the clause it implements.

    No default title or clause: each screen declares its own (a default would let a screen show
    another's clause, and the test that every screen declares one could not fail).
    """

    capability = Capability.VIEW_RECORDS
    title: ClassVar[str]
    citation: ClassVar[str | tuple[str, ...]]


class CouponFormView(CouponPage, FormView):
    """A form whose service refusals are shown in the user's words and save nothing."""

    template_name = "coupons/form.html"
    submit_label = "Save"
    intro = ""

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        kwargs["facility"] = self.facility
        return kwargs

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(submit_label=self.submit_label, intro=self.intro, facts=self.facts())
        return context

    def facts(self) -> list[tuple[str, Any]]:
        return []

    def form_valid(self, form: Any) -> HttpResponse:
        try:
            target = self.perform(form)
        except (ValidationError, PermissionDenied) as error:
            for message in _errors(error):
                form.add_error(None, message)
            return self.form_invalid(form)
        return HttpResponseRedirect(target)

    def perform(self, form: Any) -> str:  # pragma: no cover - every form view overrides it
        raise NotImplementedError

    def cosigner(self, form: Any, field: str = "receiver") -> services.CoSigner | None:
        person = form.cleaned_data.get(field)
        if person is None:
            return None
        return services.CoSigner(person, form.cleaned_data.get(f"{field}_password") or "")


# --------------------------------------------------------------------------------------------
# Overview, program, series, storage
# --------------------------------------------------------------------------------------------
class HomeView(CouponPage, TemplateView):
    template_name = "coupons/home.html"
    title = "Match Play Coupons"
    citation = ("525.21(a)", "525.21(d)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        totals = selectors.state_totals(self.facility)
        today = timezone.localdate()
        series = list(CouponSeries.objects.filter(facility=self.facility).select_related("program"))
        approvals = services.facility_approvals(self.facility.pk, today)  # once, not once per series
        context.update(
            states=[(s, str(CouponState(s).label)) for s in selectors.LEDGER_STATES],
            totals=[(format_cents(d), [row[s] for s in selectors.LEDGER_STATES]) for d, row in sorted(totals.items())],
            series=[(s, services.program_gate_refusals(s, today, approvals=approvals)) for s in series],
            today=today,
        )
        return context


class ProgramView(CouponPage, TemplateView):
    template_name = "coupons/program.html"
    title = "Coupon program: approvals, series and storage"
    citation = ("525.21(b)", "525.21(c)", "525.21(i)", "525.21(p)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(
            programs=CouponProgram.objects.all(),
            approvals=ProgramApproval.objects.filter(facility=self.facility)
            .select_related("program", "series").prefetch_related("signatures"),
            series=CouponSeries.objects.filter(facility=self.facility).select_related("program"),
            locations=StorageLocation.objects.filter(facility=self.facility),
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
        series = get_object_or_404(CouponSeries.objects.select_related("program").prefetch_related("games"),
                                   pk=kwargs["pk"], facility=self.facility)
        today = timezone.localdate()
        page, ranges = selectors.series_ranges(series, self.request.GET.get("page"))
        context.update(
            series=series, ranges=ranges, page=page, holders=HOLDER_OF_STATE,
            refusals=services.program_gate_refusals(series, today), expired=series.is_expired_on(today),
        )
        return context


class ExpireView(CouponPage, View):
    capability = Capability.PROCESS_FINANCE_DAY
    citation = "525.21(k)"
    title = "Take expired coupons out of circulation"

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        series = get_object_or_404(CouponSeries, pk=pk, facility=self.facility)
        try:
            expiry = services.stock_expire(series=series, user=request.user)
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            messages.success(request, f"{expiry.quantity:,} expired coupons taken out of circulation.")
        return redirect(series.get_absolute_url())


# --------------------------------------------------------------------------------------------
# Finance: receipt, requisition authorization, issuance
# --------------------------------------------------------------------------------------------
class ReceiptCreateView(CouponFormView):
    form_class = f.ReceiptForm
    capability = Capability.RECORD_COUPON_RECEIPT
    title = "Record coupons received"
    citation = ("525.21(e)", "525.21(f)")
    submit_label = "Record in the ledger and sign"
    intro = ("Open and examine the coupons with a member of marketing. Any difference from the invoice is "
             "reported to a finance supervisor and the Bureau of Casino Compliance when you save.")

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        series = data["series"]
        received = (parse_serials(data["received"], series) if data["received"].strip()
                    else [(data["invoice_first_serial"], data["invoice_last_serial"])])
        examiners = [
            (slot, services.CoSigner(data[field], data[f"{field}_password"] or ""))
            for slot, field in (("examined_finance", "examiner_finance"), ("examined_marketing", "examiner_marketing"))
            if data.get(field) is not None
        ]
        receipt = services.receipt_record(
            facility=self.facility, series=series, received_on=data["received_on"], supplier=data["supplier"],
            invoice_number=data["invoice_number"], invoice_quantity=data["invoice_quantity"],
            invoice_first_serial=data["invoice_first_serial"], invoice_last_serial=data["invoice_last_serial"],
            received=received, location=data["location"], user=self.request.user, password=data["password"],
            source=data["source"], examiners=examiners,
        )
        messages.success(self.request, f"Receipt #{receipt.pk} recorded: {receipt.quantity:,} coupons.")
        if receipt.deviation:
            messages.warning(self.request, f"Deviation reported: {receipt.deviation}")
        return receipt.get_absolute_url()


class DocumentDetailView(CouponPage, TemplateView):
    """A coupon document with its ledger lines and signatures."""

    template_name = "coupons/document.html"
    model: type[Any] = CouponReceipt

    def get_object(self) -> Any:
        return get_object_or_404(self.model.objects.prefetch_related("signatures"), pk=self.kwargs["pk"],
                                 facility=self.facility)

    def facts(self, record: Any) -> list[tuple[str, Any]]:
        return []

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        record = self.get_object()
        context.update(record=record, facts=self.facts(record),
                       lines=list(record.ledger_lines().order_by("pk")) if hasattr(record, "ledger_lines") else [],
                       title=str(record))
        return context


class ReceiptDetailView(DocumentDetailView):
    model = CouponReceipt
    title = "Receipt"
    citation = ("525.21(e)", "525.21(f)")

    def facts(self, r: Any) -> list[tuple[str, Any]]:
        report = DeviationReport.objects.filter(receipt=r).first()
        return [
            ("Date received, (f)(1)", f"{r.gaming_date:%d %b %Y}"),
            ("Series", r.series.name),
            ("Quantity and denomination, (f)(2)", f"{r.quantity:,} × {r.series.denomination}"),
            ("First and last serial, (f)(3)", r.series.span(r.first_serial, r.last_serial)),
            ("From", f"{r.supplier} ({r.get_source_display()}), invoice {r.invoice_number}"),
            ("Invoice", f"{r.invoice_quantity:,} coupons, {r.series.span(r.invoice_first_serial, r.invoice_last_serial)}"),
            ("Stored in, (i)", str(r.location)),
            ("Deviation, (e)", r.deviation or "None"),
            ("Deviation report", f"#{report.pk}, {report.get_status_display()}" if report else "—"),
        ]


class RequisitionListView(CouponPage, TemplateView):
    template_name = "coupons/requisitions.html"
    title = "Requisitions"
    citation = ("525.21(g)", "525.21(h)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["requisitions"] = (
            CouponRequisition.objects.filter(facility=self.facility).select_related("program")
            .prefetch_related("signatures", "issuances")[:100]
        )
        return context


class RequisitionCreateView(CouponFormView):
    form_class = f.RequisitionForm
    capability = Capability.REQUISITION_COUPONS
    title = "Requisition coupons"
    citation = "525.21(g)"
    submit_label = "Complete and sign"
    intro = "Your estimate for the gaming day or promotion; a finance supervisor authorizes it."

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        requisition = services.requisition_prepare(
            facility=self.facility, program=data["program"], denomination_cents=int(data["denomination"]),
            quantity=data["quantity"], needed_for=data["needed_for"], promotion=data["promotion"],
            user=self.request.user, password=data["password"],
        )
        messages.success(self.request, f"{requisition} signed. A finance supervisor must now authorize it.")
        return requisition.get_absolute_url()


class RequisitionDetailView(DocumentDetailView):
    model = CouponRequisition
    title = "Requisition"
    citation = "525.21(g)"

    def facts(self, r: Any) -> list[tuple[str, Any]]:
        issued = sum(i.quantity for i in r.issuances.all())
        return [
            ("Date prepared, (g)(1)", f"{r.prepared_on:%d %b %Y}"),
            ("Needed for, (g)(2)", f"{r.needed_for:%d %b %Y}" + (f" — {r.promotion}" if r.promotion else "")),
            ("Denomination and quantity, (g)(3)", f"{r.quantity:,} × {format_cents(r.denomination_cents)}"),
            ("Issued so far", f"{issued:,}"),
        ]

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        record = context["record"]
        outstanding = record.quantity - sum(i.quantity for i in record.issuances.all())
        if record.is_complete and outstanding > 0 and has_capability(self.request.user, Capability.ISSUE_COUPONS):
            context["actions"] = [("Issue coupons against this requisition",
                                   reverse("coupons:issuance-create", args=[record.pk]))]
        context["related"] = [(str(i), i.get_absolute_url()) for i in record.issuances.all()]
        return context


class IssuanceCreateView(CouponFormView):
    form_class = f.IssuanceForm
    capability = Capability.ISSUE_COUPONS
    title = "Issue coupons to marketing"
    citation = "525.21(h)"
    submit_label = "Record in the ledger and sign"
    intro = "Record the serials before handing the coupons to the marketing supervisor."

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        facility = getattr(request, "facility", None)
        self.requisition = get_object_or_404(CouponRequisition, pk=kwargs["pk"], facility=facility)
        return super().dispatch(request, *args, **kwargs)

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        kwargs["requisition"] = self.requisition
        return kwargs

    def get_initial(self) -> dict[str, Any]:
        # Pre-fill with the lowest serials in finance stock of a matching series.
        from coupons.models import CouponRange

        row = CouponRange.objects.filter(
            facility=self.facility, state=CouponState.IN_STOCK, closed_by__isnull=True,
            series__denomination_cents=self.requisition.denomination_cents,
            series__expires_on__gte=self.requisition.needed_for,
        ).select_related("series").order_by("series__expires_on", "first_serial").first()
        if row is None:
            return {}
        last = min(row.last_serial, row.first_serial + self.requisition.quantity - 1)
        return {"series": row.series, "serials": f"{row.first_serial}-{last}"}

    def facts(self) -> list[tuple[str, Any]]:
        r = self.requisition
        return [("Requisition", str(r)), ("Status", "Authorized" if r.is_complete else "NOT authorized yet")]

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        series = data["series"]
        issued = parse_serials(data["serials"], series) if data["serials"].strip() else []
        voids = []
        if data["void_serials"].strip():
            voids.append((parse_serials(data["void_serials"], series), data["void_reason"]))
        issuance = services.issuance_record(
            requisition=self.requisition, series=series, issued=issued, voids=voids, user=self.request.user,
            password=data["password"], receiver=self.cosigner(form),
        )
        messages.success(self.request, f"Issuance #{issuance.pk} recorded: {issuance.quantity:,} coupons.")
        return issuance.get_absolute_url()


class IssuanceDetailView(DocumentDetailView):
    model = CouponIssuance
    title = "Issuance"
    citation = "525.21(h)"

    def facts(self, r: Any) -> list[tuple[str, Any]]:
        return [
            ("Requisition", str(r.requisition)),
            ("Gaming day", f"{r.gaming_date:%d %b %Y}"),
            ("Denomination and quantity, (h)(2)", f"{r.quantity:,} × {r.series.denomination}"),
            ("Voided, (h)(4)", f"{r.voided_quantity:,}"),
        ]


# --------------------------------------------------------------------------------------------
# Marketing: today, distribution, voids, the reconciliation form, returns
# --------------------------------------------------------------------------------------------
class TodayView(CouponPage, TemplateView):
    template_name = "coupons/today.html"
    title = "Marketing today"
    citation = ("525.21(d)", "525.21(j)", "525.21(k)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        today = timezone.localdate()
        kept = (ReconciliationForm.objects.filter(facility=self.facility, gaming_date__lt=today,
                                                  disposition=ReconciliationForm.Disposition.KEEP)
                .select_related("kept_in").order_by("-gaming_date").first())
        context.update(
            today=today,
            kept=kept,
            held=list(selectors.held_by_marketing(self.facility)),
            expired=selectors.expired_held(self.facility, today),
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
        void = services.void_record(facility=self.facility, series=data["series"], spans=spans,
                                    reason=data["reason"], user=self.request.user, password=data["password"])
        messages.success(self.request, f"{void.quantity:,} coupons voided.")
        return reverse("coupons:today")


class ReconciliationView(CouponFormView):
    """The day's form, pre-filled from the ledger; completing it signs it and closes the marketing day."""

    form_class = f.ReconciliationCompleteForm
    capability = Capability.VIEW_RECORDS
    template_name = "coupons/reconciliation.html"
    title = "Daily Match Play Coupon Reconciliation Form"
    citation = ("525.21(j)", "525.21(k)")
    submit_label = "Complete and sign the form"

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        self.day = _parse_day(kwargs["day"]) if kwargs.get("day") else timezone.localdate()
        return super().dispatch(request, *args, **kwargs)

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        from compliance.roles import require_capability

        require_capability(request.user, Capability.RECONCILE_MARKETING_DAY)
        return super().post(request, *args, **kwargs)

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        self.preview = selectors.reconciliation_preview(self.facility, self.day)
        # A count is asked for each denomination marketing still holds (nothing left: nothing to count).
        kwargs["denominations"] = [(fig.denomination_cents, fig.denomination, fig.remaining)
                                   for fig in self.preview.figures if fig.remaining]
        return kwargs

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(data=self.preview, day=self.day)
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
        form = get_object_or_404(ReconciliationForm, pk=pk, facility=self.facility)
        return redirect("coupons:reconciliation", form.gaming_date.isoformat())


class ReconciliationPdfView(CouponPage, View):
    title = "Reconciliation form (PDF)"
    citation = "525.21(j)"

    def get(self, request: HttpRequest, day: str) -> HttpResponse:
        gaming_date = _parse_day(day)
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
        expired = selectors.expired_held(self.facility, timezone.localdate())
        return [("Expired coupons held by marketing",
                 ", ".join(r.series.span(r.first_serial, r.last_serial) for r in expired) or "None")]

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        document = services.return_record(
            facility=self.facility, user=self.request.user, password=data["password"],
            gaming_date=data["gaming_date"], expired_only=data["what"] == "expired", receiver=self.cosigner(form),
        )
        messages.success(self.request, f"Return #{document.pk}: {document.quantity:,} coupons.")
        return document.get_absolute_url()


class ReturnDetailView(DocumentDetailView):
    model = CouponReturn
    title = "Return"
    citation = "525.21(l)"

    def facts(self, r: Any) -> list[tuple[str, Any]]:
        from coupons.models import LedgerLine

        # (l)(4): the coupons marketing voided that day travel back with the return.
        voids = LedgerLine.objects.filter(facility=r.facility, gaming_date=r.gaming_date, kind="void",
                                          from_state=CouponState.ISSUED).select_related("series")
        return [
            ("Date returned, (l)(1)", f"{r.returned_on:%d %b %Y}"),
            ("Quantity, (l)(3)", f"{r.quantity:,}"),
            ("Voided that day, (l)(4)", "; ".join(f"{v.span} ({v.reason})" for v in voids) or "None"),
            ("Copy of the reconciliation form", f"Form #{r.reconciliation_id}" if r.reconciliation_id else "—"),
        ]


# --------------------------------------------------------------------------------------------
# Finance daily processing, inventory, reports
# --------------------------------------------------------------------------------------------
class ProcessView(CouponFormView):
    form_class = f.ProcessForm
    capability = Capability.PROCESS_FINANCE_DAY
    title = "Finance daily processing"
    citation = "525.21(m)"
    submit_label = "Reconcile, cancel and sign"
    intro = ("Count and examine the returned, voided and redeemed coupons, review the signatures, then sign: "
             "voided and redeemed coupons are cancelled and returned coupons go back to stock.")

    def get_initial(self) -> dict[str, Any]:
        day = self.request.GET.get("day")
        return {"gaming_date": _parse_day(day) if day else timezone.localdate()}

    def facts(self) -> list[tuple[str, Any]]:
        day = self.get_initial()["gaming_date"]
        figures = services.day_figures(self.facility, day)
        pending = selectors.state_totals(self.facility)
        return [
            ("Gaming day", f"{day:%a %d %b %Y}"),
            *[(f"{fig.denomination}", f"given to marketing {fig.to_distribute:,} = returned {fig.returned:,} + voided "
                                      f"{fig.voided:,} + distributed {fig.distributed:,} + kept {fig.remaining:,}")
              for fig in figures],
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
            ("What differs", getattr(ExceptionReport.objects.filter(processing=p).first(), "description", "—")),
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
        self.expected = services.expected_inventory(self.facility)
        from coupons import ranges

        kwargs["expected"] = [(s, ranges.describe(s, spans)) for s, spans in self.expected.items()]
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
        return get_object_or_404(
            CouponInventory.objects.prefetch_related("signatures", "counts__series"), pk=self.kwargs["pk"],
            facility=self.facility,
        )


class ReportsView(CouponPage, TemplateView):
    template_name = "coupons/reports.html"
    title = "Deviation and exception reports"
    citation = ("525.21(e)", "525.21(m)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(
            today=timezone.localdate(),
            exceptions=ExceptionReport.objects.filter(facility=self.facility)
            .select_related("resolved_by__profile", "processing")[:100],
            deviations=DeviationReport.objects.filter(facility=self.facility).select_related("receipt__series")[:100],
            resolve_form=f.ResolveForm(),
        )
        return context


class ResolveView(CouponPage, View):
    # Who may resolve depends on the kind of report; the services check it (exceptions: compliance
    # only, deviations: finance supervisors too).
    capability = Capability.VIEW_RECORDS
    title = "Resolve a report"
    citation = ("525.21(e)", "525.21(m)")

    def post(self, request: HttpRequest, kind: str, pk: int) -> HttpResponse:
        form = f.ResolveForm(request.POST)
        resolution = form.cleaned_data["resolution"] if form.is_valid() else ""
        try:
            if kind == "exception":
                report = get_object_or_404(ExceptionReport, pk=pk, facility=self.facility)
                services.exception_report_resolve(report=report, resolution=resolution, user=request.user)
            elif kind == "deviation":
                deviation = get_object_or_404(DeviationReport, pk=pk, facility=self.facility)
                services.deviation_report_close(report=deviation, resolution=resolution, user=request.user)
            else:
                raise Http404
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            messages.success(request, "Report resolved.")
        return redirect("coupons:reports")


# --------------------------------------------------------------------------------------------
# The ledger
# --------------------------------------------------------------------------------------------
class LedgerMixin(CouponPage):
    citation = ("525.21(d)", "525.21(f)", "525.21(h)", "525.21(l)", "525.21(n)")

    def filter_form(self) -> f.LedgerFilterForm:
        return f.LedgerFilterForm(self.request.GET or None, facility=self.facility)


class LedgerView(LedgerMixin, TemplateView):
    template_name = "coupons/ledger.html"
    title = "Match Play Coupon ledger"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        form = self.filter_form()
        page_param = self.request.GET.get("page")
        page = int(page_param) if page_param and page_param.isdigit() else None
        query = self.request.GET.copy()
        query.pop("page", None)
        context.update(
            form=form, page=selectors.ledger_page(self.facility, form.filters(), page), query=query.urlencode(),
            states=[str(CouponState(s).label) for s in selectors.LEDGER_STATES],
        )
        return context


class _Echo:
    def write(self, value: str) -> str:
        return value


class LedgerCsvView(LedgerMixin, View):
    title = "Ledger (CSV)"

    def get(self, request: HttpRequest) -> StreamingHttpResponse:
        rows = selectors.ledger_rows(self.facility, self.filter_form().filters())
        writer = csv.writer(_Echo())
        states = selectors.LEDGER_STATES

        def lines() -> Iterator[str]:
            yield writer.writerow(["occurred_at", "gaming_date", "entry", "series", "denomination", "serials",
                                   "quantity", "from_state", "to_state", "reason", "document",
                                   *[f"balance_{s}" for s in states]])
            for row in rows:
                yield writer.writerow([
                    timezone.localtime(row["occurred_at"]).isoformat(), row["gaming_date"].isoformat(),
                    row["kind_label"], row["series_name"], row["denomination"], row["span"], row["quantity"],
                    row["from_state"], row["to_state"], row["reason"], f"{row['document_type_id']}:{row['document_id']}",
                    *row["balances"],
                ])

        response = StreamingHttpResponse(lines(), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="coupon-ledger-{self.facility.code}.csv"'
        return response


class LedgerPdfView(LedgerMixin, View):
    title = "Ledger (PDF)"

    def get(self, request: HttpRequest) -> HttpResponse:
        filters = self.filter_form().filters()
        if not filters.get("date_from") and not filters.get("date_to"):
            today = timezone.localdate()
            filters = {**filters, "date_from": today.replace(day=1), "date_to": today}
        pdf = reports.ledger_pdf(
            self.facility, filters, selectors.ledger_rows(self.facility, filters), printed_for=printed_for(self.request.user)
        )
        response = HttpResponse(pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="coupon-ledger-{self.facility.code}.pdf"'
        return response


class DocumentRedirectView(CouponPage, View):
    """A ledger line's document, whatever its type."""

    title = "Ledger document"
    citation = "525.21(d)"

    def get(self, request: HttpRequest, content_type_id: int, object_id: int) -> HttpResponse:
        content_type = get_object_or_404(ContentType, pk=content_type_id, app_label="coupons")
        model = content_type.model_class()
        if model is None:
            raise Http404
        record: Any = model._default_manager.filter(Q(pk=object_id), facility=self.facility).first()
        if record is None:
            raise Http404("No such document in this facility")
        return redirect(record.get_absolute_url())
