"""Pages of the provider register (58 Pa. Code ch. 528): the register, each provider with its certification,
permissions and offerings in words, the tables and whether each provider offering may be used today, and one
form per event a compliance officer records. Thin: read through the selectors, write through the services."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.generic import TemplateView, View

from compliance.gaming_day import gaming_day
from compliance.providers import forms, selectors, services
from compliance.roles import Capability
from compliance.stored_files import SUFFIXES, stored_file_response
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404

__all__ = [
    "AssignView",
    "CertificationCreateView",
    "FilingCreateView",
    "FilingDocumentView",
    "LabApprovalView",
    "OfferingCreateView",
    "PermissionCreateView",
    "PermissionRescindView",
    "ProviderCreateView",
    "ProviderDetailView",
    "ProviderListView",
    "RemoveView",
    "RenewalDecideView",
    "RenewalFileView",
    "TableOfferingsView",
    "UseApprovalView",
]

CITATION: tuple[str, ...] = ("528.2", "528.3", "528.4(a)", "528.4(b)", "528.4(c)", "528.6", "528.7", "528.8(a)",
                             "528.8(b)", "528.9")




class ProviderListView(CapabilityRequiredMixin, TemplateView):
    template_name = "providers/list.html"
    title = "Gaming service providers"
    citation = CITATION

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        today = gaming_day(self.facility)
        rows = [(p, selectors.certification_standing(p, today),
                 selectors.permission_standing_of(self.facility, p, today)) for p in selectors.providers()]
        return super().get_context_data(**kwargs) | {"rows": rows, "today": today,
                                                      "due": selectors.renewals_due(self.facility, today)}


class ProviderDetailView(CapabilityRequiredMixin, TemplateView):
    template_name = "providers/detail.html"
    title = "Gaming service provider"
    citation = CITATION

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        provider = found_or_404(selectors.provider(kwargs["pk"]))
        today = gaming_day(self.facility)
        terms = selectors.term_rows(provider, today)
        permissions = selectors.permission_rows(self.facility, provider, today)
        return super().get_context_data(**kwargs) | {
            "provider": provider, "today": today, "terms": terms, "permissions": permissions,
            "standing": selectors.certification_standing(provider, today),
            "permitted": selectors.permission_standing_of(self.facility, provider, today),
            "offerings": selectors.offering_status(self.facility, provider, today),
            "sections": selectors.filing_sections(self.facility, provider),
        }


class TableOfferingsView(CapabilityRequiredMixin, TemplateView):
    """Each table's provider offerings and whether each may be used today (§ 528.7)."""

    template_name = "providers/tables.html"
    title = "Provider games at the tables"
    citation = ("528.7",)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        today = gaming_day(self.facility)
        return super().get_context_data(**kwargs) | {"uses": selectors.facility_table_uses(self.facility, today),
                                                      "today": today}


class _EventView(ServiceFormView):
    """A form recording one event (compliance officers); the inspector sees it read-only."""

    capability = Capability.MANAGE_GAMING_PROVIDERS
    template_name = "providers/form.html"
    citation: tuple[str, ...] = CITATION
    subject_of: Any = None

    def subject(self) -> Any:
        return None

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"subject": self.subject()}

    def done(self, words: str, provider_pk: int) -> str:
        messages.success(self.request, words)
        return reverse("providers:detail", args=[provider_pk])


class ProviderCreateView(_EventView):
    form_class = forms.ProviderForm
    title = "Register a gaming service provider"
    citation = ("528.6",)

    def perform(self, form: Any) -> str:
        provider = services.provider_register(facility=self.facility, user=self.request.user, **form.cleaned_data)
        return self.done(f"{provider.name} is on the register.", provider.pk)


class _ProviderEventView(_EventView):
    def subject(self) -> Any:
        return found_or_404(selectors.provider(self.kwargs["pk"]))


class OfferingCreateView(_ProviderEventView):
    form_class = forms.OfferingForm
    title = "Add a game, wager or feature"
    citation = ("528.6", "528.7")

    def perform(self, form: Any) -> str:
        provider = self.subject()
        services.offering_add(facility=self.facility, provider=provider, user=self.request.user, **form.cleaned_data)
        return self.done("Offering recorded.", provider.pk)


class CertificationCreateView(_ProviderEventView):
    form_class = forms.CertificationForm
    title = "Record the Board's certification"
    citation = ("528.4(a)",)

    def perform(self, form: Any) -> str:
        provider = self.subject()
        term = services.certification_record(facility=self.facility, provider=provider, user=self.request.user,
                                             **form.cleaned_data)
        return self.done(f"Certified until {term.expires_on:%-d %b %Y}.", provider.pk)


class PermissionCreateView(_ProviderEventView):
    form_class = forms.PermissionForm
    title = "Record permission to conduct business before certification"
    citation = ("528.8(a)",)

    def perform(self, form: Any) -> str:
        provider = self.subject()
        services.permission_grant(facility=self.facility, provider=provider, user=self.request.user,
                                  **form.cleaned_data)
        return self.done("Permission recorded.", provider.pk)


class _OfferingEventView(_EventView):
    def subject(self) -> Any:
        return found_or_404(selectors.offering_in(self.kwargs["pk"]))


class LabApprovalView(_OfferingEventView):
    form_class = forms.LabApprovalForm
    title = "Record the Gaming Laboratory's approval"
    citation = ("528.7",)

    def perform(self, form: Any) -> str:
        offering = services.offering_lab_approval_record(facility=self.facility, offering=self.subject(),
                                                         user=self.request.user, **form.cleaned_data)
        return self.done("The Gaming Laboratory's approval is recorded.", offering.provider_id)


