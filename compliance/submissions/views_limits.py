"""Pages of the wager limits (§ 521.7, § 521.8(c)): each table's limits in force and the change scheduled, the
request, the sign to post, and the posting, announcement and cancellation, each a button."""

from __future__ import annotations

from typing import Any

from django import forms as django_forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.readiness import facility_readiness, table_readiness
from compliance.roles import Capability
from compliance.submissions import documents, forms, limits, selectors
from compliance.submissions.models import SignKind
from compliance.submissions.views import _pdf, _table, wants_preview
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404

__all__ = ["AnnounceView", "CancelView", "ChangeView", "LimitRequestView", "LimitSignView", "LimitsView", "PostView"]

CITATION = ("521.7(a)–(b)", "521.7(c)", "521.8(c)(1)–(2)")


class LimitsView(CapabilityRequiredMixin, TemplateView):
    template_name = "submissions/limits.html"
    title = "Wager limits"
    citation = CITATION

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        pending = {c.table_id: c for c in selectors.changes_of(self.facility).filter(state="scheduled")}
        states = facility_readiness(self.facility)  # the table's state as the board, Open and the API give it
        rows = [(r.table, r.limits, pending.get(r.table.pk), states.get(r.table.pk))
                for r in selectors.tables_rules(self.facility)]
        signs = selectors.signs_in_force(self.facility)
        return super().get_context_data(**kwargs) | {
            "rows": rows, "recent": selectors.changes_of(self.facility)[:30],
            "limits_sign": signs.get(SignKind.LIMITS), "change_sign": signs.get(SignKind.LIMIT_CHANGE)}


class LimitRequestView(ServiceFormView):
    capability = Capability.CHANGE_WAGER_LIMITS
    form_class = forms.LimitForm
    template_name = "submissions/form.html"
    title = "Change a table's wager limits"
    citation = CITATION

    def subject(self) -> Any:
        return _table(self.facility, self.kwargs["pk"])

    def get_form_kwargs(self) -> dict[str, Any]:
        return super().get_form_kwargs() | {"facility": self.facility}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        table = self.subject()
        return super().get_context_data(**kwargs) | {"subject": table, "readiness": table_readiness(table)}

    def perform(self, form: Any) -> str:
        try:
            effective_at = form.effective_at()
        except django_forms.ValidationError as error:
            from django.core.exceptions import ValidationError

            raise ValidationError(error.messages) from None
        change = limits.limit_change_request(
            table=self.subject(), minimum=form.cleaned_data["minimum"], maximum=form.cleaned_data["maximum"],
            patrons_playing=form.cleaned_data["patrons_playing"], effective_at=effective_at, user=self.request.user)
        if change.state == "applied":
            messages.success(self.request, f"Table {change.table.number}'s new limits are in force.")
        else:
            messages.success(self.request, "Scheduled. Print the sign, post it at the table and record it; then "
                                           "announce the change and record that.")
        return reverse("submissions:limit-change", args=[change.pk])


class ChangeView(CapabilityRequiredMixin, TemplateView):
    template_name = "submissions/change.html"
    title = "Wager limit change"
    citation = CITATION

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        change = found_or_404(selectors.change(self.facility, kwargs["pk"]))
        signs = selectors.signs_in_force(self.facility)
        return super().get_context_data(**kwargs) | {
            "change": change, "facility_zone": self.facility.time_zone,
            "change_sign": signs.get(SignKind.LIMIT_CHANGE), "limits_sign": signs.get(SignKind.LIMITS),
            "limits_in_force": selectors.current_limits(change.table)}


class LimitSignView(CapabilityRequiredMixin, TemplateView):
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        change = found_or_404(selectors.change(self.facility, kwargs["pk"]))
        previous = selectors.current_limits(change.table) if change.state == "scheduled" else None
        approval = selectors.signs_in_force(self.facility).get(SignKind.LIMIT_CHANGE)
        values = selectors.rules_for(self.facility, change.table.game.code)
        return _pdf(documents.limit_sign_pdf(change, previous, approval, preview=wants_preview(request),
                                             values=values), f"limits-change-sign-{change.table.number}.pdf")


class _Step(ServiceFormView):
    capability = Capability.CHANGE_WAGER_LIMITS
    form_class: type[django_forms.Form] = forms.NothingForm
    template_name = "submissions/form.html"
    citation = CITATION
    done_words = ""

    def subject(self) -> Any:
        return found_or_404(selectors.change(self.facility, self.kwargs["pk"]))

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"subject": self.subject()}

    def step(self, change: Any, form: Any) -> Any:
        raise NotImplementedError

    def perform(self, form: Any) -> str:
        change = self.subject()
        self.step(change, form)
        messages.success(self.request, self.done_words)
        return reverse("submissions:limit-change", args=[change.pk])


class PostView(_Step):
    title = "Record that the sign is posted at the table"
    done_words = "The sign's posting is recorded."

    def step(self, change: Any, form: Any) -> Any:
        return limits.limit_change_post(change=change, user=self.request.user)


class AnnounceView(_Step):
    title = "Record that the change was announced to the patrons"
    done_words = "The announcement is recorded."

    def step(self, change: Any, form: Any) -> Any:
        return limits.limit_change_announce(change=change, user=self.request.user)


class CancelView(_Step):
    form_class = forms.CancelForm
    title = "Cancel a scheduled change"
    done_words = "The change is cancelled; the limits in force stay."

    def step(self, change: Any, form: Any) -> Any:
        return limits.limit_change_cancel(change=change, reason=form.cleaned_data["reason"], user=self.request.user)
