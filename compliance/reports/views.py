"""Screens of the reports: the catalogue, each report's page for a period, producing a version, the job list
with live progress, a version with its files, signatures and filing, and the downloads.

Every page and file is open to the Board inspector (read-only, enforced centrally); producing, retrying,
signing and filing are not. Views read through selectors and write through services only.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.utils import timezone
from django.views import View
from django.views.generic import RedirectView, TemplateView

from compliance.exports import xlsx_response
from compliance.gaming_day import gaming_day
from compliance.reports import selectors, services
from compliance.reports.charts import chart_svg
from compliance.reports.content import ReportContent
from compliance.reports.forms import FilingForm, ReportPeriodForm
from compliance.reports.models import ReportFile, ReportRun
from compliance.reports.periods import Period
from compliance.reports.registry import ReportKind, all_kinds, kind_of
from compliance.roles import Capability, has_capability, is_inspector
from compliance.stored_files import stored_file_response
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404

PAGE_ROWS = 500  # rows of a section shown on a page; the CSV holds them all
XLSX = "xlsx"  # a version's Excel workbook: made from its stored figures when asked for (services.version_xlsx)


def retired_kind(code: str) -> ReportKind:
    """A report this system no longer produces: its versions stay viewable and downloadable (to the roles that
    run reports, and the inspector); nothing new is produced."""
    def build(facility: Any, period: Period) -> ReportContent:
        raise ValidationError(f"The report {code!r} is no longer produced; its versions are kept.")

    return ReportKind(code=code, title=f"Report {code} (no longer produced)", citations=("525.21(r)(1)",),
                      description="Kept for its versions.", build=build, live=False)


def may_see(user: Any, kind: ReportKind) -> bool:
    return is_inspector(user) or has_capability(user, kind.capability)


def shown(content: ReportContent) -> dict[str, Any]:
    """The content as the page shows it: charts drawn, long sections cut to their first rows."""
    sections = [{"section": s, "rows": s.rows[:PAGE_ROWS], "cut": max(0, len(s.rows) - PAGE_ROWS),
                 "total": len(s.rows)} for s in content.sections]
    return {"content": content, "sections": sections, "charts": [chart_svg(c) for c in content.charts if not c.empty]}


class KindMixin(CapabilityRequiredMixin):
    kwargs: dict[str, Any]

    def find_records(self) -> None:
        kind = found_or_404(kind_of(self.kwargs.get("kind", "")), "report")
        if not may_see(self.request.user, kind):
            raise PermissionDenied("Your role does not give access to this report.")
        self.kind, self.title, self.citation = kind, kind.title, kind.citations


class RunMixin(CapabilityRequiredMixin):
    """A version of a report of this facility that the person may see, or 404 / 403."""

    capability = Capability.VIEW_RECORDS
    kwargs: dict[str, Any]

    def find_records(self) -> None:
        run = found_or_404(selectors.run_in(self.facility, self.kwargs.get("pk")), "report version here")
        kind = kind_of(run.kind) or retired_kind(run.kind)
        if not may_see(self.request.user, kind):
            raise PermissionDenied("Your role does not give access to this report.")
        self.run, self.kind, self.citation = run, kind, kind.citations


class HomeView(CapabilityRequiredMixin, TemplateView):
    template_name = "reports/home.html"
    title = "Reports"
    citation = ("525.21(o)",)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        today = gaming_day(self.facility)
        user = self.request.user
        context["kinds"] = [{"kind": k, "period": k.default_period(today)} for k in all_kinds() if may_see(user, k)]
        visible = {k.code for k in all_kinds() if may_see(user, k)}
        context["runs"] = [r for r in selectors.runs_of(self.facility)[:20] if r.kind in visible]
        context["titles"] = {k.code: k.title for k in all_kinds()}
        return context


class KindView(KindMixin, TemplateView):
    """A report for a period, computed now; the versions produced for that period; producing another."""

    template_name = "reports/kind.html"
    title = "Report"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        default = self.kind.default_period(gaming_day(self.facility))
        data = self.request.GET if "start" in self.request.GET else {"start": default.start, "end": default.end}
        form = ReportPeriodForm(data)
        context.update(kind=self.kind, form=form, title=self.kind.title, citation=self.kind.citations)
        if form.is_valid():
            period = Period(form.cleaned_data["start"], form.cleaned_data["end"])
            refusal = services.period_refusal(self.facility, self.kind, period, gaming_day(self.facility))
            context.update(period=period, refusal=refusal, versions=list(
                selectors.versions_of(self.facility, self.kind.code, period)))
            if not self.kind.live:
                context["not_live"] = True
            elif period.days <= self.kind.max_days:
                context.update(shown(self.kind.build(self.facility, period)))
        return context


class ProduceView(KindMixin, ServiceFormView):
    template_name = "reports/produce.html"
    form_class = ReportPeriodForm
    capability = Capability.RUN_REPORTS
    title = "Produce a report"

    def get_initial(self) -> dict[str, Any]:
        period = self.kind.default_period(gaming_day(self.facility))
        return {"start": self.request.GET.get("start", period.start), "end": self.request.GET.get("end", period.end)}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(kind=self.kind, title=f"Produce: {self.kind.title}",
                                        citation=self.kind.citations, **kwargs)

    def perform(self, form: Any) -> str:
        run = services.run_request(facility=self.facility, kind=self.kind.code, start=form.cleaned_data["start"],
                                   end=form.cleaned_data["end"], user=self.request.user)
        return run.get_absolute_url()


class RunListView(CapabilityRequiredMixin, TemplateView):
    template_name = "reports/runs.html"
    title = "Report jobs"
    citation = ("525.21(o)",)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        user = self.request.user
        visible = [k for k in all_kinds() if may_see(user, k)]
        kind = self.request.GET.get("kind", "")
        status = self.request.GET.get("status", "")
        kind = kind if kind in {k.code for k in visible} else ""
        status = status if status in ReportRun.Status.values else ""
        runs = selectors.runs_of(self.facility, kind=kind, status=status).filter(kind__in=[k.code for k in visible])
        context.update(runs=runs[:200], kinds=visible, statuses=ReportRun.Status.choices, kind=kind, status=status,
                       titles={k.code: k.title for k in all_kinds()})
        return context


class RunView(RunMixin, TemplateView):
    template_name = "reports/run.html"
    title = "Report version"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        run, kind = self.run, self.kind
        period = Period(run.period_start, run.period_end)
        signoff = getattr(run, "signoff", None) if kind.signed else None
        context.update(run=run, kind=kind, period=period, title=f"{kind.title}, version {run.version}",
                       citation=kind.citations, signoff=signoff,
                       files=[f for f in run.files.all() if f.format != ReportFile.Format.DATA],
                       xlsx=run.succeeded,
                       versions=list(selectors.versions_of(self.facility, kind.code, period)),
                       filing=getattr(run, "filing", None),
                       filing_form=FilingForm(initial={"filed_on": timezone.localdate()}) if kind.filed else None)
        if run.succeeded:
            context["stale"] = services.stale_words(run, kind)
            content = selectors.run_content(run)
            context["altered"] = content is None
            if content is not None:
                context.update(shown(content))
        return context


class RunProgressView(CapabilityRequiredMixin, View):
    """The job's state for the progress bar (polled by static/compliance/report-progress.js): one query."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        run = found_or_404(selectors.run_state(self.facility, kwargs.get("pk")), "report version here")
        kind = kind_of(run.kind)
        if kind is not None and not may_see(request.user, kind):
            raise PermissionDenied("Your role does not give access to this report.")
        progress = getattr(run, "progress", None)
        return JsonResponse({
            "status": run.status, "status_label": run.get_status_display(), "active": run.active,
            "percent": progress.percent if progress else (100 if not run.active else 0),
            "stage": progress.stage if progress else "", "error": run.error,
        })


