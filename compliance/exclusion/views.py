"""Screens of exclusion-list screening, § 525.21(q)(7): the lists and their age, the import, the runs, and
the compliance officer's review queue with the signed decision."""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

from django.contrib import messages
from django.core.paginator import Paginator
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.exclusion import selectors, services
from compliance.exclusion.business_days import MAX_LIST_AGE_BUSINESS_DAYS
from compliance.exclusion.forms import DecisionForm, ImportForm
from compliance.exclusion.models import ScreeningMatch
from compliance.key_pages import start_asked
from compliance.roles import Capability
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404

__all__ = [
    "ListDetailView",
    "ListImportView",
    "ListsView",
    "MatchDecideView",
    "QueueView",
    "RunDetailView",
    "RunListView",
]


class ExclusionPage(CapabilityRequiredMixin):
    """Every screen of the app: marketing, who mails, and compliance see the lists and the runs."""

    capability = Capability.SCREEN_MAILINGS
    citation: ClassVar[str | tuple[str, ...]] = "525.21(q)(7)"
    title: ClassVar[str]


class ListsView(ExclusionPage, TemplateView):
    template_name = "exclusion/lists.html"
    title = "Exclusion lists"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        today = selectors.facility_today(self.facility)
        context.update(statuses=selectors.list_statuses(self.facility, today), today=today,
                       lists=selectors.lists_of(self.facility)[:50], max_age=MAX_LIST_AGE_BUSINESS_DAYS)
        return context


class ListImportView(ExclusionPage, ServiceFormView):
    form_class = ImportForm
    capability = Capability.IMPORT_EXCLUSION_LISTS
    template_name = "exclusion/import.html"
    title = "Import a Board list"

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        upload = data["file"]
        imported = services.list_import(
            facility=self.facility, kind=data["kind"], board_list_date=data["board_list_date"], data=upload.read(),
            file_name=upload.name or "", user=self.request.user, password=data["password"],
        )
        messages.success(self.request, f"{imported} imported: {imported.row_count:,} entries, now in force.")
        return imported.get_absolute_url()


class ListDetailView(ExclusionPage, TemplateView):
    capability = Capability.IMPORT_EXCLUSION_LISTS
    template_name = "exclusion/list_detail.html"
    title = "Exclusion list"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        imported = found_or_404(selectors.list_in(self.facility, kwargs["pk"]), "list in this facility")
        start, refusal = start_asked(self.request.GET)
        if refusal:
            messages.warning(self.request, refusal)
        context.update(record=imported, page=selectors.entries_page(imported, start))
        return context


class RunListView(ExclusionPage, TemplateView):
    template_name = "exclusion/runs.html"
    title = "Screening runs"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["page"] = Paginator(selectors.runs_of(self.facility), 50).get_page(self.request.GET.get("page"))
        return context


class RunDetailView(ExclusionPage, TemplateView):
    template_name = "exclusion/run_detail.html"
    title = "Screening run"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        run = found_or_404(selectors.run_in(self.facility, kwargs["pk"]), "screening run in this facility")
        context.update(run=run, page=selectors.matches_page(run, self.request.GET.get("page")),
                       excluded=selectors.excluded_keys(run), pending=selectors.pending_keys(run))
        return context


class QueueView(ExclusionPage, TemplateView):
    capability = Capability.DECIDE_SCREENING_MATCHES
    template_name = "exclusion/queue.html"
    title = "Exclusion review queue"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["page"] = Paginator(selectors.pending_matches(self.facility), 25).get_page(self.request.GET.get("page"))
        return context


class MatchDecideView(ExclusionPage, ServiceFormView):
    """A possible match, patron and list entry side by side, and the signed decision."""

    action_page = False  # the match is a record the inspector reads (compliance.navigation.action_page)

    form_class = DecisionForm
    capability = Capability.DECIDE_SCREENING_MATCHES
    template_name = "exclusion/match.html"
    title = "Possible match"

    @cached_property
    def match(self) -> ScreeningMatch:
        found = found_or_404(selectors.match_in(self.facility, self.kwargs["pk"]), "match in this facility")
        return found

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(match=self.match, entry=self.match.entry, decisions=selectors.decisions_of(self.match),
                       decided=selectors.first_decision(self.match))
        return context

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        decision = services.match_decide(match=self.match, decision=data["decision"], reason=data["reason"],
                                         user=self.request.user, password=data["password"])
        messages.success(self.request, f"Decision signed: {decision.get_decision_display()}.")
        return reverse("exclusion:queue")
