"""Pages of the signs at the tables: the Bureau of Gaming Operations' approvals of their location, size and
language (§ 521.8(d)), and the sign of a table's minimum and maximum wagers in force (§ 521.7(b))."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.roles import Capability
from compliance.submissions import documents, forms, selectors, signs
from compliance.submissions.models import SignKind
from compliance.submissions.views import _pdf, _table, wants_preview
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404

__all__ = ["LimitsSignView", "SignApprovalCreateView", "SignApprovalsView"]

CITATION = ("521.8(d)", "521.8(a)", "521.7(b)")


class SignApprovalsView(CapabilityRequiredMixin, TemplateView):
    """Per kind of sign, the approval in force and every earlier one."""

    template_name = "submissions/signs.html"
    title = "Sign approvals"
    citation = CITATION

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        approvals = list(selectors.sign_approvals_of(self.facility))
        in_force: dict[str, Any] = {}
        for approval in approvals:
            in_force.setdefault(approval.kind, approval)
        kinds = [(kind, label, in_force.get(kind), [a for a in approvals if a.kind == kind])
                 for kind, label in SignKind.choices]
        return super().get_context_data(**kwargs) | {"kinds": kinds}


class SignApprovalCreateView(ServiceFormView):
    capability = Capability.MANAGE_RULES_SUBMISSIONS
    form_class = forms.SignApprovalForm
    template_name = "submissions/form.html"
    title = "Record the Bureau's approval of a sign"
    citation = CITATION

    def get_initial(self) -> dict[str, Any]:
        kind = self.request.GET.get("kind", "")
        return super().get_initial() | ({"kind": kind} if kind in SignKind.values else {}) | {"language": "English"}

    def perform(self, form: Any) -> str:
        approval = signs.sign_approval_record(facility=self.facility, user=self.request.user, **form.cleaned_data)
        messages.success(self.request, f"Recorded: {approval}. The sign now prints for use.")
        return reverse("submissions:signs")


class LimitsSignView(CapabilityRequiredMixin, TemplateView):
    """The sign of a table's minimum and maximum wagers in force (§ 521.7(b), § 521.8(a))."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        table = _table(self.facility, kwargs["pk"])
        rules = selectors.table_rules(table)
        # No limits sign without a minimum and maximum wager in force (§ 521.7(a)).
        found_or_404(rules.limits, "limits sign: the table has no minimum and maximum wager in force")
        approval = selectors.signs_in_force(self.facility).get(SignKind.LIMITS)
        return _pdf(documents.limits_sign_pdf(rules, approval, preview=wants_preview(request)),
                    f"limits-sign-{table.number}.pdf")