class FileView(RunMixin, View):
    """A file of a version, as produced: refused if its bytes no longer match the SHA-256 recorded."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if kwargs.get("fmt") == XLSX and self.run.succeeded:
            made = services.version_xlsx(self.run)
            if made is None:  # its stored figures were altered: said as for any stored file
                data = found_or_404(selectors.file_of(self.run, ReportFile.Format.DATA), "file of this version")
                return stored_file_response(None, name=data.name, sha256=data.sha256, content_type="", filename="",
                                            stored="when it was produced")
            return xlsx_response(*made)
        file = found_or_404(selectors.file_of(self.run, kwargs.get("fmt", "")), "file of this version")
        return stored_file_response(selectors.file_bytes(file), name=file.name, sha256=file.sha256,
                                    content_type=file.content_type, filename=file.name,
                                    stored="when it was produced")


class RetryView(RunMixin, ServiceFormView):
    """A failed version's Retry button on its page."""

    button = True

    @classmethod
    def allows(cls, user: Any, method: str = "GET") -> bool:
        return has_capability(user, Capability.RUN_REPORTS)

    def back_url(self) -> str:
        return self.run.get_absolute_url()

    def perform(self, form: Any) -> str:
        services.run_retry(run=self.run, user=self.request.user)
        return self.back_url()


class FilingView(RunMixin, ServiceFormView):
    template_name = "reports/filing.html"
    form_class = FilingForm
    capability = Capability.FILE_REPORTS
    title = "Record the filing"

    @classmethod
    def allows(cls, user: Any, method: str = "GET") -> bool:
        return (is_inspector(user) and method == "GET") or has_capability(user, Capability.FILE_REPORTS)

    def get_initial(self) -> dict[str, Any]:
        return {"filed_on": timezone.localdate()}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(run=self.run, kind=self.kind, citation=("525.21(o)",), **kwargs)

    def perform(self, form: Any) -> str:
        services.filing_record(run=self.run, user=self.request.user, **form.cleaned_data)
        return reverse("reports:run", args=[self.run.pk])


class ReportMoved(RedirectView):
    """A period report's old address (an app's own report page, CSV or PDF) sends the person to the report's
    page on the report framework, the period kept."""

    kind = ""
    query_string = True

    def get_redirect_url(self, *args: Any, **kwargs: Any) -> str:
        url = reverse("reports:kind", args=[self.kind])
        query = self.request.META.get("QUERY_STRING", "")
        return f"{url}?{query}" if query else url
