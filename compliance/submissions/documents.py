"""The documents of the Rules Submission: the version as filed, the payout sign and the wager limit sign of a table,
the gaming guide, and the complete rules for the security podium. Odds are always "a to b", never "for"
(§ 539.6(a)); the signs use the word "for" nowhere, so no patron can read a payout so."""

from __future__ import annotations

from decimal import Decimal

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import Flowable, KeepTogether, Paragraph, Spacer, Table, TableStyle

from compliance.documents import CELL, DocumentMeta, data_table, markup_safe, render_pdf, signature_block, styles
from compliance.games.documents import FIGURE_HEADER, figure_rows
from compliance.gaming_day import local_time
from compliance.models import Facility
from compliance.submissions import catalogue, selectors
from compliance.submissions.guides import high_roll_dice_lines, option_words, payout_lines
from compliance.submissions.models import GamingGuide, RulesSubmission, WagerLimitChange
from compliance.submissions.rules_text import chapter_text

__all__ = ["guide_pdf", "limit_sign_pdf", "payout_sign_lines", "payout_sign_pdf", "podium_pdf", "submission_pdf"]

BIG = ParagraphStyle("sign", parent=styles["Normal"], fontName="Helvetica-Bold", fontSize=20, leading=26,
                     alignment=TA_CENTER, spaceAfter=10)
LINE = ParagraphStyle("sign-line", parent=styles["Normal"], fontSize=14, leading=19, spaceAfter=4)
SIGN_CELL = ParagraphStyle("sign-cell", parent=styles["Normal"], fontSize=12, leading=15)
SMALL = ParagraphStyle("sign-small", parent=styles["Normal"], fontSize=11, leading=14, spaceBefore=10)
SETTLED = ("A wager accepted by a dealer that exceeds the current table maximum or is lower than the current table "
           "minimum is paid or lost in its entirety in accordance with the rules of the game (§ 521.7(c)).")


def _money(value: Decimal) -> str:
    return f"${catalogue.money_text(value)}"


# Of the game math's figure columns, those a portrait page holds: wager, tier, clause, payout odds, true odds and
# house advantage % (the exact fractions are in the game math's own PDF and CSV, /games/<game>/).
_COLUMNS = (0, 1, 2, 3, 5, 7)


def _choices(code: str, values: dict[str, str]) -> list[list[str]]:
    rules = catalogue.game_rules(code)
    assert rules is not None
    return [[o.label, option_words(o, values.get(o.name, o.default)), f"§ {o.clause}"]
            for o in rules.options if not (o.when and values.get(o.when) != catalogue.YES)]


def _game_story(code: str, title: str, values: dict[str, str]) -> list[Flowable]:
    rules = catalogue.game_rules(code)
    assert rules is not None
    story: list[Flowable] = [Paragraph(markup_safe(f"{title} (58 Pa. Code ch. {rules.chapter})"), styles["Heading2"])]
    if rules.options:
        story.append(data_table(["Choice", "As filed", "Clause"], _choices(code, values), [3.4 * inch, 2.6 * inch,
                                                                                         1.0 * inch], wrap=CELL))
    if rules.fixed:
        story.append(Paragraph(markup_safe(rules.fixed), styles["Normal"]))
    variants = [(title, catalogue.analysis(code, values))]
    if code == "high-roll-dice" and values.get("six_dice") == catalogue.YES:
        variants.append((f"{title}, six-dice variation", catalogue.analysis(code, values, six_dice=True)))
    for name, figures in variants:
        if figures is None:
            continue
        story += [Spacer(1, 0.08 * inch), Paragraph(markup_safe(f"Exact figures: {name}"), styles["Heading4"]),
                  data_table([FIGURE_HEADER[i] for i in _COLUMNS],
                             [[row[i] for i in _COLUMNS] for row in figure_rows(figures)],
                             [w * inch for w in (1.6, 1.6, 0.8, 0.9, 1.5, 0.8)], wrap=CELL)]
    return [*story, Spacer(1, 0.15 * inch)]


def submission_pdf(sub: RulesSubmission, *, printed_for: str = "") -> bytes:
    """The version as filed with the Board (§ 521.8(b)): every game's choices with its clause and the exact
    figures they give, the Board's decision, and the signature."""
    decided = getattr(sub, "decision", None) if hasattr(sub, "decision") else None
    lines = [f"Version {sub.number}" + (f", amending version {sub.amends.number}" if sub.amends else "") + "."]
    if sub.summary:
        lines.append(sub.summary)
    if decided is not None:
        lines.append(f"Board decision: {decided.get_decision_display()} {decided.decided_on:%-d %B %Y}"
                     + (f", in effect from the gaming day of {decided.effective_on:%-d %B %Y}" if decided.effective_on
                        else "") + (f". Reference {decided.reference}" if decided.reference else "") + ".")
    story: list[Flowable] = [Paragraph(markup_safe(line), styles["Normal"]) for line in lines]
    story.append(Spacer(1, 0.1 * inch))
    for rules in catalogue.GAMES:
        story += _game_story(rules.code, rules.title, sub.rules.get(rules.code, {}))
    story += [Paragraph("Signature", styles["Heading2"]), signature_block(sub)]
    meta = DocumentMeta(title=f"Rules Submission: {sub.title}", facility_name=sub.facility.name,
                        citation=("521.8(b)", "575.12(b)", "539.6(b)", "675a.6(a)"), printed_for=printed_for)
    return render_pdf(meta, story)


