"""The game catalogue's screens: every game with its wagers, paytable, readings and exact figures, the options
side by side, and the figures as CSV and PDF. Open to every role, the Board inspector included (nothing here
writes)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views.generic import TemplateView

from compliance.documents import printed_for
from compliance.exports import csv_response, xlsx_response
from compliance.games.citing import FILING, catalogued, clause_words
from compliance.games.documents import figure_rows, figures_csv, figures_pdf, figures_xlsx
from compliance.games.forms import OptionsForm
from compliance.games.math.compare import comparisons
from compliance.games.math.core import Analysis, GameMath, OptionError
from compliance.games.math.registry import game, games
from compliance.views import CapabilityRequiredMixin, found_or_404


class GameListView(CapabilityRequiredMixin, TemplateView):
    template_name = "games/list.html"
    title = "Game math"
    citation = (FILING,)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        listed = [{"game": g, "clauses": clause_words(g.citations)} for g in games()]
        return super().get_context_data(games=listed, **kwargs)


class GameView(CapabilityRequiredMixin, TemplateView):
    template_name = "games/game.html"
    citation: tuple[str, ...] = (FILING,)

    def find_records(self) -> None:
        found: GameMath = found_or_404(game(self.kwargs.get("slug", "")), "game in the catalogue")
        self.game = found
        self.title = f"Game math: {found.title}"
        self.citation = catalogued(found.citations)

    def figures(self) -> tuple[OptionsForm, Analysis | None, list[Any], str]:
        form = OptionsForm(self.request.GET or None, game=self.game)
        chosen = form.chosen() if form.is_valid() else self.game.defaults()
        try:
            analysis = self.game.run(chosen)
            compared = comparisons(self.game, chosen)
        except OptionError as error:
            return form, None, [], str(error)
        return form, analysis, compared, ""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        form, analysis, compared, refusal = self.figures()
        return super().get_context_data(game=self.game, form=form, analysis=analysis, compared=compared,
                                        clauses=clause_words(self.game.citations),
                                        refusal=refusal, rows=figure_rows(analysis) if analysis else [],
                                        query=self.request.GET.urlencode(), **kwargs)


class _GameDownload(GameView):
    """A download of the figures on the page: the same options read, the same refusal (400, in words)."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        _form, analysis, compared, refusal = self.figures()
        if analysis is None:
            return HttpResponse(refusal, status=400, content_type="text/plain; charset=utf-8")
        return self.download(analysis, compared)

    def download(self, analysis: Any, compared: Any) -> HttpResponse:
        raise NotImplementedError


class GameCsvView(_GameDownload):
    def download(self, analysis: Any, compared: Any) -> HttpResponse:
        return csv_response(f"house-edge-{self.game.slug}.csv", figures_csv(self.game, analysis, compared))


class GameXlsxView(_GameDownload):
    def download(self, analysis: Any, compared: Any) -> HttpResponse:
        return xlsx_response(f"house-edge-{self.game.slug}.xlsx", figures_xlsx(self.game, analysis, compared))


class GamePdfView(_GameDownload):
    def download(self, analysis: Any, compared: Any) -> HttpResponse:
        pdf = figures_pdf(self.game, analysis, compared, facility_name=self.facility.name,
                          printed_for=printed_for(self.request.user))
        response = HttpResponse(pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="house-edge-{self.game.slug}.pdf"'
        return response
