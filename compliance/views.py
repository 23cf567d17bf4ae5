"""Screens of the foundation: dashboard, signing, signatures, audit trail, regulations, registers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http import HTTPStatus
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import View
from django.views.generic import FormView, TemplateView

from compliance import selectors, services
from compliance.chain import integrity_cell
from compliance.citations import cite
from compliance.dashboard import panels_for
from compliance.exports import csv_response, safe_csv_writer, xlsx_bytes, xlsx_response
from compliance.forms import AuditFilterForm, SignatureForm
from compliance.implementations import implementations_by_clause
from compliance.keyset import CursorError, Keyset, KeysetPage, keyset_of, keyset_page, stale_link_words
from compliance.middleware import SAFE_METHODS
from compliance.roles import Capability, has_capability, is_inspector, roles_of
from compliance.times import local

__all__ = [
    "NO_FACILITY",
    "REFUSED",
    "AuditCsvView",
    "AuditListView",
    "CapabilityRequiredMixin",
    "DashboardView",
    "EchoBuffer",
    "FacilityRequiredMixin",
    "FacilitySelectView",
    "PeopleListView",
    "RegulationListView",
    "ServiceFormView",
    "SignView",
    "SignatureDetailView",
    "SignatureListView",
    "TableListView",
    "found_or_404",
    "refusal_messages",
]

T = TypeVar("T")


NO_FACILITY = "You are not assigned to any facility. Ask an administrator to assign you."

#: The one status of a form answered with its errors: what was typed was read and refused (by the form's own
#: checks or by the service), the page shown again with the refusal. 400 stays for a request that could not be
#: read at all (a NUL character, a malformed query); the JSON API keeps its own codes.
REFUSED = HTTPStatus.UNPROCESSABLE_ENTITY  # 422 Unprocessable Content (RFC 9110)


class FacilityRequiredMixin:
    """The one pre-check of every screen of facility records: the person works in a facility they are assigned to
    (the middleware sets ``request.facility`` only to one of ``selectors.facilities_for(user)``). What the address
    names is looked up after it, in :meth:`find_records`, never before (so no lookup runs without a facility)."""

    request: HttpRequest

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not getattr(request, "facility", None):
            raise PermissionDenied(NO_FACILITY)
        self.find_records()
        return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]

    def find_records(self) -> None:
        """Look up what the address names at ``self.facility`` (:func:`found_or_404`); nothing by default."""

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


def found_or_404(thing: T | None, what: str = "record") -> T:
    """The one 404 of the screens: ``thing`` as a selector found it for this person's facility, or "not found"
    (another facility's record looks the same as none). Anything else an address names that is not there (a
    file a version lacks, a day outside the system's) is passed as ``None``."""
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
    """The one way a form or a button calls a service: the form (``form_class``; a button has none or a few
    fields) cleans what was typed, then :meth:`perform` calls one service and returns where to go next (or,
    for a page that answers in place, the response).

    Every refusal, the form's own or the service's (``ValidationError``, ``PermissionDenied``: a co-signer not
    allowed to sign, a person of another department), is shown in the person's words and nothing is saved (the
    service's transaction rolled back):

    - a form is shown again with its errors, status :data:`REFUSED` (422);
    - a button (``button = True``: a POST from another page, which has no page of its own and answers no GET)
      goes back to :meth:`back_url` with the refusal as a message, as its success does with its own.

    Being allowed on the page at all is :class:`CapabilityRequiredMixin`'s question, answered with a 403 first.
    """

    form_class: Any = forms.Form
    button = False

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if self.button:
            return self.http_method_not_allowed(request, *args, **kwargs)
        return super().get(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        try:
            target = self.perform(form)
        except (ValidationError, PermissionDenied) as error:
            for message in refusal_messages(error):
                form.add_error(self.refused_field(message), message)
            return self.form_invalid(form)
        return target if isinstance(target, HttpResponse) else HttpResponseRedirect(target)

    def form_invalid(self, form: Any) -> HttpResponse:
        if self.button:
            for errors in form.errors.values():  # a button's few fields word their own errors
                for message in errors:
                    messages.error(self.request, message)
            return HttpResponseRedirect(self.back_url())
        return self.render_to_response(self.get_context_data(form=form), status=REFUSED)

    def perform(self, form: Any) -> str | HttpResponse:
        raise NotImplementedError(f"{type(self).__name__} must say which service its form calls")

    def refused_field(self, message: str) -> str | None:
        """The field a refusal of the service is shown beside; by default above the form."""
        return None

    def back_url(self) -> str:
        """A button's page: where its refusals are shown."""
        raise NotImplementedError(f"{type(self).__name__} must say which page its button is on")


class DashboardView(FacilityRequiredMixin, TemplateView):
    template_name = "compliance/dashboard.html"
    title = "Dashboard"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        user = self.request.user
        context["panels"] = panels_for(self.request)
        context["awaiting"] = selectors.records_awaiting_signature(user, self.facility)
        context["recent_changes"] = (
            selectors.latest_audit_events(facility=self.facility, limit=8)
            if has_capability(user, Capability.VIEW_AUDIT) else []
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


def record_url(record: Any) -> str:
    getter = getattr(record, "get_absolute_url", None)
    return getter() if getter else ""


class SignView(ServiceFormView):
    """Give one signature on one record, re-entering the password (every app's records sign here). Anyone working
    at the record's facility may open it; the service decides who may sign."""

    form_class = SignatureForm
    template_name = "compliance/sign.html"
    title = "Sign"
    citation = "525.21(r)"

    @classmethod
    def allows(cls, user: Any, method: str = "GET") -> bool:
        return True

    def find_records(self) -> None:
        self.slot = self.kwargs["slot"]
        self.record = found_or_404(selectors.regulated_record(self.facility, self.kwargs["content_type_id"],
                                                              self.kwargs["object_id"]), "record in this facility")
        self.requirement = found_or_404(type(self.record).requirement(self.slot), "signature of this record")

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if self.requirement.given_by_action:  # signed by its action, on that action's form: not here
            return self.render_to_response(self.get_context_data(), status=HTTPStatus.FORBIDDEN)
        return super().get(request, *args, **kwargs)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        if self.requirement.given_by_action:
            context.update(action_url=self.requirement.action_url(self.record),
                           action_refusal=services.action_only_refusal(self.record, self.requirement))
        earlier = type(self.record).requirement(self.requirement.after) if self.requirement.after else None
        given = {signature.slot for signature in self.record.signature_list()}
        context.update(
            waits_for=earlier if earlier is not None and earlier.slot not in given else None,
            record=self.record,
            requirement=self.requirement,
            slots=self.record.signature_slots(),
            record_url=record_url(self.record),
            record_citation=type(self.record).get_citation(),
            content_hash=self.record.content_hash(),
            may_sign=selectors.may_sign(self.request.user, self.record, self.requirement),
        )
        return context

    def refused_field(self, message: str) -> str | None:
        return "password" if "password" in message else None

    def perform(self, form: SignatureForm) -> str:
        signature = services.signature_sign(
            record=self.record, slot=self.slot, user=self.request.user, password=form.cleaned_data["password"]
        )
        messages.success(self.request, f"Signed: {signature.printed}")
        return record_url(self.record) or reverse("signature-detail", args=[signature.pk])


class SignatureDetailView(FacilityRequiredMixin, TemplateView):
    template_name = "compliance/signature_detail.html"
    title = "Signature"
    citation = "525.21(r)"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        signature = found_or_404(selectors.signature_in(self.facility, kwargs["pk"]), "signature in this facility")
        record = signature.record
        context.update(
            signature=signature,
            record=record,
            record_url=record_url(record) if record else "",
            intact=signature.matches_record(),
            record_citation=type(record).get_citation() if record else None,
        )
        return context


SIGNATURE_CURSOR = "compliance.signatures"


class SignatureListView(FacilityRequiredMixin, TemplateView):
    """Every signature of the facility, newest first, a page at a time by keyset (issue 27): nothing counts them."""

    template_name = "compliance/signature_list.html"
    title = "Signatures"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        keyset, stale, query = keyset_of(self.request.GET, purpose=SIGNATURE_CURSOR)
        if stale:
            messages.warning(self.request, stale_link_words("signatures"))
        context.update(query=query, page=keyset_page(
            lambda at, limit: selectors.signature_page(self.facility, at, limit), keyset, size=50,
            key=lambda s: (s.signed_at, s.pk), purpose=SIGNATURE_CURSOR))
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

    def audit_filters(self) -> tuple[AuditFilterForm, dict[str, Any] | None]:
        """The filter form and the selector's filters; ``None``: a filter typed wrong (nothing is shown, rather than
        everything)."""
        form = AuditFilterForm(self.request.GET or None, models=_audit_models(), facility=self.facility)
        if form.is_valid():
            data = form.cleaned_data
            return form, {
                "date_from": data["date_from"],
                "date_to": data["date_to"],
                "actor_id": data["actor"].pk if data["actor"] else None,
                "model_label": data["model"],
                "object_id": data["object_id"].strip(),
                "action": data["action"],
            }
        return form, None if form.is_bound else {}

    def filtered_events(self) -> tuple[AuditFilterForm, Any]:
        form, filters = self.audit_filters()
        if filters is None:
            return form, selectors.no_audit_events()
        return form, selectors.audit_events(facility=self.facility, **filters)


AUDIT_PAGE_SIZE = 50
AUDIT_CURSOR = "compliance.audit"
STALE_PAGE_LINK = "That page link is no longer valid; showing the newest changes."


class AuditListView(AuditFilterMixin, TemplateView):
    """The trail a page at a time, newest first, by keyset (issue 27): "Newer" and "Older" links carry a signed
    cursor and the filters; nothing counts the trail."""

    template_name = "compliance/audit_list.html"
    title = "Audit trail"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        form, filters = self.audit_filters()
        query = self.request.GET.copy()
        for name in ("older", "newer", "page"):
            query.pop(name, None)
        try:
            keyset = Keyset.from_query(self.request.GET, purpose=AUDIT_CURSOR)
        except CursorError:
            messages.warning(self.request, STALE_PAGE_LINK)
            keyset = Keyset()
        if filters is None:
            page: KeysetPage[Any] = KeysetPage([], None, None, at_newest=True)
        else:
            page = keyset_page(
                lambda at, limit: selectors.audit_event_page(facility=self.facility, keyset=at, limit=limit,
                                                             **filters),
                keyset, size=AUDIT_PAGE_SIZE, key=lambda e: (e.occurred_at, e.pk), purpose=AUDIT_CURSOR)
        context.update(form=form, page=page, query=query.urlencode())
        return context


class EchoBuffer:
    """A file-like object that hands back what the csv writer writes: rows streamed as they are made."""

    def write(self, value: str) -> str:
        return value


AUDIT_HEADER = ["occurred_at", "user", "credential", "action", "record_type", "record_id", "record", "changes",
                "reason", "integrity"]


class AuditCsvView(AuditFilterMixin, View):
    extension = "csv"

    def export_rows(self) -> Iterator[list[Any]]:
        """The filtered events as the export's rows (the header first), read in chunks."""
        _, events = self.filtered_events()
        yield AUDIT_HEADER
        for event in events.iterator(chunk_size=2000):
            name, credential = event.actor_shown()
            yield [
                local(event.occurred_at, self.facility).isoformat(),  # streamed after the request's zone ends
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

    def filename(self) -> str:
        return f"audit-{self.facility.code}-{timezone.localtime():%Y%m%d-%H%M}.{self.extension}"

    def get(self, request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
        writer = safe_csv_writer(EchoBuffer())
        return csv_response(self.filename(), (writer.writerow(row) for row in self.export_rows()))


class AuditXlsxView(AuditCsvView):
    """The same rows as an Excel workbook."""

    extension = "xlsx"

    def get(self, request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
        header, *rows = self.export_rows()
        return xlsx_response(self.filename(), xlsx_bytes([], [("", header, rows)], sheet="Audit trail"))


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
