"""Pages of the Rules Submission (§ 521.8(b)): its versions, each game's choices with the house advantage beside
them, filing, the Board's decision, what changed between two versions, the tables' rules and payout signs.
Thin: read through the selectors, write through the services."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.documents import printed_for
from compliance.games.math.core import OptionError, percent
from compliance.gaming_day import gaming_day
from compliance.models import GamingTable
from compliance.roles import Capability
from compliance.submissions import catalogue, documents, forms, requirements, selectors, services
from compliance.submissions.guides import option_words
from compliance.submissions.models import SignKind
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404

__all__ = [
    "CompareView",
    "DecisionView",
    "DraftView",
    "FiguresView",
    "GameRulesView",
    "PayoutSignView",
    "PodiumView",
    "RequirementsView",
    "SubmissionDetailView",
    "SubmissionListView",
    "SubmissionPdfView",
    "SubmitView",
    "TableSettingView",
    "TablesView",
]

CITATION = ("521.8(b)", "575.7(e)", "575.7(f)", "575.11(c)", "575.6(b)(3)", "575.12(b)", "575.12(c)", "675a.6(a)",
            "675a.2(e)(4)", "539.6(b)", "577.8")




def _pdf(content: bytes, name: str) -> HttpResponse:
    response = HttpResponse(content, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{name}"'
    return response


def choice_rows(code: str, values: dict[str, str]) -> list[dict[str, Any]]:
    """Each option as filed, with the house advantage each of its choices gives where the engine computes it."""
    rules = catalogue.game_rules(code)
    rows = []
    for option in rules.options if rules else ():
        figures = [(choice, [(w.name, percent(w.house_edge)) for w in wagers])
                   for choice, wagers in catalogue.choice_figures(code, option, values)]
        rows.append({"option": option, "value": values.get(option.name, option.default),
                     "words": option_words(option, values.get(option.name, option.default)),
                     "applies": not (option.when and values.get(option.when) != catalogue.YES),
                     "figures": figures})
    return rows


def choice_notes(code: str, values: dict[str, str]) -> dict[str, dict[str, str]]:
    """Per option, per choice: the house advantage it gives in words ("Bonus Wager 7.5401%"; a variation's range
    over its wagers)."""
    rules = catalogue.game_rules(code)
    notes: dict[str, dict[str, str]] = {}
    for option in rules.options if rules else ():
        for choice, wagers in catalogue.choice_figures(code, option, values):
            edges = [percent(w.house_edge) for w in wagers]
            if len(wagers) == 1:
                words = f"{wagers[0].name}: house advantage {edges[0]}%"
            elif wagers:
                words = f"house advantage {min(edges)}% to {max(edges)}% across its {len(wagers)} wagers"
            else:
                continue
            notes.setdefault(option.name, {})[choice] = words
    return notes


def game_sections(values_of: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    sections = []
    for rules in catalogue.GAMES:
        values = values_of.get(rules.code, {})
        try:
            figures = catalogue.analysis(rules.code, values)
            refusal = ""
        except OptionError as error:
            figures, refusal = None, str(error)
        sections.append({"rules": rules, "rows": choice_rows(rules.code, values), "figures": figures,
                         "refusal": refusal, "requirements": requirements.requirements_of(values)})
    return sections


class SubmissionListView(CapabilityRequiredMixin, TemplateView):
    template_name = "submissions/list.html"
    title = "Rules Submission"
    citation = ("521.8(b)",)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        versions = list(selectors.submissions_of(self.facility))
        today, current = gaming_day(self.facility), selectors.in_force(self.facility)
        return super().get_context_data(**kwargs) | {
            "rows": [(v, selectors.standing(v, today, current=current)) for v in versions],
            "current": current, "versions": versions}


class SubmissionDetailView(CapabilityRequiredMixin, TemplateView):
    template_name = "submissions/detail.html"
    title = "Rules Submission version"
    citation = CITATION

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        sub = found_or_404(selectors.submission(self.facility, kwargs["pk"]))
        return super().get_context_data(**kwargs) | {
            "sub": sub, "standing": selectors.standing(sub), "sections": game_sections(sub.rules),
            "decision": getattr(sub, "decision", None) if sub.is_signed() else None,
            "changes": selectors.diff(sub.amends.rules, sub.rules) if sub.amends else [],
            "refusals": [] if sub.is_signed() else selectors.submission_refusals(sub)}


class SubmissionPdfView(CapabilityRequiredMixin, TemplateView):
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        sub = found_or_404(selectors.submission(self.facility, kwargs["pk"]))
        return _pdf(documents.submission_pdf(sub, printed_for=printed_for(request.user)),
                    f"rules-submission-v{sub.number}.pdf")


class CompareView(CapabilityRequiredMixin, TemplateView):
    """What changed between two versions (the inspector's question)."""

    template_name = "submissions/compare.html"
    title = "Compare two versions"
    citation = ("521.8(b)",)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        versions = list(selectors.submissions_of(self.facility))
        a = selectors.submission(self.facility, self.request.GET.get("a", ""))
        b = selectors.submission(self.facility, self.request.GET.get("b", ""))
        return super().get_context_data(**kwargs) | {
            "versions": versions, "a": a, "b": b,
            "changes": selectors.diff(a.rules, b.rules) if a is not None and b is not None else None}


class _Event(ServiceFormView):
    capability = Capability.MANAGE_RULES_SUBMISSIONS
    template_name = "submissions/form.html"
    citation: tuple[str, ...] = ("521.8(b)",)

    def subject(self) -> Any:
        return None

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"subject": self.subject()}


