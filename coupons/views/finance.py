"""Finance's screens, § 525.21(e)–(h): receipts, requisitions, issuance to marketing."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.people import person_name
from compliance.roles import Capability, has_capability
from compliance.services import CoSigner
from compliance.views import found_or_404
from coupons import forms as f
from coupons import selectors, services
from coupons.days import today as gaming_today
from coupons.models import (
    CouponIssuance,
    CouponReceipt,
    CouponRequisition,
    format_cents,
)
from coupons.ranges import parse_issue, parse_serials
from coupons.views._base import CouponFormView, CouponPage, DocumentDetailView


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
            (slot, CoSigner(data[field], data[f"{field}_password"] or ""))
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
        report = selectors.deviation_report_of(receipt)
        if report is not None:  # found now; reported once the mail goes, § 525.21(e)
            messages.warning(self.request, f"Deviation found: {receipt.deviation} The deviation report is "
                                           f"{report.mail_words()} (§ 525.21(e)).")
        return receipt.get_absolute_url()


class ReceiptDetailView(DocumentDetailView):
    model = CouponReceipt
    title = "Receipt"
    citation = ("525.21(e)", "525.21(f)")

    def facts(self, r: Any) -> list[tuple[str, Any]]:
        report = selectors.deviation_report_of(r)
        return [
            ("Date received, (f)(1)", f"{r.gaming_date:%d %b %Y}"),
            ("Series", r.series.name),
            ("Quantity and denomination, (f)(2)", f"{r.quantity:,} × {r.series.denomination}"),
            ("First and last serial, (f)(3)", r.series.span(r.first_serial, r.last_serial)),
            ("From", f"{r.supplier} ({r.get_source_display()}), invoice {r.invoice_number}"),
            ("Invoice", f"{r.invoice_quantity:,} coupons, {r.series.span(r.invoice_first_serial, r.invoice_last_serial)}"),
            ("Stored in, (i)", str(r.location)),
            ("Deviation, (e)", r.deviation or "None"),
            ("Deviation report", f"#{report.pk}, {report.get_status_display().lower()}, {report.mail_words()}"
             if report else "—"),
        ]


class RequisitionListView(CouponPage, TemplateView):
    template_name = "coupons/requisitions.html"
    title = "Requisitions"
    citation = ("525.21(g)", "525.21(h)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["requisitions"] = selectors.requisitions_of(self.facility)
        return context


def _requisition_words(r: CouponRequisition) -> str:
    return f"{r} — {r.program.name}"


class RequisitionCreateView(CouponFormView):
    form_class = f.RequisitionForm
    capability = Capability.REQUISITION_COUPONS
    title = "Requisition coupons"
    citation = "525.21(g)"
    submit_label = "Complete and sign"
    intro = "Your estimate for the gaming day or promotion; a finance supervisor authorizes it."

    def issuable(self) -> list[Any]:
        if not hasattr(self, "_issuable"):
            self._issuable = selectors.issuable_series(self.facility, gaming_today(self.facility))
        return self._issuable

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        kwargs["issuable"] = self.issuable()
        return kwargs

    def facts(self) -> list[tuple[str, Any]]:
        offered = "; ".join(f"{s.program.name} {s.denomination} ({s.name}, expires {s.expires_on:%-d %b %Y})"
                            for s in self.issuable())
        return [("Finance can issue now", offered or "Nothing: no series is approved, unexpired and in finance "
                 "stock (§ 525.21(b), (i)). Ask finance to receive coupons before requisitioning.")]

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        requisition = services.requisition_prepare(
            facility=self.facility, program=data["program"], denomination_cents=int(data["denomination"]),
            quantity=data["quantity"], needed_for=data["needed_for"], promotion=data["promotion"],
            user=self.request.user, password=data["password"],
        )
        messages.success(self.request, f"{requisition} signed. A finance supervisor must now authorize it.")
        return requisition.get_absolute_url()


def _cancellation_words(r: CouponRequisition) -> str:
    cancellation = r.cancellation_or_none
    if cancellation is None:
        return "—"
    return f"{cancellation.cancelled_on:%d %b %Y} by {person_name(cancellation.created_by)}: {cancellation.reason}"


def may_cancel(user: Any, r: CouponRequisition) -> bool:
    """The Cancel action is offered where the service would accept it: nothing issued, not cancelled, and the
    marketing supervisor who completed it or a finance supervisor."""
    if r.cancellation_or_none is not None or r.is_superseded or r.issuances.all():
        return False
    prepared_by = next((sig.signer_id for sig in r.signature_list() if sig.slot == "requisitioned"), None)
    return (prepared_by == user.pk and has_capability(user, Capability.REQUISITION_COUPONS)) or has_capability(
        user, Capability.ISSUE_COUPONS)


class RequisitionDetailView(DocumentDetailView):
    model = CouponRequisition
    title = "Requisition"
    citation = "525.21(g)"

    def get_object(self) -> Any:
        return found_or_404(selectors.requisition_in(self.facility, self.kwargs["pk"]), "requisition")

    def facts(self, r: Any) -> list[tuple[str, Any]]:
        issued = sum(i.quantity for i in r.issuances.all())
        return [
            ("Program", r.program.name),
            ("Date prepared, (g)(1)", f"{r.prepared_on:%d %b %Y}"),
            ("Needed for, (g)(2)", f"{r.needed_for:%d %b %Y}" + (f" — {r.promotion}" if r.promotion else "")),
            ("Denomination and quantity, (g)(3)", f"{r.quantity:,} × {format_cents(r.denomination_cents)}"),
            ("Issued so far", f"{issued:,}"),
            *([("Cancelled", _cancellation_words(r))] if r.cancellation_or_none else []),
        ]

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        record = context["record"]
        context["title"] = _requisition_words(record)
        outstanding = record.quantity - sum(i.quantity for i in record.issuances.all())
        actions = []
        if (record.is_complete and outstanding > 0 and record.cancellation_or_none is None
                and has_capability(self.request.user, Capability.ISSUE_COUPONS)):
            actions.append(("Issue coupons against this requisition",
                            reverse("coupons:issuance-create", args=[record.pk])))
        if may_cancel(self.request.user, record):
            actions.append(("Cancel this requisition", reverse("coupons:requisition-cancel", args=[record.pk])))
        context["actions"] = actions
        context["related"] = [(str(i), i.get_absolute_url()) for i in record.issuances.all()]
        return context


class RequisitionCancelView(CouponFormView):
    """Cancel a requisition nothing was issued against, so no signed requisition waits for ever (§ 525.21(g))."""

    form_class = f.RequisitionCancelForm
    capability = Capability.REQUISITION_COUPONS
    title = "Cancel a requisition"
    citation = ("525.21(g)", "525.21(h)")
    submit_label = "Cancel the requisition and sign"
    intro = ("The requisition stays as it was signed; the cancellation is recorded with it, with your reason, and "
             "nothing can be issued against it any more.")

    @classmethod
    def allows(cls, user: Any, method: str = "GET") -> bool:
        """The marketing supervisor who completed it or a finance supervisor; the service checks which."""
        return has_capability(user, Capability.REQUISITION_COUPONS) or has_capability(user, Capability.ISSUE_COUPONS)

    def find_records(self) -> None:
        self.requisition = found_or_404(selectors.requisition_in(self.facility, self.kwargs["pk"]), "requisition")

    def facts(self) -> list[tuple[str, Any]]:
        r = self.requisition
        return [("Requisition", _requisition_words(r)),
                ("Status", "Cancelled " + _cancellation_words(r) if r.cancellation_or_none else
                 "Authorized" if r.is_complete else "Not authorized yet")]

    def perform(self, form: Any) -> str:
        services.requisition_cancel(requisition=self.requisition, reason=form.cleaned_data["reason"],
                                    user=self.request.user, password=form.cleaned_data["password"])
        messages.success(self.request, f"Requisition #{self.requisition.pk} is cancelled.")
        return self.requisition.get_absolute_url()


class IssuanceCreateView(CouponFormView):
    form_class = f.IssuanceForm
    capability = Capability.ISSUE_COUPONS
    title = "Issue coupons to marketing"
    citation = "525.21(h)"
    submit_label = "Record in the ledger and sign"
    intro = "Record the serials before handing the coupons to the marketing supervisor."

    def find_records(self) -> None:
        self.requisition = found_or_404(selectors.requisition_in(self.facility, self.kwargs["pk"]), "requisition")

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        kwargs["requisition"] = self.requisition
        return kwargs

    def get_initial(self) -> dict[str, Any]:
        # Pre-fill with the lowest serials in finance stock of a matching series, as many as are still to issue.
        r = self.requisition
        outstanding = r.quantity - sum(i.quantity for i in r.issuances.all())
        found = selectors.stock_to_issue(self.facility, r.program_id, r.denomination_cents, r.needed_for, outstanding)
        if found is None:
            return {}
        series, spans = found
        return {"series": series, "serials": ", ".join(f"{first}-{last}" for first, last in spans)}

    def facts(self) -> list[tuple[str, Any]]:
        r = self.requisition
        status = ("CANCELLED " + _cancellation_words(r) if r.cancellation_or_none
                  else "Authorized" if r.is_complete else "NOT authorized yet")
        return [("Requisition", _requisition_words(r)), ("Status", status)]

    def get_form(self, form_class: Any = None) -> Any:
        form = super().get_form(form_class)
        if self.requisition.needed_for >= gaming_today(self.facility):
            del form.fields["needed_date_passed"]  # asked only when the date has passed
        return form

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        series = data["series"]
        today = gaming_today(self.facility)
        if self.requisition.needed_for < today and not data.get("needed_date_passed"):
            raise ValidationError(
                f"Requisition #{self.requisition.pk} was for {self.requisition.needed_for:%-d %b %Y}, which has passed. "
                f"Tick “Issue although the date has passed” to issue against it all the same, or ask marketing for "
                f"a new requisition (§ 525.21(g)(2))."
            )
        issued, voided_inline = parse_issue(data["serials"], series) if data["serials"].strip() else ([], [])
        voids = []
        if voided_inline:
            voids.append((voided_inline, data["void_reason"]))
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
            ("Requisition", _requisition_words(r.requisition)),
            ("Gaming day", f"{r.gaming_date:%d %b %Y}"),
            ("Denomination and quantity, (h)(2)", f"{r.quantity:,} × {r.series.denomination}"),
            ("Voided, (h)(4)", f"{r.voided_quantity:,}"),
        ]


class StockVoidView(CouponFormView):
    """Finance's supervisor voids coupons in finance's stock (§ 525.21(h)(4), (i)): the same service and refusals
    as marketing's voids, which refuse the coupons marketing holds."""

    form_class = f.VoidForm
    capability = Capability.ISSUE_COUPONS
    title = "Void coupons in finance stock"
    citation = ("525.21(h)", "525.21(i)")
    submit_label = "Void and sign"
    intro = ("Coupons not issued to marketing are controlled by a finance supervisor (§ 525.21(i)), who voids them "
             "with the reason. Coupons marketing holds are voided by a marketing supervisor on its day.")

    def facts(self) -> list[tuple[str, Any]]:
        stock = selectors.finance_stock(self.facility)
        return [("In finance stock", "; ".join(f"{r.series.span(r.first_serial, r.last_serial)} ({r.series.name})"
                                               for r in stock) or "Nothing")]

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        spans = parse_serials(data["serials"], data["series"])
        void = services.coupons_void(facility=self.facility, series=data["series"], spans=spans,
                                     reason=data["reason"], user=self.request.user, password=data["password"])
        messages.success(self.request, f"{void.quantity:,} coupons voided in finance stock.")
        return reverse("coupons:stock-void")
