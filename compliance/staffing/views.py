"""Staffing and surveillance pages: the floor's verdict, the pit's roster, the surveillance room's cameras and
the shift manager's override. Thin: read through the selectors, write through the services."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from django.views import View
from django.views.generic import DetailView, TemplateView

from compliance.gaming_day import gaming_day
from compliance.middleware import SAFE_METHODS
from compliance.models import GamingTable
from compliance.roles import Capability, has_capability, is_inspector
from compliance.selectors import tables_of
from compliance.staffing import forms, selectors, services
from compliance.staffing.models import Assignment, Camera, Roster
from compliance.staffing.rules import evaluate
from compliance.views import CapabilityRequiredMixin, ServiceFormView, refusal_messages

__all__ = [
    "AssignmentEndView",
    "CameraBackView",
    "CameraOutView",
    "FloorView",
    "OverrideCreateView",
    "OverrideDetailView",
    "RosterListView",
    "RosterPitView",
    "RosterView",
    "ShiftCreateView",
    "SurveillanceView",
]

CITATION = ("577.9(a)", "577.9(b)", "577.9(c)")


class _ReadsAndWrites(CapabilityRequiredMixin):
    """A page everyone at the facility reads; its forms need ``write_capability``."""

    write_capability: Capability = Capability.MANAGE_ROSTERS

    @classmethod
    def allows(cls, user: Any, method: str = "GET") -> bool:
        if method in SAFE_METHODS:
            return is_inspector(user) or has_capability(user, Capability.VIEW_RECORDS)
        return has_capability(user, cls.write_capability)

    def submit(self, form: Any, call: Callable[[], Any], then: Callable[[Any], str], *, done: str = "",
               form_key: str = "form") -> HttpResponse:
        """A valid ``form`` goes to the service ``call``; then to ``then(result)`` with ``done`` announced.
        An invalid form or the service's refusal (in the person's words, on the form) shows the page again
        with status 400, nothing saved."""
        if form.is_valid():
            try:
                result = call()
            except (ValidationError, PermissionDenied) as error:
                for message in refusal_messages(error):
                    form.add_error(None, message)
            else:
                if done:
                    messages.success(self.request, done.format(result=result))
                return HttpResponseRedirect(then(result))
        return self.render_to_response(self.get_context_data(**{form_key: form}), status=400)  # type: ignore[attr-defined]


class FloorView(CapabilityRequiredMixin, TemplateView):
    """The open tables, each compliant or with the rules it breaks; the periods on record; the overrides."""

    template_name = "staffing/floor.html"
    title = "Staffing and surveillance"
    citation = CITATION

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        now = timezone.now()
        floor = selectors.floor_at(self.facility, now)
        verdicts = evaluate(floor, selectors.rules_in_force())
        context["tables"] = [(t, verdicts[t.id]) for t in sorted(floor.tables, key=lambda t: t.number)]
        context["open_violations"] = selectors.open_violations(self.facility)
        context["overrides"] = selectors.recent_overrides(self.facility)
        context["closed_tables"] = tables_of(self.facility).filter(is_open=False).select_related("game")
        context["may_override"] = has_capability(self.request.user, Capability.OVERRIDE_STAFFING)
        return context


class RosterListView(_ReadsAndWrites, TemplateView):
    template_name = "staffing/rosters.html"
    title = "Rosters"
    citation = CITATION

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["rosters"] = selectors.rosters_of(self.facility)[:60]
        context["shifts"] = selectors.shifts_of(self.facility)
        context["may_write"] = self.allows(self.request.user, "POST")
        context.setdefault("form", forms.RosterForm(facility=self.facility, initial={
            "gaming_date": gaming_day(self.facility)}))
        return context

    def post(self, request: HttpRequest) -> HttpResponse:
        form = forms.RosterForm(request.POST, facility=self.facility)
        return self.submit(form, lambda: services.roster_create(facility=self.facility, user=request.user,
                                                                **form.cleaned_data),
                           lambda roster: reverse("staffing:roster", args=[roster.pk]))


class RosterView(_ReadsAndWrites, TemplateView):
    """One shift's roster for the whole pit: who is where, each table's verdict as the roster stands, and the
    form to place a person (a relief dealer, a floorperson over a table)."""

    template_name = "staffing/roster.html"
    title = "Roster"
    citation = CITATION

    def get_roster(self) -> Roster:
        return get_object_or_404(Roster.objects.select_related("shift"), facility=self.facility, pk=self.kwargs["pk"])

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        roster = self.get_roster()
        assignments = list(roster.assignments.select_related("person__profile", "table__game")
                           .order_by("table__number", "position", "starts_at"))
        tables = sorted({a.table for a in assignments}, key=lambda t: t.number)
        # The roster's tables judged as if open, so a gap shows before the table opens.
        floor = selectors.floor_at(self.facility, timezone.now(), also=tables)
        verdicts = evaluate(floor, selectors.rules_in_force())
        context["roster"] = roster
        context["rows"] = [(t, [a for a in assignments if a.table_id == t.pk], verdicts.get(t.pk, []))
                           for t in tables]
        context.setdefault("form", forms.AssignmentForm(facility=self.facility))
        context["end_form"] = forms.AssignmentEndForm()
        context["may_write"] = self.allows(self.request.user, "POST")
        return context

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        roster = self.get_roster()
        form = forms.AssignmentForm(request.POST, facility=self.facility)
        return self.submit(form, lambda: services.assignment_add(roster=roster, user=request.user, **form.cleaned_data),
                           lambda _: reverse("staffing:roster", args=[roster.pk]), done="Placed on the roster.")


class RosterPitView(_ReadsAndWrites, TemplateView):
    """The whole pit on one form: every table's places, filled in from who is placed now; a save ends the places
    emptied or changed and takes the new ones at one instant."""

    template_name = "staffing/pit.html"
    title = "The whole pit"
    citation = CITATION

    def get_roster(self) -> Roster:
        return get_object_or_404(Roster.objects.select_related("shift"), facility=self.facility, pk=self.kwargs["pk"])

    def get_form(self, data: Any = None) -> forms.PitForm:
        roster = self.get_roster()
        current: dict[int, list[Assignment]] = {}
        for a in roster.assignments.filter(ends_at__isnull=True).order_by("starts_at", "pk"):
            current.setdefault(a.table_id, []).append(a)
        tables = tables_of(self.facility).select_related("game")
        return forms.PitForm(data, facility=self.facility, tables=tables, current=current,
                             staffing=selectors.rules_in_force().staffing)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["roster"] = self.get_roster()
        context.setdefault("form", self.get_form())
        context["may_write"] = self.allows(self.request.user, "POST")
        return context

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        form = self.get_form(request.POST)
        return self.submit(form, lambda: services.roster_fill(roster=self.get_roster(), wanted=form.wanted(),
                                                              user=request.user),
                           lambda _: reverse("staffing:roster", args=[pk]),
                           done="The pit's roster is saved: {result[1]} placed, {result[0]} ended.")


class AssignmentEndView(_ReadsAndWrites, View):
    citation = CITATION

    def post(self, request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
        assignment = get_object_or_404(Assignment, roster__facility=self.facility, roster_id=pk, pk=assignment_pk)
        form = forms.AssignmentEndForm(request.POST)
        note = form.cleaned_data["note"] if form.is_valid() else ""
        try:
            services.assignment_end(assignment=assignment, user=request.user, note=note)
        except (ValidationError, PermissionDenied) as error:
            for message in refusal_messages(error):
                messages.error(request, message)
        else:
            messages.success(request, "Ended.")
        return HttpResponseRedirect(reverse("staffing:roster", args=[pk]))


class ShiftCreateView(ServiceFormView):
    template_name = "staffing/form.html"
    title = "New shift"
    capability = Capability.MANAGE_ROSTERS
    form_class = forms.ShiftForm
    citation = CITATION

    def perform(self, form: Any) -> str:
        shift = services.shift_create(facility=self.facility, user=self.request.user, **form.cleaned_data)
        messages.success(self.request, f"Shift {shift} added.")
        return reverse("staffing:rosters")


class SurveillanceView(_ReadsAndWrites, TemplateView):
    """The cameras, what each covers, which are out of service, and the open tables that leaves short."""

    template_name = "staffing/surveillance.html"
    title = "Surveillance cameras"
    citation = "577.9(a)"
    write_capability = Capability.MANAGE_CAMERAS

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        cameras = list(selectors.cameras_of(self.facility))
        context["cameras"] = [(c, [v for v in c.coverage.all() if v.active],
                               next((o for o in c.outages.all() if o.ended_at is None), None)) for c in cameras]
        context["short"] = [p for p in selectors.open_violations(self.facility) if p.rule == "cameras"]
        context.setdefault("camera_form", forms.CameraForm())
        context.setdefault("coverage_form", forms.CoverageForm(facility=self.facility))
        context["may_write"] = self.allows(self.request.user, "POST")
        return context

    def post(self, request: HttpRequest) -> HttpResponse:
        which = request.POST.get("form", "")
        call: Callable[[], Any]
        if which == "coverage":
            form: Any = forms.CoverageForm(request.POST, facility=self.facility)
            call = lambda: services.coverage_set(user=request.user, **form.cleaned_data)  # noqa: E731
        else:
            form = forms.CameraForm(request.POST)
            call = lambda: services.camera_register(facility=self.facility, user=request.user,  # noqa: E731
                                                    **form.cleaned_data)
        return self.submit(form, call, lambda _: reverse("staffing:surveillance"), done="Recorded.",
                           form_key="coverage_form" if which == "coverage" else "camera_form")


class _CameraMixin:
    kwargs: dict[str, Any]
    facility: Any

    def get_camera(self) -> Camera:
        return get_object_or_404(Camera, facility=self.facility, pk=self.kwargs["pk"])


class CameraOutView(_CameraMixin, ServiceFormView):
    template_name = "staffing/form.html"
    title = "Camera out of service"
    capability = Capability.MANAGE_CAMERAS
    form_class = forms.CameraOutForm
    citation = "577.9(a)"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"subject": f"Camera {self.get_camera().code}"}

    def perform(self, form: Any) -> str:
        began = services.camera_out_of_service(camera=self.get_camera(), reason=form.cleaned_data["reason"],
                                               user=self.request.user)
        if began:
            messages.warning(self.request, " ".join(p.words for p in began))
        return reverse("staffing:surveillance")


class CameraBackView(_CameraMixin, CapabilityRequiredMixin, View):
    capability = Capability.MANAGE_CAMERAS
    citation = "577.9(a)"

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        try:
            services.camera_back_in_service(camera=self.get_camera(), user=request.user)
        except (ValidationError, PermissionDenied) as error:
            for message in refusal_messages(error):
                messages.error(request, message)
        return HttpResponseRedirect(reverse("staffing:surveillance"))


class OverrideCreateView(ServiceFormView):
    """A shift manager's signed decision to open a table that breaks a rule now."""

    template_name = "staffing/form.html"
    title = "Open a table that breaks a staffing or surveillance rule"
    capability = Capability.OVERRIDE_STAFFING
    form_class = forms.OverrideForm
    citation = CITATION

    def get_table(self) -> GamingTable:
        return get_object_or_404(tables_of(self.facility).select_related("game"), pk=self.kwargs["table_pk"])

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        table = self.get_table()
        verdict = evaluate(selectors.floor_at(self.facility, timezone.now(), also=table),
                           selectors.rules_in_force())[table.pk]
        return context | {"subject": f"Table {table.number}", "violations": verdict}

    def perform(self, form: Any) -> str:
        override = services.override_record(table=self.get_table(), user=self.request.user, **form.cleaned_data)
        messages.success(self.request, f"Override signed: table {override.table.number} may open this gaming day.")
        return reverse("staffing:override-detail", args=[override.pk])


class OverrideDetailView(CapabilityRequiredMixin, DetailView):
    template_name = "staffing/override_detail.html"
    title = "Staffing override"
    citation = CITATION
    context_object_name = "override"

    def get_queryset(self) -> Any:
        return selectors.overrides_of(self.facility)
