"""A game's exact figures as table rows, CSV and PDF in the common document frame, ready to attach to a filing
(§ 521.4(1)(ii): the true odds, the payout odds and the house advantage of each wager)."""

from __future__ import annotations

from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.units import inch
from reportlab.platypus import Flowable, Paragraph, Spacer

from compliance.citations import cite
from compliance.documents import DocumentMeta, fit_table, markup_safe, render_pdf, styles
from compliance.exports import Section, sections_csv, xlsx_bytes
from compliance.games.citing import catalogued, clause_words
from compliance.games.math.compare import Comparison
from compliance.games.math.core import Analysis, GameMath, fraction_text, odds_text, percent

__all__ = ["FIGURE_HEADER", "figure_rows", "figures_csv", "figures_pdf", "figures_xlsx", "sections"]

FIGURE_HEADER = ["Wager", "Tier", "Clause", "Payout odds", "Probability", "True odds", "House advantage",
                 "House advantage %"]


def figure_rows(analysis: Analysis) -> list[list[str]]:
    """A row per wager, then a row per payout tier of a wager that has several."""
    rows = []
    for wager in analysis.wagers:
        payout = wager.payout_odds if len(wager.tiers) <= 1 else "by tier, below"
        rows.append([wager.name, "any winning tier" if len(wager.tiers) > 1 else "", f"§ {wager.clause}", payout,
                     fraction_text(wager.probability),
                     wager.true_odds, fraction_text(wager.house_edge), f"{percent(wager.house_edge)}%"])
        if len(wager.tiers) > 1:
            rows += [["", tier.label, "", odds_text(tier.net), fraction_text(tier.probability),
                      odds_text((1 - tier.probability) / tier.probability), "", ""] for tier in wager.tiers]
    return rows


def _option_label(game: GameMath, name: str) -> str:
    """An option as the game's page names it ("Six Eight Shake payout odds"), never its code ("payout")."""
    return next((o.label for o in game.options if o.name == name), name)


def sections(game: GameMath, analysis: Analysis, compared: list[Comparison]) -> list[Section]:
    found: list[Section] = [
        ("Options applied", ["Option", "Value"],
         [[_option_label(game, name), value] for name, value in analysis.options]),
        ("Wagers", FIGURE_HEADER, figure_rows(analysis)),
    ]
    found += [(c.title, ["Wager", *c.columns], c.percent_rows()) for c in compared]
    found.append(("How the rules were read", ["Reading"], [[r] for r in analysis.readings]))
    notes = [[w.name, w.note] for w in analysis.wagers if w.note]
    if notes:
        found.append(("Notes on wagers", ["Wager", "Note"], notes))
    return found


def _heading(game: GameMath) -> list[str]:
    return [f"Exact odds and house advantage — {game.title}", f"58 Pa. Code {game.chapter}",
            clause_words(game.citations), "; ".join(cite(ref).label for ref in catalogued(game.citations))]


def figures_csv(game: GameMath, analysis: Analysis, compared: list[Comparison]) -> str:
    return sections_csv(_heading(game), sections(game, analysis, compared))


def figures_xlsx(game: GameMath, analysis: Analysis, compared: list[Comparison]) -> bytes:
    """The CSV's sections as an Excel workbook (the exact fractions stay text, the percentages are numbers)."""
    return xlsx_bytes(_heading(game), sections(game, analysis, compared), sheet=game.title)


def figures_pdf(game: GameMath, analysis: Analysis, compared: list[Comparison], *, facility_name: str,
                printed_for: str = "") -> bytes:
    story: list[Flowable] = [Paragraph(
        "Every figure is exact: rational arithmetic over every outcome, not simulation. House advantage is the "
        "player's expected loss per unit wagered.", styles["Normal"]), Spacer(1, 0.1 * inch)]
    widths = [1.8, 1.5, 0.8, 1.5, 1.2, 1.2, 1.2, 0.9]
    width = landscape(letter)[0] - 1.2 * inch
    for title, header, rows in sections(game, analysis, compared):
        story.append(Paragraph(markup_safe(title), styles["Heading2"]))
        # columns as wide as their longest figure (a 14-digit numerator is never broken), the rest by these shares
        shares = widths if header == FIGURE_HEADER else None
        story += [fit_table(header, rows, width, shares, empty="None."), Spacer(1, 0.12 * inch)]
    meta = DocumentMeta(title=f"Exact odds and house advantage: {game.title}", facility_name=facility_name,
                        citation=catalogued(game.citations), printed_for=printed_for, pagesize=landscape(letter),
                        subtitle=f"58 Pa. Code {game.chapter}: {clause_words(game.citations)}. Options: "
                        + ("; ".join(f"{_option_label(game, k)}: {v}" for k, v in analysis.options) or "none") + ".")
    return render_pdf(meta, story)
