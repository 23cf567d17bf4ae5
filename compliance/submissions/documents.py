"""The documents of the Rules Submission: the version as filed, the signs of a table (its payout odds, its minimum
and maximum wagers in force, the notice of a change of limits), the gaming guide, and the complete rules for the
security podium. Odds are always "a to b", never "for" (§ 539.6(a)); the system's words on a sign for use never say
"for", so no patron can read a payout so.

A sign prints for use only once the Bureau of Gaming Operations approved its kind's location, size and language
(§ 521.8(d)): then at the approved size, with the approval's date, reference, location and language. Without an
approval (or asked for a preview) it prints watermarked "PREVIEW — not approved for use (§ 521.8(d))"."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from reportlab.lib import colors, pagesizes
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Flowable, KeepTogether, Paragraph, Spacer, Table, TableStyle

from compliance.documents import (
    CELL,
    FONT,
    FONT_BOLD,
    DocumentMeta,
    data_table,
    markup_safe,
    render_pdf,
    signature_block,
    styles,
)
from compliance.games.documents import FIGURE_HEADER, figure_rows
from compliance.gaming_day import local_time
from compliance.models import Facility
from compliance.submissions import catalogue, requirements, selectors
from compliance.submissions.guides import high_roll_dice_lines, option_words, payout_lines
from compliance.submissions.models import GamingGuide, RulesSubmission, SignApproval, WagerLimitChange
from compliance.submissions.rules_text import chapter_text

__all__ = ["PREVIEW", "guide_pdf", "limit_sign_pdf", "limits_sign_pdf", "payout_sign_lines", "payout_sign_pdf",
           "podium_pdf", "submission_pdf"]

BIG = ParagraphStyle("sign", parent=styles["Normal"], fontName=FONT_BOLD, fontSize=20, leading=26,
                     alignment=TA_CENTER, spaceAfter=10)
LINE = ParagraphStyle("sign-line", parent=styles["Normal"], fontSize=14, leading=19, spaceAfter=4)
SIGN_CELL = ParagraphStyle("sign-cell", parent=styles["Normal"], fontSize=12, leading=15)
SMALL = ParagraphStyle("sign-small", parent=styles["Normal"], fontSize=11, leading=14, spaceBefore=10)
# The signs of the limits, read across a table: the game in 44 points, the limits in 48 to 72 (96 alone on a line).
SIGN_FACILITY = ParagraphStyle("sign-facility", parent=styles["Normal"], fontSize=14, leading=18, alignment=TA_CENTER,
                               textColor=colors.HexColor("#444444"), spaceAfter=6)
SIGN_GAME = ParagraphStyle("sign-game", parent=styles["Normal"], fontName=FONT_BOLD, fontSize=44, leading=50,
                           alignment=TA_CENTER, spaceAfter=14, autoLeading="max")
GAME_TABLE = 28  # points of "Table SB-1:" before the game's name
SIGN_WHEN = ParagraphStyle("sign-when", parent=SIGN_GAME, fontSize=28, leading=34, spaceAfter=10)
SIGN_NOTE = ParagraphStyle("sign-note", parent=styles["Normal"], fontSize=13, leading=17, alignment=TA_CENTER,
                           spaceBefore=8)
SIGN_LINE = ParagraphStyle("sign-requirement", parent=SIGN_NOTE, fontSize=16, leading=20, spaceBefore=2)
LIMIT = ParagraphStyle("sign-limit", parent=styles["Normal"], fontName=FONT_BOLD, alignment=TA_CENTER,
                       autoLeading="max")
LIMIT_LABEL = 26
LIMIT_LEAST, LIMIT_MOST = 48, 72
LIMIT_PADDING = 8
SETTLED = ("A wager accepted by a dealer that exceeds the current table maximum or is lower than the current table "
           "minimum is paid or lost in its entirety in accordance with the rules of the game (§ 521.7(c)).")


PREVIEW = "PREVIEW — not approved for use (§ 521.8(d))"
BANNER = ParagraphStyle("sign-preview", parent=styles["Normal"], fontName=FONT_BOLD, fontSize=14, leading=18,
                        alignment=TA_CENTER, textColor=colors.HexColor("#b42318"), borderColor=colors.HexColor("#b42318"),
                        borderWidth=1.5, borderPadding=6, spaceAfter=14)
_SIZES = {"letter": pagesizes.LETTER, "legal": pagesizes.LEGAL, "tabloid": pagesizes.TABLOID}


def _money(value: Decimal) -> str:
    return f"${catalogue.money_text(value)}"


class _Watermark(Flowable):
    """Takes no room: draws "PREVIEW" across the page it lands on, once per page (a sign's story carries one
    between its parts, so a sign running onto a second page is marked there too)."""

    def __init__(self, pages: set[int]) -> None:
        super().__init__()
        self.pages = pages

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return 0, 0

    def draw(self) -> None:
        canvas = self.canv
        if canvas.getPageNumber() in self.pages:
            return
        self.pages.add(canvas.getPageNumber())
        x, y = canvas.absolutePosition(0, 0)
        width, height = canvas._pagesize
        canvas.saveState()
        canvas.translate(width / 2 - x, height / 2 - y)
        canvas.rotate(35)
        canvas.setFillColor(colors.Color(0.7, 0.1, 0.1, alpha=0.18))
        canvas.setFont(FONT_BOLD, 110)
        canvas.drawCentredString(0, 0, "PREVIEW")
        canvas.setFont(FONT_BOLD, 22)
        canvas.drawCentredString(0, -40, "not approved for use (§ 521.8(d))")
        canvas.restoreState()


def _page(approval: SignApproval | None, preview: bool, *, wide: bool = False) -> tuple[float, float]:
    """The sign's page: the approved size (a preview on letter paper), turned landscape for a ``wide`` sign."""
    page = _SIZES.get(approval.size, pagesizes.LETTER) if approval is not None and not preview else pagesizes.LETTER
    return pagesizes.landscape(page) if wide else page


