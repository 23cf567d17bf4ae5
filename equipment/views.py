"""Screens of the equipment logs. Views only call services and selectors; every query is scoped
to the facility the user works in."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone
from django.views.generic import DetailView, TemplateView

from compliance.keyset import keyset_of, keyset_page, stale_link_words
from compliance.models import GamingTable
from compliance.readiness import table_readiness
from compliance.roles import Capability, has_capability
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404
from equipment import selectors, services
from equipment.floor import stands_as_floorperson
from equipment.forms import (
    BackInServiceForm,
    DeckChangeForm,
    DiceChangeForm,
    DiceMethodForm,
    InspectionForm,
    MalfunctionForm,
)
from equipment.models import DeckSet, DiceSet, Malfunction, OpeningInspection

_CLOCK_CITATIONS: tuple[str, ...] = (
    "577.4(d)",
    "675a.3(b)(1)",
    "668a.3(a)–(d)",
    "539.2(a)–(b)",
    "575.2(c)(1)(i)",
    "575.3(c)(1)–(2)",
)


def floor_actions(user: Any) -> dict[str, bool]:
    """Which actions at a table the person may take, so a page offers only those (issue 8, item 13):
    the capability of the role and, for the floorperson's own duties, the floorperson rule
    (equipment/floor.py)."""
    verify = has_capability(user, Capability.VERIFY_EQUIPMENT)
    return {
        "can_open_close": has_capability(user, Capability.OPEN_CLOSE_TABLES),
        "can_floor": verify and stands_as_floorperson(user),
        "can_floor_or_above": verify and stands_as_floorperson(user, or_above=True),
        "can_manage_tables": has_capability(user, Capability.MANAGE_TABLES),
    }


class _TableMixin(CapabilityRequiredMixin):
    """Views about one table of the facility (``table_pk`` in the URL)."""

    kwargs: dict[str, Any]

    def get_table(self) -> GamingTable:
        if not hasattr(self, "_table"):
            self._table = found_or_404(selectors.facility_tables(self.facility).filter(pk=self.kwargs["table_pk"]).first(),
                                       "table")
        return self._table

    def table_url(self) -> str:
        return reverse("equipment:table", args=[self.get_table().pk])


class _ServiceFormView(_TableMixin, ServiceFormView):
    """A form at one table whose valid data goes to one service (:meth:`call_service`); the
    service's refusal is shown on the form, the record made is announced on the table's page."""

    template_name = "equipment/form.html"
    heading = ""
    submit_label = "Save"

    def call_service(self, form: Any) -> Any:
        raise NotImplementedError

    def perform(self, form: Any) -> str:
        record = self.call_service(form)
        messages.success(self.request, f"Recorded: {record}.")
        return self.table_url()

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(table=self.get_table(), heading=self.heading, submit_label=self.submit_label)
        return context


# --- board ------------------------------------------------------------------------------------------------


class BoardView(CapabilityRequiredMixin, TemplateView):
    template_name = "equipment/board.html"
    title = "Live table board"
    citation = _CLOCK_CITATIONS

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["rows"] = selectors.board_rows(self.facility)  # each row carries its table's readiness
        context["now"] = timezone.now()
        context.update(floor_actions(self.request.user))
        return context


class BoardFragmentView(BoardView):
    """The board's rows alone, fetched by static/equipment/board.js every 30 seconds."""

    template_name = "equipment/_board_rows.html"
    title = "Live table board (rows)"


# --- tables -----------------------------------------------------------------------------------------------


class TableDetailView(_TableMixin, TemplateView):
    template_name = "equipment/table_detail.html"
    title = "Table equipment"
    citation = _CLOCK_CITATIONS

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        table = self.get_table()
        now = timezone.now()
        context.update(table=table, now=now, readiness=table_readiness(table, now), **selectors.table_equipment(table))
        context.update(floor_actions(self.request.user))
        return context


class TableOpenView(_TableMixin, ServiceFormView):
    button = True
    capability = Capability.OPEN_CLOSE_TABLES
    title = "Open a table"
    citation: tuple[str, ...] = ("577.4(d)", "539.5(a)(1)–(2)", "575.4(a)–(b)")

    def back_url(self) -> str:
        return self.table_url()

    def perform(self, form: Any) -> str:
        services.table_open(table=self.get_table(), user=self.request.user)
        messages.success(self.request, f"Table {self.get_table().number} is open.")
        return self.back_url()


