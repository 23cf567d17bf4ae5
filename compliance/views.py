"""Screens of the foundation: dashboard, signing, signatures, audit trail, regulations, registers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import View
from django.views.generic import FormView, RedirectView, TemplateView

from compliance import selectors, services
from compliance.chain import integrity_cell
from compliance.citations import cite
from compliance.dashboard import panels_for
from compliance.exports import safe_csv_writer
from compliance.forms import AuditFilterForm, SignatureForm
from compliance.implementations import implementations_by_clause
from compliance.middleware import SAFE_METHODS
from compliance.models import RegulatedRecord
from compliance.roles import Capability, has_capability, is_inspector, roles_of

__all__ = [
    "AuditCsvView",
    "AuditListView",
    "CapabilityRequiredMixin",
    "DashboardView",
    "EchoBuffer",
    "FacilityRequiredMixin",
    "FacilitySelectView",
    "PeopleListView",
    "RegulationListView",
    "ReportMoved",
    "ServiceFormView",
    "SignView",
    "SignatureDetailView",
    "SignatureListView",
    "TableListView",
    "found_or_404",
    "healthz",
    "refusal_messages",
]


class FacilityRequiredMixin:
    """Views of facility records: the user must be working in a facility they are assigned to."""

    request: HttpRequest

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not getattr(request, "facility", None):
            raise PermissionDenied("You are not assigned to any facility. Ask an administrator to assign you.")
        return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]

    @property
    def facility(self) -> Any:
        return self.request.facility  # type: ignore[attr-defined]


class CapabilityRequiredMixin(FacilityRequiredMixin):
    capability: Capability = Capability.VIEW_RECORDS

    @classmethod
    def allows(cls, user: Any, method: str = "GET") -> bool:
        """Whether ``user`` may make a ``method`` request of this page: the one rule that both answers
        the request and decides, through ``compliance.navigation.may_request``, which links, menus and
        forms the person is shown. A view whose writes need more than its page overrides this."""
        # The Board inspector sees every screen, the forms staff fill in included, as staff see them
        # (read-only); the middleware refuses anything they would submit.
        if method in SAFE_METHODS and is_inspector(user):
            return True
        return has_capability(user, cls.capability)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.user.is_authenticated and not self.allows(request.user, request.method or "GET"):
            raise PermissionDenied("Your role does not give access to this page.")
        return super().dispatch(request, *args, **kwargs)


def found_or_404(thing: Any, what: str = "record") -> Any:
    """A record a selector found for this person's facility, or a 404 (another facility's looks the same as none)."""
    if thing is None:
        raise Http404(f"No such {what}")
    return thing


def refusal_messages(error: ValidationError | PermissionDenied) -> list[str]:
    """A service's refusal as the sentences to show the person (a PermissionDenied with no words
    says so in general terms)."""
    if isinstance(error, ValidationError):
        return list(error.messages)
    return [str(error) or "Your role does not allow this."]


class ServiceFormView(CapabilityRequiredMixin, FormView):
    """A form whose valid data goes to one service (:meth:`perform`, which returns where to go next).

    Every refusal of the service, a ``ValidationError`` or a ``PermissionDenied`` (a co-signer not
    allowed to sign, a person of another department), is shown on the form in the user's words and
    nothing is saved: the service's transaction rolled back. Being allowed on the page at all is
    :class:`CapabilityRequiredMixin`'s question, answered with a 403 before the form is shown.
    """

    def form_valid(self, form: Any) -> HttpResponse:
        try:
            target = self.perform(form)
        except (ValidationError, PermissionDenied) as error:
            for message in refusal_messages(error):
                form.add_error(None, message)
            return self.form_invalid(form)
        return HttpResponseRedirect(target)

    def perform(self, form: Any) -> str:
        raise NotImplementedError(f"{type(self).__name__} must say which service its form calls")


@login_not_required
def healthz(request: HttpRequest) -> HttpResponse:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse(f"ok {connection.vendor}\n", content_type="text/plain")


class DashboardView(FacilityRequiredMixin, TemplateView):
    template_name = "compliance/dashboard.html"
    title = "Dashboard"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        user = self.request.user
        context["panels"] = panels_for(self.request)
        context["awaiting"] = selectors.records_awaiting_signature(user, self.facility)
        context["recent_changes"] = (
            selectors.audit_events(facility=self.facility)[:8] if has_capability(user, Capability.VIEW_AUDIT) else []
        )
        context["my_recent_signatures"] = selectors.recent_signatures_of(user)
        context["roles"] = sorted(r.label for r in roles_of(user))
        return context


class FacilitySelectView(View):
    def post(self, request: HttpRequest) -> HttpResponse:
        try:
            facility = services.facility_select(request=request, facility_id=int(request.POST.get("facility", "0")))
        except (ValueError, PermissionDenied):
            messages.error(request, "You are not assigned to that facility.")
        else:
            messages.success(request, f"You are now working in {facility.name}.")
        target = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
            target = reverse("dashboard")
        return HttpResponseRedirect(target)


def _record_or_404(request: HttpRequest, content_type_id: int, object_id: int) -> RegulatedRecord:
    record = selectors.regulated_record(request.facility, content_type_id, object_id)  # type: ignore[attr-defined]
    if record is None:
        raise Http404("No such record in this facility")
    return record


def record_url(record: Any) -> str:
    getter = getattr(record, "get_absolute_url", None)
    return getter() if getter else ""


class SignView(FacilityRequiredMixin, FormView):
    """Give one signature on one record, re-entering the password (every app's records sign here)."""

    form_class = SignatureForm
    template_name = "compliance/sign.html"
    title = "Sign"
    citation = "525.21(r)"

    def setup(self, request: HttpRequest, *args: Any, **kwargs: Any) -> None:
        super().setup(request, *args, **kwargs)
        self.slot = kwargs["slot"]

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not getattr(request, "facility", None):
            raise PermissionDenied("You are not assigned to any facility.")
        self.record = _record_or_404(request, kwargs["content_type_id"], kwargs["object_id"])
        self.requirement = type(self.record).requirement(self.slot)
        if self.requirement is None:
            raise Http404("This record has no such signature")
        return super().dispatch(request, *args, **kwargs)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(
            record=self.record,
            requirement=self.requirement,
            slots=self.record.signature_slots(),
            record_url=record_url(self.record),
            record_citation=type(self.record).get_citation(),
            content_hash=self.record.content_hash(),
            may_sign=selectors.may_sign(self.request.user, self.record, self.requirement),
        )
        return context

    def form_valid(self, form: SignatureForm) -> HttpResponse:
        try:
            signature = services.signature_sign(
                record=self.record, slot=self.slot, user=self.request.user, password=form.cleaned_data["password"]
            )
        except ValidationError as error:
            form.add_error("password" if "password" in str(error) else None, error)
            return self.form_invalid(form)
        except PermissionDenied as error:
            form.add_error(None, str(error))
            return self.form_invalid(form)
        messages.success(self.request, f"Signed: {signature.printed}")
        return redirect(record_url(self.record) or reverse("signature-detail", args=[signature.pk]))


class SignatureDetailView(FacilityRequiredMixin, TemplateView):
    template_name = "compliance/signature_detail.html"
    title = "Signature"
    citation = "525.21(r)"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        signature = selectors.signature_in(self.facility, kwargs["pk"])
        if signature is None:
            raise Http404("No such signature in this facility")
        record = signature.record
        context.update(
            signature=signature,
            record=record,
            record_url=record_url(record) if record else "",
            intact=signature.matches_record(),
            record_citation=type(record).get_citation() if record else None,
        )
        return context


class SignatureListView(FacilityRequiredMixin, TemplateView):
    template_name = "compliance/signature_list.html"
    title = "Signatures"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        page = Paginator(selectors.signatures_for_facility(self.facility), 50).get_page(self.request.GET.get("page"))
        context["page"] = page
        return context


def _audit_models() -> list[tuple[str, str]]:
    from django.apps import apps

    from compliance.models import AuditedModel

    return sorted(
        (
            (m._meta.label, str(m._meta.verbose_name).capitalize())
            for m in apps.get_models()
            if issubclass(m, AuditedModel)
        ),
        key=lambda pair: pair[1],
    )


class AuditFilterMixin(CapabilityRequiredMixin):
    capability = Capability.VIEW_AUDIT
    citation = "525.21(r)"

    def filtered_events(self) -> tuple[AuditFilterForm, Any]:
        form = AuditFilterForm(self.request.GET or None, models=_audit_models(), facility=self.facility)
        filters: dict[str, Any] = {}
        if form.is_valid():
            data = form.cleaned_data
            filters = {
                "date_from": data["date_from"],
                "date_to": data["date_to"],
                "actor_id": data["actor"].pk if data["actor"] else None,
                "model_label": data["model"],
                "object_id": data["object_id"].strip(),
                "action": data["action"],
            }
        elif form.is_bound:
            return form, selectors.no_audit_events()
        return form, selectors.audit_events(facility=self.facility, **filters)


class AuditListView(AuditFilterMixin, TemplateView):
    template_name = "compliance/audit_list.html"
    title = "Audit trail"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        form, events = self.filtered_events()
        query = self.request.GET.copy()
        query.pop("page", None)
        context.update(
            form=form,
            page=Paginator(events, 50).get_page(self.request.GET.get("page")),
            query=query.urlencode(),
        )
        return context


class EchoBuffer:
    """A file-like object that hands back what the csv writer writes: rows streamed as they are made."""

    def write(self, value: str) -> str:
        return value


class AuditCsvView(AuditFilterMixin, View):
    def get(self, request: HttpRequest) -> StreamingHttpResponse:
        _, events = self.filtered_events()
        writer = safe_csv_writer(EchoBuffer())

        def rows() -> Iterator[str]:
            yield writer.writerow(
                [
                    "occurred_at",
                    "user",
                    "credential",
                    "action",
                    "record_type",
                    "record_id",
                    "record",
                    "changes",
                    "reason",
                    "integrity",
                ]
            )
            for event in events.iterator(chunk_size=2000):
                name, credential = event.actor_shown()
                yield writer.writerow(
                    [
                        timezone.localtime(event.occurred_at).isoformat(),
                        name,
                        credential,
                        event.action,
                        event.model_label,
                        event.object_id,
                        event.object_repr,
                        json.dumps(event.changes_json(), ensure_ascii=False),
                        event.reason,
                        integrity_cell(not event.seal_intact()),
                    ]
                )

        stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
        response = StreamingHttpResponse(rows(), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="audit-{self.facility.code}-{stamp}.csv"'
        return response


class RegulationListView(TemplateView):
    template_name = "compliance/regulation_list.html"
    title = "Regulations implemented"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        rows = implementations_by_clause()
        areas: dict[str, list[Any]] = {}
        for clause, impls in rows:
            areas.setdefault(clause.area, []).append((clause, impls, cite(clause.anchors[0]).current))
        context["areas"] = areas
        return context


class TableListView(FacilityRequiredMixin, TemplateView):
    template_name = "compliance/table_list.html"
    title = "Tables"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["tables"] = selectors.tables_of(self.facility)
        return context


class PeopleListView(FacilityRequiredMixin, TemplateView):
    template_name = "compliance/people_list.html"
    title = "People"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["profiles"] = selectors.profiles_of(self.facility)
        return context


class ReportMoved(RedirectView):
    """A period report's old address (an app's own report page, CSV or PDF) sends the person to the report's
    page on the report framework (``compliance.reports``), the period kept; resolved by name, so the app
    need not import the reports app."""

    kind = ""
    query_string = True

    def get_redirect_url(self, *args: Any, **kwargs: Any) -> str:
        url = reverse("reports:kind", args=[self.kind])
        query = self.request.META.get("QUERY_STRING", "")
        return f"{url}?{query}" if query else url