def _sign(meta: DocumentMeta, story: Sequence[Flowable], approval: SignApproval | None, preview: bool, *,
          wide: bool = False) -> bytes:
    """A sign for use at its approved size with the approval's particulars, or a preview marked on every page.
    ``wide``: a sign read across a table (the limits), landscape and carrying its own heading."""
    page = _page(approval, preview, wide=wide)
    if approval is not None and not preview:
        line = (f"Sign approved by the Bureau of Gaming Operations on {approval.approved_on:%-d %B %Y}, reference "
                f"{approval.reference}. Location: {approval.location}. Size: {approval.get_size_display()}. "
                f"Language: {approval.language} (§ 521.8(d)).")
        return render_pdf(DocumentMeta(title=meta.title, facility_name=meta.facility_name, citation=meta.citation,
                                       pagesize=page, heading=not wide),
                          [*story, Paragraph(markup_safe(line), SIGN_NOTE if wide else SMALL)])
    pages: set[int] = set()
    marked: list[Flowable] = [Paragraph(markup_safe(PREVIEW), BANNER)]
    for part in story:
        marked += [_Watermark(pages), part]
    marked += [_Watermark(pages), Paragraph(markup_safe(
        "The Bureau of Gaming Operations has not approved the location, size and language of this sign: the "
        "compliance officer records its approval on the sign approvals page." if approval is None
        else "Printed as a preview on request; the sign for use carries the Bureau's approval."),
        SIGN_NOTE if wide else SMALL),
        _Watermark(pages)]
    return render_pdf(DocumentMeta(title=meta.title, facility_name=meta.facility_name, citation=meta.citation,
                                   subtitle=PREVIEW, pagesize=page, heading=not wide), marked)


def _width(approval: SignApproval | None, preview: bool, *, wide: bool = False) -> float:
    """The sign's printable width on its page (a preview on letter paper)."""
    return _page(approval, preview, wide=wide)[0] - 1.3 * inch


def _limit_style(size: float, *, align: int = TA_CENTER) -> ParagraphStyle:
    return ParagraphStyle(f"sign-limit-{size:.1f}-{align}", parent=LIMIT, fontSize=size, leading=size * 1.1,
                          alignment=align)