class DraftView(_Event):
    form_class = forms.DraftForm
    title = "Draft a version or amendment"

    def perform(self, form: Any) -> str:
        sub = services.submission_draft(facility=self.facility, user=self.request.user, **form.cleaned_data)
        messages.success(self.request, f"Version {sub.number} drafted" + (
            f", amending version {sub.amends.number}." if sub.amends else "."))
        return reverse("submissions:detail", args=[sub.pk])


class _VersionEvent(_Event):
    def subject(self) -> Any:
        return found_or_404(selectors.submission(self.facility, self.kwargs["pk"]))


class GameRulesView(_VersionEvent):
    """One game's choices; the house advantage each choice gives is shown beside it."""

    template_name = "submissions/game.html"
    title = "Choose a game's rules"
    citation = CITATION

    def rules(self) -> catalogue.GameRules:
        return found_or_404(catalogue.game_rules(self.kwargs["game"]))

    def get_form_kwargs(self) -> dict[str, Any]:
        sub = self.subject()
        rules = self.rules()
        values = sub.rules.get(rules.code, rules.defaults())
        return super().get_form_kwargs() | {"rules": rules, "initial": values,
                                            "notes": choice_notes(rules.code, values)}

    def get_form_class(self) -> Any:
        return forms.GameRulesForm

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        sub, rules = self.subject(), self.rules()
        form = kwargs.get("form")
        values = dict(sub.rules.get(rules.code, rules.defaults()))
        if form is not None and form.is_bound:
            values |= {k: str(v) for k, v in form.data.items() if k in {o.name for o in rules.options}}
        try:
            figures, refusal = catalogue.analysis(rules.code, values), ""
        except OptionError as error:
            figures, refusal = None, str(error)
        rows = choice_rows(rules.code, values)
        return super().get_context_data(**kwargs) | {
            "rules": rules, "rows": rows, "figures": figures, "refusal": refusal,
            "has_choice_figures": any(row["figures"] for row in rows)}

    def perform(self, form: Any) -> str:
        sub = self.subject()
        services.submission_game_set(submission=sub, code=self.rules().code, values=form.values(),
                                     user=self.request.user)
        messages.success(self.request, f"{self.rules().title}: choices saved in version {sub.number}.")
        return reverse("submissions:detail", args=[sub.pk])


class RequirementsView(_VersionEvent):
    """One game's additional wagering requirements in a draft version (§ 521.7(d)), filed and frozen with it."""

    form_class = forms.RequirementsForm
    template_name = "submissions/requirements.html"
    title = "Additional wagering requirements"
    citation = ("521.7(d)", "521.8(b)")

    def rules(self) -> catalogue.GameRules:
        return found_or_404(catalogue.game_rules(self.kwargs["game"]))

    def get_form_kwargs(self) -> dict[str, Any]:
        return super().get_form_kwargs() | {
            "current": requirements.requirements_of(self.subject().rules.get(self.rules().code))}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"rules": self.rules()}

    def perform(self, form: Any) -> str:
        sub, rules = self.subject(), self.rules()
        services.submission_requirements_set(submission=sub, code=rules.code, rows=form.rows(), user=self.request.user)
        messages.success(self.request, f"{rules.title}: additional wagering requirements saved in version {sub.number}.")
        return reverse("submissions:detail", args=[sub.pk])


