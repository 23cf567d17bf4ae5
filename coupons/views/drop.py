"""The drop-box counts, § 525.21(q)(6): record a count (finance scans the box), its page and its report."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views import View
from django.views.generic import TemplateView

from compliance.documents import printed_for
from compliance.roles import Capability
from compliance.views import found_or_404
from coupons import redemption_forms as forms
from coupons.drop_report import drop_count_pdf
from coupons.models import DropCount
from coupons.selectors import redemption as reads
from coupons.services.drop_count import drop_count_record
from coupons.views._base import CouponFormView, CouponPage, DocumentDetailView

__all__ = ["DropCountCreateView", "DropCountDetailView", "DropCountListView", "DropCountPdfView"]


class DropCountListView(CouponPage, TemplateView):
    template_name = "coupons/drop_counts.html"
    title = "Drop-box counts"
    citation = "525.21(q)(6)"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(counts=reads.drop_counts_of(self.facility), **kwargs)


class DropCountCreateView(CouponFormView):
    form_class = forms.DropCountForm
    capability = Capability.COUNT_DROP_BOXES
    title = "Count a drop box"
    citation = ("525.21(q)(6)", "525.21(m)")
    submit_label = "Record the count"
    intro = ("Scan every Match Play Coupon in the table's drop box. Coupons the table did not cancel are checked as "
             "at the table and cancelled now; everything else is listed as an exception. Sign the count on its page.")

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        count = drop_count_record(facility=self.facility, table=data["table"], gaming_date=data["gaming_date"],
                                  scanned=data["scanned"], user=self.request.user)
        return count.get_absolute_url()


class DropCountDetailView(DocumentDetailView):
    template_name = "coupons/drop_count.html"
    model = DropCount
    title = "Drop-box count"
    citation = ("525.21(q)(6)", "525.21(m)")

    def facts(self, record: Any) -> list[tuple[str, Any]]:
        summary = reads.drop_count_summary(record)
        return [("Table", f"{record.table.number} ({record.table.game.name})"),
                ("Gaming day of the drop", f"{record.gaming_date:%-d %b %Y}"),
                ("Cancelled at the table", summary["at_table"]), ("Cancelled at this count", summary["now"]),
                ("Exceptions", summary["exceptions"])]

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["items"] = reads.drop_count_items(context["record"])
        return context


class DropCountPdfView(CouponPage, View):
    title = "Drop-box count report (PDF)"
    citation = ("525.21(q)(6)", "525.21(m)")

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        count = found_or_404(reads.drop_count_in(self.facility, pk), "drop-box count")
        pdf = drop_count_pdf(count, reads.drop_count_items(count), printed_for=printed_for(request.user))
        response = HttpResponse(pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="drop-count-{self.facility.code}-{count.pk}.pdf"'
        return response
