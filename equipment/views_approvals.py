"""The register of approved equipment: every device the chapters require approved, the approval in force for
each, its history, and (for compliance) the forms to record an approval or its withdrawal."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.urls import reverse

from compliance.gaming_day import gaming_day
from compliance.roles import Capability, has_capability
from compliance.views import ServiceFormView, found_or_404
from equipment import selectors, services
from equipment.approval_kinds import KINDS

_CITATIONS = ("539.1(b)", "539.1(d)", "675a.1(c)", "675a.3(b)(2)", "668a.3(b)", "575.2(c)(1)–(3)")


class ApprovalForm(forms.Form):
    kind = forms.ChoiceField(label="Device", choices=[(k.code, f"{k.label} (§ {k.clause}, {k.bureau})") for k in KINDS])
    device = forms.CharField(label="Make, model or design as approved", max_length=200)
    reference = forms.CharField(label="The Bureau's approval reference", max_length=120)
    approved_on = forms.DateField(label="Date of the approval", widget=forms.DateInput(attrs={"type": "date"}))
    bears_logo = forms.BooleanField(label="Bears the name or logo of the certificate holder", required=False)
    has_lockout = forms.BooleanField(label="Has a lock-out refusing an Extra Roll after \u201cno more bets\u201d",
                                     required=False)


class WithdrawalForm(forms.Form):
    approval = forms.TypedChoiceField(label="Approval", coerce=int, choices=())
    withdrawn_on = forms.DateField(label="No longer in force from", widget=forms.DateInput(attrs={"type": "date"}))
    reason = forms.CharField(label="Why", max_length=300)

    def __init__(self, *args: Any, approvals: Any = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["approval"].choices = [(a.pk, f"{a.device} — {a.reference}") for a in approvals]  # type: ignore[attr-defined]


class ApprovalRegisterView(ServiceFormView):
    """GET: the register (everyone who reads records, the inspector too); POST: record an approval."""
    action_page = False  # the register is a record page (compliance.navigation.action_page)

    template_name = "equipment/approvals.html"
    title = "Approved equipment"
    citation = _CITATIONS
    form_class = ApprovalForm

    @classmethod
    def allows(cls, user: Any, method: str = "GET") -> bool:
        if method == "POST":
            return has_capability(user, Capability.RECORD_EQUIPMENT_APPROVALS)
        return super().allows(user, method)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        today = gaming_day(self.facility)
        in_force = selectors.approvals_in_force(self.facility, today)
        context.update(
            kinds=[(k, in_force.get(k.code)) for k in KINDS],
            approvals=list(selectors.approvals_of(self.facility)),
            can_record=has_capability(self.request.user, Capability.RECORD_EQUIPMENT_APPROVALS),
        )
        return context

    def perform(self, form: ApprovalForm) -> str:
        data = form.cleaned_data
        approval = services.approval_record(
            facility=self.facility, kind=data["kind"], device=data["device"], reference=data["reference"],
            approved_on=data["approved_on"], bears_logo=data["bears_logo"], has_lockout=data["has_lockout"],
            user=self.request.user)
        messages.success(self.request, f"Recorded: {approval}.")
        return reverse("equipment:approvals")


class ApprovalWithdrawView(ServiceFormView):
    template_name = "equipment/approval_withdraw.html"
    title = "Withdraw an equipment approval"
    citation = _CITATIONS
    capability = Capability.RECORD_EQUIPMENT_APPROVALS
    form_class = WithdrawalForm

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        kwargs["approvals"] = selectors.approvals_in_force(self.facility, gaming_day(self.facility)).values()
        return kwargs

    def perform(self, form: WithdrawalForm) -> str:
        data = form.cleaned_data
        approval = found_or_404(selectors.approvals_of(self.facility).filter(pk=data["approval"]).first(), "approval")
        services.approval_withdraw(approval=approval, withdrawn_on=data["withdrawn_on"], reason=data["reason"],
                                   user=self.request.user)
        messages.success(self.request, f"Withdrawn: {approval}.")
        return reverse("equipment:approvals")
