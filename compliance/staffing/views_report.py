"""The staffing and surveillance report's screens: the page, its CSV and its PDF (§ 577.9).

Who may run it: the people who run reports (compliance, shift managers, finance supervision, the administrator),
and the Board's inspector, who sees every page; dealers and floorpersons do not.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.documents import printed_for
from compliance.forms import ReportPeriodForm
from compliance.roles import Capability
from compliance.staffing import report_render
from compliance.staffing.report import StaffingReport, staffing_report
from compliance.views import CapabilityRequiredMixin

__all__ = ["ReportCsvView", "ReportPdfView", "ReportView"]


class ReportView(CapabilityRequiredMixin, TemplateView):
    template_name = "staffing/report.html"
    title = "Staffing and surveillance report"
    capability = Capability.RUN_REPORTS
    citation = ("577.9(a)", "577.9(b)", "577.9(c)")

    def get_report(self) -> tuple[ReportPeriodForm, StaffingReport | None]:
        start, end = ReportPeriodForm.default_period(self.facility)
        data = self.request.GET if "start" in self.request.GET else {"start": start, "end": end}
        form = ReportPeriodForm(data)
        if not form.is_valid():
            return form, None
        return form, staffing_report(self.facility, form.cleaned_data["start"], form.cleaned_data["end"])

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["form"], context["report"] = self.get_report()
        return context


class ReportCsvView(ReportView):
    title = "Staffing and surveillance report (CSV)"

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        _form, report = self.get_report()
        if report is None:
            return HttpResponseRedirect(reverse("staffing:report"))
        response = HttpResponse(report_render.report_csv(report), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{report_render.filename(report, "csv")}"'
        return response


class ReportPdfView(ReportView):
    title = "Staffing and surveillance report (PDF)"

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        _form, report = self.get_report()
        if report is None:
            return HttpResponseRedirect(reverse("staffing:report"))
        response = HttpResponse(
            report_render.report_pdf(report, printed_for=printed_for(self.request.user)),
            content_type="application/pdf",
        )
        response["Content-Disposition"] = f'attachment; filename="{report_render.filename(report, "pdf")}"'
        return response
