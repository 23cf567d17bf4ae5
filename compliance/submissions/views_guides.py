"""Pages of the gaming guides (§ 521.9): each game's guide versions, generating one from the rules in force,
sending the sample to the Bureau of Gaming Operations, recording its approval; and the public page, with no
sign-in, of the approved guides that state the rules in force (§ 521.9(f))."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.generic import TemplateView, View

from compliance.models import Facility
from compliance.roles import Capability
from compliance.submissions import documents, forms, selectors, services
from compliance.submissions.models import GamingGuide
from compliance.submissions.views import _pdf
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404

__all__ = ["GuideApprovalView", "GuideGenerateView", "GuidePdfView", "GuideSubmitView", "GuideView", "GuidesView",
           "PublicGuidePdfView", "PublicGuidesView"]

CITATION = ("521.9(a)–(f)",)


def _guide(facility: Facility, pk: Any) -> GamingGuide:
    found = found_or_404(selectors.row_id(pk), "guide")
    return found_or_404(selectors.guides_of(facility).filter(pk=found).first())


class GuidesView(CapabilityRequiredMixin, TemplateView):
    template_name = "submissions/guides.html"
    title = "Gaming guides"
    citation = CITATION

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        rows = selectors.guide_rows(self.facility)
        return super().get_context_data(**kwargs) | {
            "rows": rows, "guides": list(selectors.guides_of(self.facility)),
            "needing": dict(selectors.guides_needing_approval(self.facility, rows))}


class GuideView(CapabilityRequiredMixin, TemplateView):
    template_name = "submissions/guide.html"
    title = "Gaming guide"
    citation = CITATION

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        guide = _guide(self.facility, kwargs["pk"])
        digest = selectors.current_guide_hash(self.facility, guide.game)
        return super().get_context_data(**kwargs) | {
            "guide": guide, "distributable": selectors.guide_distributable(guide, digest),
            "states_rules_in_force": digest == guide.material_hash}


class GuidePdfView(CapabilityRequiredMixin, TemplateView):
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        guide = _guide(self.facility, kwargs["pk"])
        return _pdf(documents.guide_pdf(guide), f"guide-{guide.game.code}-v{guide.version}.pdf")


class _GuideEvent(ServiceFormView):
    capability = Capability.MANAGE_RULES_SUBMISSIONS
    template_name = "submissions/form.html"
    citation = CITATION

    def subject(self) -> Any:
        return _guide(self.facility, self.kwargs["pk"]) if "pk" in self.kwargs else None

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"subject": self.subject()}


class GuideGenerateView(_GuideEvent):
    form_class = forms.GuideForm
    title = "Generate a guide from the rules in force"

    def perform(self, form: Any) -> str:
        guide = services.guide_generate(facility=self.facility, game=form.cleaned_data["game"], user=self.request.user)
        messages.success(self.request, f"Version {guide.version} generated: read it, then send it to the Bureau.")
        return reverse("submissions:guide", args=[guide.pk])


class GuideSubmitView(_GuideEvent):
    form_class = forms.SignatureForm
    title = "Send the sample to the Bureau of Gaming Operations"

    def perform(self, form: Any) -> str:
        guide = self.subject()
        services.guide_submit(guide=guide, user=self.request.user, password=form.cleaned_data["password"])
        messages.success(self.request, "Sent. It is distributed once the Bureau's approval is recorded.")
        return reverse("submissions:guide", args=[guide.pk])


class GuideApprovalView(_GuideEvent):
    form_class = forms.GuideApprovalForm
    title = "Record the Bureau's approval"

    def perform(self, form: Any) -> str:
        guide = self.subject()
        services.guide_approval_record(guide=guide, user=self.request.user, **form.cleaned_data)
        messages.success(self.request, "The Bureau's approval is recorded.")
        return reverse("submissions:guide", args=[guide.pk])


def _facility(code: str) -> Facility:
    return found_or_404(selectors.public_facility(code))


@method_decorator(login_not_required, name="dispatch")
class PublicGuidesView(View):
    """The facility's web page of gaming guides (§ 521.9(f)): no sign-in, only approved guides that state the
    rules in force."""

    def get(self, request: HttpRequest, code: str = "") -> HttpResponse:
        if not code:
            return render(request, "submissions/public_index.html",
                          {"facilities": selectors.public_facilities()})
        facility = _facility(code)
        return render(request, "submissions/public_guides.html",
                      {"facility": facility, "rows": selectors.public_guides(facility)})


@method_decorator(login_not_required, name="dispatch")
class PublicGuidePdfView(View):
    def get(self, request: HttpRequest, code: str, game: str) -> HttpResponse:
        facility = _facility(code)
        guide = next((g for found, g in selectors.public_guides(facility) if found.code == game and g is not None),
                     None)
        guide = found_or_404(guide)
        return _pdf(documents.guide_pdf(guide), f"{facility.code}-{game}-guide.pdf")