class FiguresView(CapabilityRequiredMixin, TemplateView):
    """The exact figures of a game's choices as typed, for the choice page to show each wager's house advantage
    beside its field while it is typed (``static/compliance/submission-figures.js``). Nothing is saved."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        rules = found_or_404(catalogue.game_rules(kwargs["game"]))
        names = {o.name for o in rules.options}
        values = {name: str(request.GET.get(name, ""))[:200] for name in names if name in request.GET}
        try:
            figures = catalogue.analysis(rules.code, catalogue.clean_game(rules.code, values)) if rules.options \
                else catalogue.analysis(rules.code, {})
        except OptionError as error:
            return JsonResponse({"error": str(error), "wagers": {}})
        wagers = {w.code: {"name": w.name, "payout_odds": w.payout_odds, "house_advantage": f"{percent(w.house_edge)}%"}
                  for w in (figures.wagers if figures else ())}
        return JsonResponse({"error": "", "wagers": wagers})


class SubmitView(_VersionEvent):
    form_class = forms.SignatureForm
    title = "File with the Board"

    def perform(self, form: Any) -> str:
        sub = self.subject()
        services.submission_submit(submission=sub, user=self.request.user, password=form.cleaned_data["password"])
        messages.success(self.request, f"Version {sub.number} is filed with the Board and can no longer change.")
        return reverse("submissions:detail", args=[sub.pk])


class DecisionView(_VersionEvent):
    form_class = forms.DecisionForm
    title = "Record the Board's decision"

    def perform(self, form: Any) -> str:
        sub = self.subject()
        services.board_decision_record(submission=sub, user=self.request.user, **form.cleaned_data)
        messages.success(self.request, f"The Board's decision on version {sub.number} is recorded.")
        return reverse("submissions:detail", args=[sub.pk])


class TablesView(CapabilityRequiredMixin, TemplateView):
    """Each table's rules from the approved submission in force and its own setting; payout signs."""

    template_name = "submissions/tables.html"
    title = "Tables' rules"
    citation = ("521.8(b)", "575.2(b)(6)–(7), 577.2(b)(3), 675a.1(b)(3)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        rows = [r for r in selectors.tables_rules(self.facility) if catalogue.game_rules(r.table.game.code)]
        signs = selectors.signs_in_force(self.facility)
        return super().get_context_data(**kwargs) | {
            "rows": rows, "current": selectors.in_force(self.facility), "rules_sign": signs.get(SignKind.RULES),
            "limits_sign": signs.get(SignKind.LIMITS)}


def _table(facility: Any, pk: Any) -> GamingTable:
    return found_or_404(selectors.tables_of(facility).filter(pk=pk).first())


class TableSettingView(ServiceFormView):
    capability = Capability.SET_TABLE_OPTIONS
    template_name = "submissions/form.html"
    title = "Set a table's options"
    citation = ("521.8(b)", "575.7(e)", "575.7(f)", "675a.6(a)")

    def subject(self) -> GamingTable:
        table = _table(self.facility, self.kwargs["pk"])
        rules = catalogue.game_rules(table.game.code)
        found_or_404(rules if rules is not None and any(o.permission for o in rules.options) else None,
                     "option a table of this game sets")
        return table

    def get_form_class(self) -> Any:
        return forms.TableSettingForm

    def get_form_kwargs(self) -> dict[str, Any]:
        table = self.subject()
        return super().get_form_kwargs() | {"rules": catalogue.game_rules(table.game.code),
                                            "current": selectors.table_setting(table)}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"subject": self.subject()}

    def perform(self, form: Any) -> str:
        table = self.subject()
        services.table_setting_set(table=table, options=form.values(), user=self.request.user)
        messages.success(self.request, f"Table {table.number}'s settings recorded.")
        return reverse("submissions:tables")


class PayoutSignView(CapabilityRequiredMixin, TemplateView):
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        table = _table(self.facility, kwargs["pk"])
        rules = selectors.table_rules(table)
        # No payout sign without an approved Rules Submission in force for the game (§ 521.8(b)).
        found_or_404(rules.submission if catalogue.game_rules(table.game.code) is not None else None,
                     "payout sign: no approved Rules Submission is in force for this game")
        approval = selectors.signs_in_force(self.facility).get(SignKind.RULES)
        return _pdf(documents.payout_sign_pdf(rules, approval, preview=wants_preview(request)),
                    f"payout-sign-{table.number}.pdf")


def wants_preview(request: HttpRequest) -> bool:
    """``?preview=1``: the sign as a preview even when its kind is approved (§ 521.8(d))."""
    return request.GET.get("preview") == "1"


class PodiumView(CapabilityRequiredMixin, TemplateView):
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return _pdf(documents.podium_pdf(self.facility, selectors.in_force(self.facility),
                                         printed_for=printed_for(request.user)), "complete-rules.pdf")