class UseApprovalView(_OfferingEventView):
    form_class = forms.UseApprovalForm
    title = "Record the Board's approval for use"
    citation = ("528.7",)

    def perform(self, form: Any) -> str:
        offering = self.subject()
        services.offering_use_approve(facility=self.facility, offering=offering, user=self.request.user,
                                      **form.cleaned_data)
        return self.done("The Board's approval for use is recorded.", offering.provider_id)


class _TermEventView(_EventView):
    def subject(self) -> Any:
        return found_or_404(selectors.certification_in(self.kwargs["pk"]))


class RenewalFileView(_TermEventView):
    form_class = forms.RenewalForm
    title = "Record the renewal filed"
    citation = ("528.4(b)", "528.4(c)")

    def perform(self, form: Any) -> str:
        term = services.renewal_file(facility=self.facility, certification=self.subject(), user=self.request.user,
                                     **form.cleaned_data)
        return self.done("Renewal filing recorded.", term.provider_id)


class RenewalDecideView(_TermEventView):
    form_class = forms.DecisionForm
    title = "Record the Board's decision on the renewal"
    citation = ("528.4(a)", "528.4(c)")

    def perform(self, form: Any) -> str:
        term = services.renewal_decide(facility=self.facility, certification=self.subject(), user=self.request.user,
                                       **form.cleaned_data)
        return self.done("The Board's decision is recorded.", term.provider_id)


class PermissionRescindView(_EventView):
    form_class = forms.RescissionForm
    title = "Record the rescission of the permission"
    citation = ("528.8(b)", "528.8(c)")

    def subject(self) -> Any:
        return found_or_404(selectors.permission_in(self.facility, self.kwargs["pk"]))

    def perform(self, form: Any) -> str:
        permission = services.permission_rescind(facility=self.facility, permission=self.subject(),
                                                 user=self.request.user, **form.cleaned_data)
        return self.done(f"Rescinded: business ceases by {permission.cease_by:%-d %b %Y}.", permission.provider_id)


class AssignView(_EventView):
    form_class = forms.TableOfferingForm
    title = "Put a provider's game or wager on a table"
    citation = ("528.7",)

    def get_form_kwargs(self) -> dict[str, Any]:
        return super().get_form_kwargs() | {"facility": self.facility}

    def perform(self, form: Any) -> str:
        row = services.table_offering_assign(user=self.request.user, **form.cleaned_data)
        messages.success(self.request, f"Table {row.table.number} carries {row.offering}.")
        return reverse("providers:tables")


class RemoveView(_EventView):
    form_class = forms.forms.Form
    title = "Take a provider's game or wager off a table"
    citation = ("528.7",)

    def subject(self) -> Any:
        return found_or_404(selectors.table_offering_in(self.facility, self.kwargs["pk"]))

    def perform(self, form: Any) -> str:
        row = services.table_offering_remove(table_offering=self.subject(), user=self.request.user)
        messages.success(self.request, f"Table {row.table.number} no longer carries {row.offering}.")
        return reverse("providers:tables")


class FilingCreateView(_EventView):
    """Record a filing of §§ 528.2, 528.3, 528.7(2), 528.8(a) or 528.9 with its document, or correct one."""

    form_class = forms.FilingForm
    title = "Record a provider filing"
    citation = ("528.2", "528.3", "528.7", "528.8(a)", "528.9")

    def _asked(self, name: str) -> int | None:
        value = self.request.GET.get(name, "")
        return int(value) if value.isdigit() and len(value) < 12 else None

    def get_initial(self) -> dict[str, Any]:
        """Filled from the address: ``?provider=&kind=`` from a section of the provider's page, ``?corrects=`` from
        a filing's "Correct…" (its particulars restated, to change what was wrong)."""
        initial: dict[str, Any] = {"provider": self._asked("provider"), "kind": self.request.GET.get("kind", "")[:24]}
        pk = self._asked("corrects")
        old = selectors.filing_in(self.facility, pk) if pk is not None else None
        if old is not None:
            initial |= {"provider": old.provider_id, "kind": old.kind, "filed_on": old.filed_on, "corrects": old.pk,
                        "reference": old.reference, "subject_name": old.subject_name, "subject_role": old.subject_role,
                        "qualification": old.qualification, "finding": old.finding, "summary": old.summary,
                        "notes": old.notes}
        return initial

    def get_form_kwargs(self) -> dict[str, Any]:
        return super().get_form_kwargs() | {"facility": self.facility}

    def perform(self, form: Any) -> str:
        filing = services.filing_record(facility=self.facility, user=self.request.user, **form.cleaned_data)
        return self.done(f"Recorded: {filing.what.label}, {filing.filed_on:%-d %b %Y}.", filing.provider_id)


class FilingDocumentView(CapabilityRequiredMixin, View):
    """A filing's document as uploaded (an image shown, a PDF downloaded); refused if its bytes no longer match
    the SHA-256 recorded at upload."""

    title = "Provider filing document"
    citation = ("528.2", "528.3", "528.8(a)", "528.9")

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        filing = found_or_404(selectors.filing_in(self.facility, kwargs["pk"]), "filing")
        return stored_file_response(
            selectors.filing_bytes(filing), name=filing.document_name, sha256=filing.sha256,
            content_type=filing.content_type, inline=filing.is_image,
            filename=f"provider-filing-{filing.pk}{SUFFIXES.get(filing.content_type, '')}")