def payout_sign_lines(rules: selectors.TableRules) -> list[str]:
    """The sign's lines: each wager's payout odds at this table, and Asia Poker's payout limit."""
    code = rules.table.game.code
    values = rules.values()
    if code == "high-roll-dice":
        lines = high_roll_dice_lines(rules.six_dice, values.get("millionaire_row_max", "1.00"))
    else:
        figures = catalogue.analysis(code, values)
        wagers = [w for w in (figures.wagers if figures else ())
                  if not (w.code == "bonus" and not rules.runs("bonus_wager"))]
        lines = (["Asia Poker Wager: 1 to 1"] if code == "asia-poker" else []) + payout_lines(wagers)
    if code == "asia-poker":
        limit = values.get("payout_limit")
        lines.append(f"Payout limit: the most paid to a player on a single hand is {_money(Decimal(limit))}"
                     if limit else "No payout limit per hand is established at this table.")
    return lines


def payout_sign_pdf(rules: selectors.TableRules) -> bytes:
    """The sign at the table giving the payout odds of every permissible wager (§ 575.2(b)(6)–(7),
    § 577.2(b)(3), § 675a.1(b)(3), § 539.1(c)(3)), from the approved Rules Submission in force."""
    table = rules.table
    title = table.game.name + (" (six-dice variation)" if rules.six_dice else "")
    rows = [line.rsplit(": ", 1) if ": " in line else [line, ""] for line in payout_sign_lines(rules)]
    grid = Table([[Paragraph(markup_safe(wager), SIGN_CELL), Paragraph(f"<b>{markup_safe(odds)}</b>", SIGN_CELL)]
                  for wager, odds in rows], colWidths=[5.0 * inch, 2.2 * inch], hAlign="CENTER")
    grid.setStyle(TableStyle([("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#9aa5b1")),
                              ("VALIGN", (0, 0), (-1, -1), "MIDDLE")]))
    source = (f"From Rules Submission version {rules.submission.number}, approved by the Pennsylvania Gaming "
              f"Control Board." if rules.submission is not None else "No approved Rules Submission is in force.")
    story: list[Flowable] = [Paragraph(markup_safe(f"Table {table.number}: {title}"), BIG), grid,
                             Paragraph(markup_safe(SETTLED), SMALL), Paragraph(markup_safe(source), SMALL)]
    meta = DocumentMeta(title="Payout odds", facility_name=table.facility.name,
                        citation=("575.2(b)(6)–(7), 577.2(b)(3), 675a.1(b)(3)", "539.6(a)"))
    return render_pdf(meta, story)


def limit_sign_pdf(change: WagerLimitChange, previous: WagerLimitChange | None) -> bytes:
    """The sign posted at the table: the new minimum and maximum and the time they take effect
    (§ 521.8(c)(2)(ii)), and how a wager outside the limits is settled (§ 521.7(c))."""
    table = change.table
    when = local_time(table.facility, change.effective_at)
    story: list[Flowable] = [
        Paragraph(markup_safe(f"Table {table.number}: {table.game.name}"), BIG),
        Paragraph("Wager limits change", BIG),
        Paragraph(markup_safe(f"At {when:%H:%M} on {when:%A %-d %B %Y}"), BIG),
        Paragraph(markup_safe(f"Minimum wager: {_money(change.minimum)}"), LINE),
        Paragraph(markup_safe(f"Maximum wager: {_money(change.maximum)}"), LINE),
    ]
    if previous is not None:
        story.append(Paragraph(markup_safe(f"Until then: minimum {_money(previous.minimum)}, maximum "
                                           f"{_money(previous.maximum)}."), LINE))
    story.append(Paragraph(markup_safe(SETTLED), SMALL))
    meta = DocumentMeta(title="Notice of a change of wager limits", facility_name=table.facility.name,
                        citation=("521.8(c)(2)", "521.7(c)"))
    return render_pdf(meta, story)


def guide_pdf(guide: GamingGuide) -> bytes:
    story: list[Flowable] = []
    for section in guide.body.get("sections", []):
        story.append(KeepTogether([Paragraph(markup_safe(section["heading"]), styles["Heading2"]),
                                   *[Paragraph(markup_safe(line), styles["Normal"]) for line in section["lines"]]]))
    approval = getattr(guide, "approval", None) if hasattr(guide, "approval") else None
    story.append(Spacer(1, 0.2 * inch))
    story.append(Paragraph(markup_safe(
        f"Version {guide.version}" + (f", approved by the Bureau of Gaming Operations on "
                                      f"{approval.approved_on:%-d %B %Y}." if approval else
                                      ": not approved by the Bureau of Gaming Operations; not to be distributed.")),
        styles["Italic"]))
    meta = DocumentMeta(title=guide.body.get("title", "Gaming guide"), facility_name=guide.facility.name,
                        citation="521.9(b)")
    return render_pdf(meta, story)


def podium_pdf(facility: Facility, sub: RulesSubmission | None, *, printed_for: str = "") -> bytes:
    """The complete rules of every authorized game kept at the security podium (§ 521.9(a)): the facility's
    choices and exact payouts from the Rules Submission in force, then the text of each game's chapter."""
    story: list[Flowable] = []
    if sub is None:
        story.append(Paragraph("No Rules Submission is in force.", styles["Normal"]))
    else:
        story.append(Paragraph(markup_safe(f"Rules Submission in force: version {sub.number}, {sub.title}."),
                               styles["Normal"]))
        for rules in catalogue.GAMES:
            story += _game_story(rules.code, rules.title, sub.rules.get(rules.code, {}))
            text = chapter_text(rules.code)
            if text:
                story.append(Paragraph(markup_safe(f"58 Pa. Code chapter {rules.chapter}: the text"),
                                       styles["Heading3"]))
                story += [Paragraph(markup_safe(par), CELL) for par in text]
    meta = DocumentMeta(title="Complete rules of the games", facility_name=facility.name, citation="521.9(a)",
                        printed_for=printed_for)
    return render_pdf(meta, story)