class TableCloseView(TableOpenView):
    title = "Close a table"
    citation = ("577.4(d)",)

    def perform(self, form: Any) -> str:
        services.table_close(table=self.get_table(), user=self.request.user)
        messages.success(self.request, f"Table {self.get_table().number} is closed.")
        return self.back_url()


# --- log forms --------------------------------------------------------------------------------------------


class DiceChangeView(_ServiceFormView):
    form_class = DiceChangeForm
    capability = Capability.VERIFY_EQUIPMENT
    title = "Put dice in play"
    citation = ("577.4(a)", "577.4(d)", "675a.3(a), (d)", "668a.3(a)–(d)", "539.2(a)–(b)", "575.2(c)(1)(i)")
    heading = "Put a new set of dice in play"
    submit_label = "Sign and put in play"

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        table = self.get_table()
        kwargs["requirement"] = selectors.requirement_for(table)
        kwargs["has_current"] = selectors.dice_in_play(table) is not None
        kwargs["dealers"] = selectors.dealers_for(self.facility)
        return kwargs

    def call_service(self, form: DiceChangeForm) -> Any:
        data = form.cleaned_data
        return services.dice_set_change(
            table=self.get_table(),
            user=self.request.user,
            password=data["password"],
            dealer=data["dealer"],
            dealer_password=data["dealer_password"],
            identifiers=data["identifiers"],
            colours=data.get("colours") or "",
            dice_count=data["dice_count"],
            reason=data.get("reason") or "scheduled",
            dice_lost=data.get("dice_lost") or 0,
            note=data.get("note") or "",
        )


class DeckChangeView(_ServiceFormView):
    form_class = DeckChangeForm
    capability = Capability.VERIFY_EQUIPMENT
    title = "Put cards in play"
    citation = ("575.3(a)–(b)", "575.3(c)(1)–(2)", "575.4(a)–(b)")
    heading = "Put cards in play (dealer inspects, floorperson verifies)"
    submit_label = "Sign and put in play"

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        kwargs["has_current"] = selectors.decks_in_play(self.get_table()) is not None
        kwargs["dealers"] = selectors.dealers_for(self.facility)
        return kwargs

    def call_service(self, form: DeckChangeForm) -> Any:
        data = form.cleaned_data
        return services.deck_set_change(
            table=self.get_table(),
            user=self.request.user,
            password=data["password"],
            reason=data.get("reason") or "scheduled",
            note=data.get("note") or "",
            dealer=data["dealer"],
            dealer_password=data["dealer_password"],
            deck_count=data["deck_count"],
            back_colours=data["back_colours"],
            identifiers=data.get("identifiers") or "",
            dealt_from=data["dealt_from"],
            automated_shuffler=data["automated_shuffler"],
            jokers_per_deck=data["jokers_per_deck"],
            second_joker_torn=data["second_joker_torn"],
        )


class InspectionCreateView(_ServiceFormView):
    form_class = InspectionForm
    capability = Capability.VERIFY_EQUIPMENT
    title = "Opening inspection"
    citation = "539.5(a)(1)–(2)"
    heading = "Opening inspection of the electrical device and shaker"
    submit_label = "Sign the inspection"

    def call_service(self, form: InspectionForm) -> Any:
        data = form.cleaned_data
        return services.inspection_record(
            table=self.get_table(),
            user=self.request.user,
            password=data["password"],
            values_entered=[data["value_1"], data["value_2"], data["value_3"]],
            combinations_illuminated=data["combinations_illuminated"],
            automated_shaker_in_use=data["automated_shaker_in_use"],
            shaker_operations=data.get("shaker_operations") or 0,
            shaker_tossed_properly=data["shaker_tossed_properly"],
            note=data.get("note") or "",
        )


class MalfunctionCreateView(_ServiceFormView):
    form_class = MalfunctionForm
    capability = Capability.VERIFY_EQUIPMENT
    title = "Record a malfunction"
    citation = ("539.7(b)–(d)", "575.13(l)–(n)")
    heading = "Record a device malfunction"
    submit_label = "Sign and record"

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        kwargs["devices"] = selectors.devices_for(selectors.requirement_for(self.get_table()))
        return kwargs

    def call_service(self, form: MalfunctionForm) -> Any:
        data = form.cleaned_data
        return services.malfunction_record(
            table=self.get_table(),
            user=self.request.user,
            password=data["password"],
            device=data["device"],
            description=data["description"],
            round_outcome=data["round_outcome"],
            out_of_order=data["out_of_order"],
        )


