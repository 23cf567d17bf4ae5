"""The ledger screens, § 525.21(d), (f), (h), (l), (n): the page with running balances, CSV, PDF."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect
from django.views import View
from django.views.generic import TemplateView

from compliance.chain import integrity_cell
from compliance.documents import printed_for
from compliance.exports import csv_response, safe_csv_writer, xlsx_bytes, xlsx_response
from compliance.keyset import keyset_of, stale_link_words
from compliance.times import local
from compliance.views import EchoBuffer, found_or_404
from coupons import forms as f
from coupons import reports, selectors
from coupons.days import today as gaming_today
from coupons.models import (
    CouponState,
)
from coupons.selectors.program import expired_words, held_of_series
from coupons.views._base import CouponPage


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
        keyset, stale, query = keyset_of(self.request.GET, purpose=selectors.LEDGER_CURSOR)
        if stale:
            messages.warning(self.request, stale_link_words("entries"))
        context.update(
            form=form, page=selectors.ledger_page(self.facility, form.filters(), keyset), query=query,
            states=[(selectors.LEDGER_STATE_SHORT[CouponState(s)], str(CouponState(s).label))
                    for s in selectors.LEDGER_STATES],
            expired=self.expired_in_stock(),
        )
        return context

    def expired_in_stock(self) -> list[tuple[Any, str]]:
        """Expired series whose coupons are still with marketing or finance, with what is to be done (§ 525.21(k))."""
        today = gaming_today(self.facility)
        expired = [s for s in selectors.series_of(self.facility) if s.is_expired_on(today)]
        held = held_of_series(expired)
        return [(s, expired_words(s, today, held[s.pk])) for s in expired if s.pk in held]


class LedgerCsvView(LedgerMixin, View):
    title = "Ledger (CSV)"
    extension = "csv"

    def export_rows(self) -> Iterator[list[Any]]:
        """The filtered ledger as the export's rows (the header first), streamed in chunks."""
        rows = selectors.ledger_rows(self.facility, self.filter_form().filters())
        yield ["occurred_at", "gaming_date", "entry", "series", "denomination", "serials", "quantity", "from_state",
               "to_state", "reason", "document", "signed_by", "integrity",
               *[f"balance_{s}" for s in selectors.LEDGER_STATES]]
        for row in rows:
            yield [
                local(row["occurred_at"], self.facility).isoformat(), row["gaming_date"].isoformat(),
                row["kind_label"], row["series_name"], row["denomination"], row["span"], row["quantity"],
                row["from_state"], row["to_state"], row["reason"], row["document_name"], "; ".join(row["signers"]),
                integrity_cell(row["altered"]), *row["balances"],
            ]

    def filename(self) -> str:
        return f"coupon-ledger-{self.facility.code}.{self.extension}"

    def get(self, request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
        writer = safe_csv_writer(EchoBuffer())
        return csv_response(self.filename(), (writer.writerow(row) for row in self.export_rows()))


class LedgerXlsxView(LedgerCsvView):
    """The same rows as an Excel workbook (the counts and balances as numbers)."""

    title = "Ledger (Excel)"
    extension = "xlsx"

    def get(self, request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
        header, *rows = self.export_rows()
        return xlsx_response(self.filename(), xlsx_bytes([], [("", header, rows)], sheet="Coupon ledger"))


class LedgerPdfView(LedgerMixin, View):
    title = "Ledger (PDF)"

    def get(self, request: HttpRequest) -> HttpResponse:
        filters = self.filter_form().filters()
        if not filters.get("date_from") and not filters.get("date_to"):
            today = gaming_today(self.facility)
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
        record = found_or_404(selectors.ledger_document(self.facility, content_type_id, object_id), "document")
        return redirect(record.get_absolute_url())
