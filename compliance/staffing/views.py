"""Staffing and surveillance pages: the floor's verdict, the pit's roster, the surveillance room's cameras and
the shift manager's override. Thin: read through the selectors, write through the services."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.urls import reverse
from django.utils import timezone
from django.views.generic import DetailView, TemplateView

from compliance.gaming_day import gaming_day
from compliance.middleware import SAFE_METHODS
from compliance.models import GamingTable
from compliance.roles import Capability, has_capability, is_inspector
from compliance.selectors import tables_of
from compliance.staffing import forms, selectors, services
from compliance.staffing.models import Assignment
from compliance.staffing.rules import evaluate
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404

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


class _ReadsAndWrites(ServiceFormView):
    """A page everyone at the facility reads, with a form posting to it that needs ``write_capability``."""

    write_capability: Capability = Capability.MANAGE_ROSTERS
    action_page = False  # a record page with a form on it (compliance.navigation.action_page)

    @classmethod
    def allows(cls, user: Any, method: str = "GET") -> bool:
        if method in SAFE_METHODS:
            return is_inspector(user) or has_capability(user, Capability.VIEW_RECORDS)
        return has_capability(user, cls.write_capability)

    def get_form_kwargs(self) -> dict[str, Any]:
        return super().get_form_kwargs() | {"facility": self.facility}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"may_write": self.allows(self.request.user, "POST")}


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


class RosterListView(_ReadsAndWrites):
    template_name = "staffing/rosters.html"
    title = "Rosters"
    citation = CITATION
    form_class = forms.RosterForm

    def get_initial(self) -> dict[str, Any]:
        return {"gaming_date": gaming_day(self.facility)}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["rosters"] = selectors.rosters_of(self.facility)[:60]
        context["shifts"] = selectors.shifts_of(self.facility)
        return context

    def perform(self, form: Any) -> str:
        roster = services.roster_create(facility=self.facility, user=self.request.user, **form.cleaned_data)
        return reverse("staffing:roster", args=[roster.pk])


class _OneRoster(_ReadsAndWrites):
    def find_records(self) -> None:
        self.roster = found_or_404(selectors.rosters_of(self.facility).filter(pk=self.kwargs["pk"]).first(), "roster")


class RosterView(_OneRoster):
    """One shift's roster for the whole pit: who is where, each table's verdict as the roster stands, and the
    form to place a person (a relief dealer, a floorperson over a table)."""

    template_name = "staffing/roster.html"
    title = "Roster"
    citation = CITATION
    form_class = forms.AssignmentForm

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        roster = self.roster
        assignments = list(roster.assignments.select_related("person__profile", "table__game")
                           .order_by("table__number", "position", "starts_at"))
        tables = sorted({a.table for a in assignments}, key=lambda t: t.number)
        # The roster's tables judged as if open, so a gap shows before the table opens.
        floor = selectors.floor_at(self.facility, timezone.now(), also=tables)
        verdicts = evaluate(floor, selectors.rules_in_force())
        context["roster"] = roster
        context["rows"] = [(t, [a for a in assignments if a.table_id == t.pk], verdicts.get(t.pk, []))
                           for t in tables]
        context["end_form"] = forms.AssignmentEndForm()
        return context

    def perform(self, form: Any) -> str:
        services.assignment_add(roster=self.roster, user=self.request.user, **form.cleaned_data)
        messages.success(self.request, "Placed on the roster.")
        return reverse("staffing:roster", args=[self.roster.pk])


class RosterPitView(_OneRoster):
    """The whole pit on one form: every table's places, filled in from who is placed now; a save ends the places
    emptied or changed and takes the new ones at one instant."""

    template_name = "staffing/pit.html"
    title = "The whole pit"
    citation = CITATION
    form_class = forms.PitForm

    def get_form_kwargs(self) -> dict[str, Any]:
        current: dict[int, list[Assignment]] = {}
        for a in self.roster.assignments.filter(ends_at__isnull=True).order_by("starts_at", "pk"):
            current.setdefault(a.table_id, []).append(a)
        return super().get_form_kwargs() | {"tables": tables_of(self.facility).select_related("game"),
                                            "current": current, "staffing": selectors.rules_in_force().staffing}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"roster": self.roster}

    def perform(self, form: Any) -> str:
        ended, placed = services.roster_fill(roster=self.roster, wanted=form.wanted(), user=self.request.user)
        messages.success(self.request, f"The pit's roster is saved: {placed} placed, {ended} ended.")
        return reverse("staffing:roster", args=[self.roster.pk])


class AssignmentEndView(_ReadsAndWrites):
    """A placement's End button on the roster."""

    button = True
    citation = CITATION
    form_class = forms.AssignmentEndForm

    def get_form_kwargs(self) -> dict[str, Any]:
        return ServiceFormView.get_form_kwargs(self)

    def find_records(self) -> None:
        self.assignment = found_or_404(selectors.assignment_in(self.facility, self.kwargs["pk"],
                                                               self.kwargs["assignment_pk"]), "placement")

    def back_url(self) -> str:
        return reverse("staffing:roster", args=[self.kwargs["pk"]])

    def perform(self, form: Any) -> str:
        services.assignment_end(assignment=self.assignment, user=self.request.user, note=form.cleaned_data["note"])
        messages.success(self.request, "Ended.")
        return self.back_url()


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