class BackInServiceView(_ServiceFormView):
    form_class = BackInServiceForm
    capability = Capability.VERIFY_EQUIPMENT
    title = "Device back in service"
    citation = ("539.7(b)–(d)", "575.13(l)–(n)")
    heading = "Record a device fixed and back in service"
    submit_label = "Sign: back in service"

    def get_malfunction(self) -> Malfunction:
        records = selectors.facility_records(Malfunction, self.facility).filter(table=self.get_table())
        return found_or_404(records.filter(pk=self.kwargs["pk"]).first(), "malfunction at this table")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["heading"] = f"{self.heading}: {self.get_malfunction()}"
        return context

    def call_service(self, form: BackInServiceForm) -> Any:
        data = form.cleaned_data
        return services.device_back_in_service(
            malfunction=self.get_malfunction(), user=self.request.user, password=data["password"], repair=data["repair"]
        )


class DiceMethodView(_ServiceFormView):
    form_class = DiceMethodForm
    capability = Capability.MANAGE_TABLES
    title = "Dice method"
    citation = "575.2(c)"
    heading = "How this table determines the starting position"
    submit_label = "Record"

    def get_initial(self) -> dict[str, Any]:
        current = selectors.dice_method_of(self.get_table())
        return {"method": current.method} if current is not None else {}

    def call_service(self, form: DiceMethodForm) -> Any:
        return services.dice_method_record(
            table=self.get_table(), user=self.request.user, method=form.cleaned_data["method"]
        )


# --- records and logs -------------------------------------------------------------------------------------


class _RecordDetailView(CapabilityRequiredMixin, DetailView):
    template_name = "equipment/record_detail.html"
    context_object_name = "record"

    def get_queryset(self) -> QuerySet[Any]:
        return selectors.facility_records(self.model, self.facility)


class DiceDetailView(_RecordDetailView):
    model = DiceSet
    title = "Dice set"
    citation = ("577.4(d)", "668a.3(a)–(d)")

    def get_queryset(self) -> QuerySet[Any]:
        return super().get_queryset().select_related("corrects", "floorperson__profile", "dealer__profile")


class DeckDetailView(_RecordDetailView):
    model = DeckSet
    title = "Cards in play"
    citation = ("575.3(a)–(b)", "575.4(a)–(b)")

    def get_queryset(self) -> QuerySet[Any]:
        return super().get_queryset().select_related("corrects", "floorperson__profile", "dealer__profile")


class InspectionDetailView(_RecordDetailView):
    model = OpeningInspection
    title = "Opening inspection"
    citation = "539.5(a)(1)–(2)"


class MalfunctionDetailView(_RecordDetailView):
    model = Malfunction
    title = "Malfunction"
    citation = ("539.7(b)–(d)", "575.13(l)–(n)")


class DiceLogView(CapabilityRequiredMixin, TemplateView):
    template_name = "equipment/log.html"
    title = "Dice change log"
    citation: tuple[str, ...] = ("577.4(d)", "675a.3(b)(1)", "668a.3(a)–(d)", "539.2(a)–(b)", "575.2(c)(1)(i)")
    model: Any = DiceSet
    cursor, noun = "equipment.dice-log", "dice set"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        keyset, stale, query = keyset_of(self.request.GET, purpose=self.cursor)
        if stale:
            messages.warning(self.request, stale_link_words(f"{self.noun}s"))
        context["page"] = keyset_page(lambda at, limit: selectors.set_log(self.model, self.facility, at, limit),
                                      keyset, size=50, key=lambda s: (s.placed_at, s.pk), purpose=self.cursor)
        context["query"] = query
        context["is_dice"] = self.model is DiceSet
        context["now"] = timezone.now()
        return context


class DeckLogView(DiceLogView):
    title = "Deck change log"
    citation = ("575.3(c)(1)–(2)", "575.4(a)–(b)")
    model = DeckSet
    cursor, noun = "equipment.deck-log", "deck"


class AlertListView(CapabilityRequiredMixin, TemplateView):
    template_name = "equipment/alerts.html"
    title = "Equipment alerts"
    citation = _CLOCK_CITATIONS

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["open_alerts"] = selectors.open_alerts(self.facility)
        context["resolved"] = selectors.resolved_alerts(self.facility)[:50]
        context["now"] = timezone.now()
        return context


class RequirementListView(CapabilityRequiredMixin, TemplateView):
    template_name = "equipment/requirements.html"
    title = "Equipment required per game"
    citation = ("577.4(a)", "675a.3(a), (d)", "675a.6(e)–(f)", "668a.3(a)–(d)", "539.2(a)–(b)", "575.3(a)–(b)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["requirements"] = selectors.requirements()
        return context


# --- report -----------------------------------------------------------------------------------------------