def _limits_block(minimum: str, maximum: str, width: float) -> Table:
    """The minimum and the maximum wager side by side, each amount as large as its half of the sign holds (72
    points at most); when a half would print an amount under 48 points, one limit a line, its words beside it."""
    widest = max(stringWidth(amount, FONT_BOLD, 1) for amount in (minimum, maximum))
    size = min(LIMIT_MOST, (width / 2 - 2 * LIMIT_PADDING) / widest)
    label = f'<font name="{FONT}" size="{LIMIT_LABEL}">{{}}</font>'
    if size >= LIMIT_LEAST:
        style = _limit_style(size)
        cells = [[Paragraph(f"{label.format('Minimum wager')}<br/>{markup_safe(minimum)}", style),
                  Paragraph(f"{label.format('Maximum wager')}<br/>{markup_safe(maximum)}", style)]]
        widths = [width / 2, width / 2]
    else:
        words = max(stringWidth(w, FONT, LIMIT_LABEL) for w in ("Minimum wager", "Maximum wager")) + 2 * LIMIT_PADDING
        size = min(LIMIT_MOST, (width - words - 2 * LIMIT_PADDING) / widest)
        style, beside = _limit_style(size, align=TA_RIGHT), _limit_style(LIMIT_LABEL, align=TA_LEFT)
        cells = [[Paragraph(label.format(what), beside), Paragraph(markup_safe(amount), style)]
                 for what, amount in (("Minimum wager", minimum), ("Maximum wager", maximum))]
        widths = [words, width - words]
    block = Table(cells, colWidths=widths, hAlign="CENTER")
    block.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT_BOLD, 12), ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
                               ("LEFTPADDING", (0, 0), (-1, -1), LIMIT_PADDING),
                               ("RIGHTPADDING", (0, 0), (-1, -1), LIMIT_PADDING),
                               ("TOPPADDING", (0, 0), (-1, -1), 10), ("BOTTOMPADDING", (0, 0), (-1, -1), 14),
                               ("BOX", (0, 0), (-1, -1), 2, colors.black),
                               ("INNERGRID", (0, 0), (-1, -1), 1, colors.HexColor("#9aa5b1"))]))
    return block


def _sign_heading(facility_name: str, table: Any) -> list[Flowable]:
    """A wide sign's own heading: the facility, then the table and its game, large."""
    return [Paragraph(markup_safe(facility_name), SIGN_FACILITY),
            Paragraph(f'<font size="{GAME_TABLE}">{markup_safe(f"Table {table.number}:")}</font> '
                      f"{markup_safe(table.game.name)}", SIGN_GAME)]


def _requirements(values: dict[str, Any] | None, *, wide: bool = False) -> list[Flowable]:
    """The game's additional wagering requirements of the version in force (§ 521.7(d)), as a sign prints them."""
    lines = requirements.requirement_lines(values)
    if not lines:
        return []
    heading = markup_safe(f"Wagering requirements (§ {requirements.CLAUSE})")
    if wide:
        return [Spacer(1, 0.1 * inch), Paragraph(f"<b>{heading}</b>", SIGN_LINE),
                *[Paragraph(markup_safe(line), SIGN_LINE) for line in lines]]
    return [Spacer(1, 0.12 * inch), Paragraph(heading, LINE),
            *[Paragraph(markup_safe(f"• {line}"), SIGN_CELL) for line in lines]]


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
    wagering = requirements.requirements_of(values)
    if wagering:
        story += [Spacer(1, 0.06 * inch), data_table(
            ["Additional wagering requirement (§ 521.7(d))", "Increment"],
            [[row["words"], f"${catalogue.money_text(Decimal(row['increment']))}" if row["increment"] else "—"]
             for row in wagering], [5.8 * inch, 1.2 * inch], wrap=CELL)]
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
    title = sub.title if sub.title.casefold().startswith("rules submission") else f"Rules Submission: {sub.title}"
    meta = DocumentMeta(title=title, facility_name=sub.facility.name,
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


def payout_sign_pdf(rules: selectors.TableRules, approval: SignApproval | None = None, *, preview: bool = False
                    ) -> bytes:
    """The sign at the table giving the payout odds of every permissible wager (§ 575.2(b)(6)–(7),
    § 577.2(b)(3), § 675a.1(b)(3), § 539.1(c)(3)), from the approved Rules Submission in force, with the game's
    additional wagering requirements (§ 521.7(d)); for use once its kind is approved (§ 521.8(d))."""
    table = rules.table
    title = table.game.name + (" (six-dice variation)" if rules.six_dice else "")
    rows = [line.rsplit(": ", 1) if ": " in line else [line, ""] for line in payout_sign_lines(rules)]
    width = _width(approval, preview)
    grid = Table([[Paragraph(markup_safe(wager), SIGN_CELL), Paragraph(f"<b>{markup_safe(odds)}</b>", SIGN_CELL)]
                  for wager, odds in rows], colWidths=[width * 0.69, width * 0.31], hAlign="CENTER")
    grid.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, 12),
                              ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#9aa5b1")),
                              ("VALIGN", (0, 0), (-1, -1), "MIDDLE")]))
    source = (f"From Rules Submission version {rules.submission.number}, approved by the Pennsylvania Gaming "
              f"Control Board." if rules.submission is not None else "No approved Rules Submission is in force.")
    story: list[Flowable] = [Paragraph(markup_safe(f"Table {table.number}: {title}"), BIG), grid,
                             *_requirements(rules.approved), Paragraph(markup_safe(SETTLED), SMALL),
                             Paragraph(markup_safe(source), SMALL)]
    meta = DocumentMeta(title="Payout odds", facility_name=table.facility.name,
                        citation=("575.2(b)(6)–(7), 577.2(b)(3), 675a.1(b)(3)", "539.6(a)", "521.8(d)"))
    return _sign(meta, story, approval, preview)


