"""The audit chain's pages: its verifications, the facility's anchors, a check of the heads the Board holds, and
the evidence bundle with its standalone verifier (issue 21). Read-only: the Board inspector uses every one."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

from django import forms
from django.core.paginator import Paginator
from django.http import FileResponse, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.views import View
from django.views.generic import TemplateView

from compliance import evidence
from compliance.chain import AnchorsUnreadable, anchor_of, facility_anchors, heads_check, read_anchors
from compliance.chain import recent_verifications as verifications
from compliance.evidence.bundle import bundle_name, bundle_plan, bundle_stream
from compliance.forms import BoundedDateField
from compliance.gaming_day import gaming_day
from compliance.roles import Capability
from compliance.views import CapabilityRequiredMixin, found_or_404

__all__ = ["AnchorJsonView", "ChainStatusView", "EvidenceBundleView", "EvidenceView", "VerifierView"]

MAX_HEADS_TEXT = 200_000  # characters of pasted heads: years of anchors
MAX_BUNDLE_DAYS = 92
MAX_BUNDLE_ROWS = 3_000_000  # larger periods: manage.py evidence_bundle, written to a file
VERIFIER = Path(evidence.__file__).resolve().parent / "verify_bundle.py"


class _ChainPage(CapabilityRequiredMixin):
    capability = Capability.VIEW_AUDIT
    citation = "525.21(r)"


class HeadsForm(forms.Form):
    heads = forms.CharField(
        label="Heads you hold", widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
        max_length=MAX_HEADS_TEXT,
        help_text="Paste the JSON attached to an anchor e-mail (one, several, or one a line).",
    )

    def clean_heads(self) -> dict[str, dict[int, tuple[str, str]]]:
        try:
            return read_anchors(self.cleaned_data["heads"])
        except AnchorsUnreadable as error:
            raise forms.ValidationError(str(error)) from None


class ChainStatusView(_ChainPage, TemplateView):
    template_name = "compliance/chain_status.html"
    title = "Audit chain"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        form = HeadsForm(self.request.GET if "heads" in self.request.GET else None)
        checked = heads_check(form.cleaned_data["heads"]) if form.is_bound and form.is_valid() else None
        context.update(
            verifications=verifications(),
            anchors=Paginator(facility_anchors(self.facility), 20).get_page(self.request.GET.get("page")),
            form=form, checked=checked, held_all=checked is not None and all(ok for _, ok, _ in checked),
        )
        return context


class AnchorJsonView(_ChainPage, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        anchor = found_or_404(anchor_of(self.facility, pk), "anchor at this facility")
        response = HttpResponse(anchor.as_json(), content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="anchor-{anchor.facility.code}-{anchor.pk}.json"'
        return response


class PeriodForm(forms.Form):
    first_day = BoundedDateField(label="First gaming day")
    last_day = BoundedDateField(label="Last gaming day")

    def __init__(self, *args: Any, today: date, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.today = today

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        first, last = data.get("first_day"), data.get("last_day")
        if first and last:
            if last < first:
                raise forms.ValidationError("The last gaming day comes before the first: swap them.")
            if last > self.today:
                raise forms.ValidationError(f"The last gaming day is after today's ({self.today:%-d %b %Y}).")
            if (last - first).days >= MAX_BUNDLE_DAYS:
                raise forms.ValidationError(f"A bundle covers at most {MAX_BUNDLE_DAYS} gaming days; choose a shorter "
                                            "period (a quarter is one bundle).")
        return data


class EvidenceView(_ChainPage, TemplateView):
    template_name = "compliance/evidence.html"
    title = "Evidence bundle"

    def form(self, *, bound_always: bool = False) -> PeriodForm:
        today = gaming_day(self.facility)
        bound = self.request.GET if "first_day" in self.request.GET or bound_always else None
        return PeriodForm(bound, today=today, initial={"first_day": today - timedelta(days=7),
                                                       "last_day": today - timedelta(days=1)})

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        form = kwargs.get("form") or self.form()
        plan = bundle_plan(self.facility, form.cleaned_data["first_day"], form.cleaned_data["last_day"]) \
            if form.is_bound and form.is_valid() else None
        too_big = plan is not None and plan.rows > MAX_BUNDLE_ROWS
        context.update(form=form, plan=plan, too_big=too_big, max_rows=MAX_BUNDLE_ROWS,
                       query=self.request.GET.urlencode())
        return context


class EvidenceBundleView(EvidenceView):
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:  # type: ignore[override]
        if not request.GET:  # no period asked for yet: the page that asks for one
            return super().get(request, *args, **kwargs)
        form = self.form(bound_always=True)
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(form=form), status=400)
        plan = bundle_plan(self.facility, form.cleaned_data["first_day"], form.cleaned_data["last_day"])
        if plan.rows > MAX_BUNDLE_ROWS:
            return self.render_to_response(self.get_context_data(form=form), status=400)
        response = StreamingHttpResponse(bundle_stream(plan, user=request.user), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{bundle_name(plan)}"'
        return response


class VerifierView(_ChainPage, View):
    def get(self, request: HttpRequest) -> FileResponse:
        return FileResponse(VERIFIER.open("rb"), as_attachment=True, filename="verify_bundle.py",
                            content_type="text/x-python")