class SurveillanceView(_ReadsAndWrites):
    """The cameras, what each covers, which are out of service, and the open tables that leaves short. Two forms
    post here (``form``: "camera" registers one, "coverage" records what one covers)."""

    template_name = "staffing/surveillance.html"
    title = "Surveillance cameras"
    citation = "577.9(a)"
    write_capability = Capability.MANAGE_CAMERAS

    def find_records(self) -> None:
        self.which = "coverage" if self.request.POST.get("form") == "coverage" else "camera"

    def get_form_class(self) -> Any:
        return forms.CoverageForm if self.which == "coverage" else forms.CameraForm

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        return kwargs if self.which == "coverage" else {k: v for k, v in kwargs.items() if k != "facility"}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        posted = kwargs.pop("form", None)
        context = super().get_context_data(**kwargs)
        cameras = list(selectors.cameras_of(self.facility))
        context["cameras"] = [(c, [v for v in c.coverage.all() if v.active],
                               next((o for o in c.outages.all() if o.ended_at is None), None)) for c in cameras]
        context["short"] = [p for p in selectors.open_violations(self.facility) if p.rule == "cameras"]
        context["camera_form"] = forms.CameraForm()
        context["coverage_form"] = forms.CoverageForm(facility=self.facility)
        if posted is not None and posted.is_bound:
            context[f"{self.which}_form"] = posted
        return context

    def perform(self, form: Any) -> str:
        if self.which == "coverage":
            services.coverage_set(user=self.request.user, **form.cleaned_data)
        else:
            services.camera_register(facility=self.facility, user=self.request.user, **form.cleaned_data)
        messages.success(self.request, "Recorded.")
        return reverse("staffing:surveillance")


class _CameraMixin(CapabilityRequiredMixin):
    kwargs: dict[str, Any]

    def find_records(self) -> None:
        self.camera = found_or_404(selectors.cameras_of(self.facility).filter(pk=self.kwargs["pk"]).first(), "camera")


class CameraOutView(_CameraMixin, ServiceFormView):
    template_name = "staffing/form.html"
    title = "Camera out of service"
    capability = Capability.MANAGE_CAMERAS
    form_class = forms.CameraOutForm
    citation = "577.9(a)"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"subject": f"Camera {self.camera.code}"}

    def perform(self, form: Any) -> str:
        began = services.camera_out_of_service(camera=self.camera, reason=form.cleaned_data["reason"],
                                               user=self.request.user)
        if began:
            messages.warning(self.request, " ".join(p.words for p in began))
        return reverse("staffing:surveillance")


class CameraBackView(_CameraMixin, ServiceFormView):
    """A camera's Back in service button on the surveillance page."""

    button = True
    capability = Capability.MANAGE_CAMERAS
    citation = "577.9(a)"

    def back_url(self) -> str:
        return reverse("staffing:surveillance")

    def perform(self, form: Any) -> str:
        services.camera_back_in_service(camera=self.camera, user=self.request.user)
        return self.back_url()


class OverrideCreateView(ServiceFormView):
    """A shift manager's signed decision to open a table that breaks a rule now."""

    template_name = "staffing/form.html"
    title = "Open a table that breaks a staffing or surveillance rule"
    capability = Capability.OVERRIDE_STAFFING
    form_class = forms.OverrideForm
    citation = CITATION

    def get_table(self) -> GamingTable:
        return found_or_404(tables_of(self.facility).select_related("game").filter(pk=self.kwargs["table_pk"]).first(),
                            "table")

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