def limits_sign_pdf(rules: selectors.TableRules, approval: SignApproval | None = None, *, preview: bool = False
                    ) -> bytes:
    """The sign at the table giving the minimum and maximum wagers in force (§ 521.7(b), § 521.8(a)), the game's
    additional wagering requirements (§ 521.7(d)) and how a wager outside the limits is settled (§ 521.7(c))."""
    table, limits = rules.table, rules.limits
    assert limits is not None
    since = local_time(table.facility, limits.applied_at or limits.effective_at)
    story: list[Flowable] = [
        *_sign_heading(table.facility.name, table),
        _limits_block(_money(limits.minimum), _money(limits.maximum), _width(approval, preview, wide=True)),
        *_requirements(rules.approved, wide=True),
        Paragraph(markup_safe(SETTLED), SIGN_NOTE),
        Paragraph(markup_safe(f"These limits are in force from {since:%H:%M} on {since:%A %-d %B %Y}; a change is "
                              f"announced at the table with at least 30 minutes' notice (§ 521.8(c))."), SIGN_NOTE),
    ]
    meta = DocumentMeta(title="Minimum and maximum wagers", facility_name=table.facility.name,
                        citation=("521.7(b)", "521.7(c)", "521.8(d)"))
    return _sign(meta, story, approval, preview, wide=True)


def limit_sign_pdf(change: WagerLimitChange, previous: WagerLimitChange | None,
                   approval: SignApproval | None = None, *, preview: bool = False,
                   values: dict[str, Any] | None = None) -> bytes:
    """The sign posted at the table: the new minimum and maximum and the time they take effect
    (§ 521.8(c)(2)(ii)), the game's requirements (``values``: its rules in force, § 521.7(d)) and how a wager
    outside the limits is settled (§ 521.7(c)); for use once its kind is approved (§ 521.8(d))."""
    table = change.table
    when = local_time(table.facility, change.effective_at)
    story: list[Flowable] = [
        *_sign_heading(table.facility.name, table),
        Paragraph("Wager limits change", SIGN_WHEN),
        Paragraph(markup_safe(f"At {when:%H:%M} on {when:%A %-d %B %Y}"), SIGN_WHEN),
        _limits_block(_money(change.minimum), _money(change.maximum), _width(approval, preview, wide=True)),
    ]
    if previous is not None:
        story.append(Paragraph(markup_safe(f"Until then: minimum {_money(previous.minimum)}, maximum "
                                           f"{_money(previous.maximum)}."), SIGN_LINE))
    story += [*_requirements(values, wide=True), Paragraph(markup_safe(SETTLED), SIGN_NOTE)]
    meta = DocumentMeta(title="Notice of a change of wager limits", facility_name=table.facility.name,
                        citation=("521.8(c)(2)", "521.7(c)", "521.8(d)"))
    return _sign(meta, story, approval, preview, wide=True)


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
