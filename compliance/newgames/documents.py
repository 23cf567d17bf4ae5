"""The request of § 521.4 as the PDF filed with the Board's Executive Director: every item under its own heading
with its clause, the exact figures of each wager (true odds, payout odds with "to", house advantage as a fraction
and a percentage) under a heading saying whose they are — computed by this system's engine, or stated by the
facility for a game or wager the engine does not model, with its method —, the sketches and pictures drawn (a PDF
attachment listed by name and SHA-256), and the signature block. The content is built as plain data
(:func:`request_items`), then set in the common frame."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TypeAlias

from django.utils import timezone
from PIL import Image as PILImage
from PIL import ImageOps
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Flowable, Image, KeepTogether, Paragraph, Spacer

from compliance.documents import CELL, DocumentMeta, data_table, markup_safe, render_pdf, signature_block, styles
from compliance.games.documents import FIGURE_HEADER
from compliance.newgames.models import CITATION, NewGameRequest, PictureKind, RequestPicture
from compliance.newgames.selectors import CHANGED, Figures

__all__ = ["STATED_HEADER", "Item", "figures_heading", "picture_rows", "request_items", "request_pdf"]

WIDTH = 7.3 * inch  # letter, less the frame's margins
MAX_IMAGE_HEIGHT = 4.2 * inch
MAX_IMAGE_PIXELS_DRAWN = 1600  # longest side as drawn: sharp at that size, and the PDF stays small
HEADING = ParagraphStyle("request-heading", parent=styles["Heading2"])
BODY = ParagraphStyle("request-body", parent=styles["Normal"], spaceAfter=4)
SUBHEADING = ParagraphStyle("request-subheading", parent=styles["Heading4"])
FIGURE = ParagraphStyle("request-figure", parent=CELL, fontSize=7, leading=8.5)
READING = ParagraphStyle("request-reading", parent=CELL, leftIndent=10, bulletIndent=0, spaceAfter=3)
# Points of each column of the figures (FIGURE_HEADER): wager, tier, clause, payout odds, probability, true odds,
# house advantage as a fraction and as a percentage; 525 points, the width between the margins. At 7 points the
# longest figure of the engine's games (a numerator or a denominator of 16 digits) fits a line of its column.
FIGURE_WIDTHS = (78, 60, 50, 54, 80, 73, 80, 50)
CELL_PADDING = 12  # points a table cell leaves beside its text
# The facility's figures (no engine model): wager, payout odds, probability of winning, true odds, house advantage
# as stated and as a percentage computed from it, whether it was checked; 525 points.
STATED_HEADER = ["Wager", "Payout odds", "Probability of winning", "True odds", "House advantage",
                 "House advantage %", "Checked"]
STATED_WIDTHS = (95, 70, 85, 65, 85, 50, 75)


@dataclass(frozen=True)
class Item:
    """One heading of the request: its clause, its title and its paragraphs."""

    clause: str
    title: str
    paragraphs: tuple[str, ...]


def _paragraphs(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()) or ("—",)


def _classification(request: NewGameRequest) -> tuple[str, ...]:
    if request.is_game:
        return (f"The game is {request.get_classification_display().lower()}.",)
    game = request.game.name if request.game else "an authorized game"
    return (f"Not asked of a new wager or feature: this request adds a wager or feature to {game}, an authorized "
            f"game.",)


def figures_heading(figures: Figures) -> str:
    """Whose figures these are: the facility's, stated for a game or wager the engine does not model, or this
    system's, computed by the exact engine."""
    if figures.stated is not None:
        return f"Figures stated by {figures.stated.stated_by} — not computed by this system"
    if figures.engine is not None:
        return f"Figures computed by this system (its exact game engine: {figures.engine.title})"
    return ""


STATED_WORDS = (
    "The game or wager is not modelled by this system's game engine: the true odds, the payout odds and the house "
    "advantage of each wager are the facility's, stated as exact fractions with the method of computation of "
    "each. The percentages are computed from the fractions. True odds are against winning; payout odds are "
    "stated “to”. For a simple wager (it wins at its one payout a to b or loses the whole wager) this system "
    "checked exactly that the true odds are (1 − p) to p and the house advantage 1 − p·(a + b)/b, p being the "
    "probability of winning; a wager stated as not simple (several payouts, a push or a loss of part of the "
    "wager) is filed as stated and was not checked.")


def _figures_words(figures: Figures) -> tuple[str, ...]:
    if figures.refusal:
        return (figures.refusal,)
    if figures.stated is not None:
        return (STATED_WORDS,)
    return (f"Computed exactly by the game engine for {figures.engine.title if figures.engine else ''}: rational "
            f"arithmetic over every outcome, not simulation. True odds are against winning; payout odds are stated "
            f"“to”; the house advantage is the player's expected loss per unit wagered, as a fraction and a "
            f"percentage.", *((CHANGED,) if figures.changed else ()))


def request_items(request: NewGameRequest, figures: Figures) -> list[Item]:
    """The text items of the request, in the order of § 521.4 (the figures, pictures and protections follow
    as tables)."""
    kind = request.get_kind_display()
    what = kind[:1].lower() + kind[1:]
    if request.game is not None:
        what += f": {request.game.name}"
    figures_words = _figures_words(figures)
    return [
        Item("521.4(1)", "Description of the game or feature, rules of play and wagering",
             (f"Request for {what}.", *_paragraphs(request.description))),
        Item("521.4(1)(i)", "Variation of an authorized game, composite of authorized games, or new game",
             _classification(request)),
        Item("521.4(1)(ii)", "True odds, payout odds and house advantage of each wager", figures_words),
        Item("521.4(1)(iii)", "Sketch or picture of the game layout", ()),
        Item("521.4(1)(iv)", "Sketches or pictures of the equipment used to play the game", ()),
        Item("521.4(2)", "Why the new table game or feature is proposed", _paragraphs(request.reason)),
        Item("521.4(3)", "Other gaming jurisdictions where it is currently offered", (request.jurisdictions_words,)),
        Item("521.4(4)", "Copyrights, trademarks and patents, issued or pending",
             ("Whether the game, its name or any of the equipment used to play it is covered:",)),
    ]


def picture_rows(pictures: list[RequestPicture]) -> list[list[str]]:
    return [[p.name, p.get_kind_display().split(" (")[0], p.content_type, f"{p.size:,} bytes", p.sha256]
            for p in pictures]


def _drawn(data: bytes) -> Image | None:
    """The image scaled to the page (its own orientation, at most 1600 pixels a side); None when unreadable."""
    try:
        with PILImage.open(io.BytesIO(data)) as opened:
            image = ImageOps.exif_transpose(opened)
            image.thumbnail((MAX_IMAGE_PIXELS_DRAWN, MAX_IMAGE_PIXELS_DRAWN))
            if image.mode not in ("RGB", "L"):
                image = image.convert("RGB")
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            width, height = image.size
    except Exception:
        return None
    scale = min(WIDTH / width, MAX_IMAGE_HEIGHT / height, 1.0)  # a point a pixel at most: never blown up
    buffer.seek(0)
    return Image(buffer, width=width * scale, height=height * scale, hAlign="LEFT")


def _picture_flowables(picture: RequestPicture, data: bytes | None) -> list[Flowable]:
    words = f"<b>{markup_safe(picture.name)}</b>" + (f": {markup_safe(picture.caption)}" if picture.caption else "")
    caption = Paragraph(words + f" <font size=7>(SHA-256 {picture.sha256})</font>", CELL)
    if data is None:
        return [Paragraph(words + ": its stored bytes no longer match the SHA-256 recorded at upload "
                          f"({picture.sha256}); it was altered outside the application.", CELL)]
    if not picture.is_image:
        return [Paragraph(words + f": a PDF document of {picture.size:,} bytes, attached to the request "
                          f"(SHA-256 {picture.sha256}).", CELL)]
    drawn = _drawn(data)
    if drawn is None:
        return [Paragraph(words + ": the image cannot be drawn; it is attached as filed "
                          f"(SHA-256 {picture.sha256}).", CELL)]
    return [drawn, Spacer(1, 0.04 * inch), caption, Spacer(1, 0.15 * inch)]


# What follows an item's words: blocks, each a list kept on one page (an image with its caption) or a flowable that
# may run over pages (the table of wagers). The first block stays with the item's heading and words.
Block: TypeAlias = list[Flowable] | Flowable


def _pictures(kind: str, pictures: list[tuple[RequestPicture, bytes | None]], none: str) -> list[Block]:
    chosen = [(p, data) for p, data in pictures if p.kind == kind]
    if not chosen:
        return [[Paragraph(markup_safe(none), styles["Normal"])]]
    return [_picture_flowables(p, data) for p, data in chosen]


def _options_table(options: list[list[str]]) -> Flowable:
    """The options applied; a long list (Sic Bo's twenty payouts) in two pairs of columns, half as tall."""
    if len(options) <= 6:
        return data_table(["Option", "Value"], options, [WIDTH * 0.7, WIDTH * 0.3], wrap=FIGURE)
    half = (len(options) + 1) // 2
    rows = [[*options[n], *(options[n + half] if n + half < len(options) else ["", ""])] for n in range(half)]
    return data_table(["Option", "Value", "Option", "Value"], rows, [WIDTH * 0.36, WIDTH * 0.14] * 2, wrap=FIGURE)


def _breakable(row: list[str], widths: tuple[int, ...] = FIGURE_WIDTHS, columns: tuple[int, ...] = (4, 6)) -> list[str]:
    """A fraction too long for its column (probability, house advantage) breaks after its slash, never inside a
    number."""
    def fits(cell: str, n: int) -> bool:
        return stringWidth(cell, FIGURE.fontName, FIGURE.fontSize) <= widths[n] - CELL_PADDING

    return [cell.replace("/", "/ ") if n in columns and not fits(cell, n) else cell for n, cell in enumerate(row)]


def _stated_figures(figures: Figures) -> list[Block]:
    """The facility's figures of each wager under the heading saying whose they are, then each method."""
    assert figures.stated is not None
    rows = [_breakable(row, STATED_WIDTHS, (2, 4)) for row in figures.stated.rows]
    flowables: list[Block] = [
        Paragraph(markup_safe(figures_heading(figures)), SUBHEADING),
        data_table(STATED_HEADER, rows, list(STATED_WIDTHS), wrap=FIGURE, empty="None."),
        Paragraph("Method of computation of each wager (the facility's words)", SUBHEADING)]
    flowables += [Paragraph(f"<b>{markup_safe(w.name)}</b>: {markup_safe(w.method)}", READING, bulletText="•")
                  for w in figures.stated.wagers]
    return flowables


def _figures(figures: Figures) -> list[Block]:
    if figures.stated is not None:
        return _stated_figures(figures)
    if figures.analysis is None:
        return []
    options = [[label, value] for label, value in figures.options]
    flowables: list[Block] = [Paragraph(markup_safe(figures_heading(figures)), SUBHEADING)]
    if options:
        flowables.append([Paragraph("Options applied", SUBHEADING), _options_table(options), Spacer(1, 0.1 * inch)])
    flowables += [Paragraph("Wagers", SUBHEADING),
                  data_table(FIGURE_HEADER, [_breakable(r) for r in figures.rows], list(FIGURE_WIDTHS), wrap=FIGURE,
                             empty="None.")]
    if figures.analysis.readings:
        flowables.append(Paragraph("How the engine read the rules", SUBHEADING))
        flowables += [Paragraph(markup_safe(r), READING, bulletText="•") for r in figures.analysis.readings]
    return flowables


def _protections(request: NewGameRequest) -> list[Block]:
    rows = [[what, status, details or "—"] for what, status, details in request.protections()]
    return [[data_table(["", "Issued, pending or none", "Details"], rows, [WIDTH * 0.18, WIDTH * 0.22, WIDTH * 0.6],
                        wrap=CELL)]]


def _kept(block: Block) -> Flowable:
    return KeepTogether(block) if isinstance(block, list) else block


def request_pdf(request: NewGameRequest, figures: Figures, pictures: list[tuple[RequestPicture, bytes | None]], *,
                facility_name: str, printed_for: str = "") -> bytes:
    items = request_items(request, figures)
    extra: dict[str, list[Block]] = {
        "521.4(1)(ii)": _figures(figures),
        "521.4(1)(iii)": _pictures(PictureKind.LAYOUT, pictures, "None: the game has no layout (a sketch or picture "
                                   "is asked “if any”)."),
        "521.4(1)(iv)": _pictures(PictureKind.EQUIPMENT, pictures, "None added yet: at least one is required before "
                                  "the request is signed."),
        "521.4(4)": _protections(request),
    }
    story: list[Flowable] = []
    if not request.is_signed():
        story.append(Paragraph("<b>Not signed.</b> This request is filed once a compliance officer signs it.",
                               styles["Normal"]))
    for item in items:
        heading = Paragraph(f"§ {item.clause} — {markup_safe(item.title)}", HEADING)
        words = [Paragraph(markup_safe(p).replace("\n", "<br/>"), BODY) for p in item.paragraphs]
        blocks = extra.get(item.clause, [])
        first = [blocks[0]] if blocks and not isinstance(blocks[0], list) else (blocks[0] if blocks else [])
        story += [KeepTogether([heading, *words, *first]), *map(_kept, blocks[1:]), Spacer(1, 0.1 * inch)]
    story += [Paragraph("Sketches, pictures and documents attached", HEADING),
              data_table(["File", "Shows", "Type", "Size", "SHA-256"], picture_rows([p for p, _ in pictures]),
                         [WIDTH * w for w in (0.2, 0.13, 0.14, 0.12, 0.41)], wrap=CELL, empty="None."),
              Spacer(1, 0.2 * inch), signature_block(request)]
    prepared = timezone.localtime(request.created_at)
    meta = DocumentMeta(
        title="Request to offer a new table game or feature", facility_name=facility_name, citation=CITATION,
        printed_for=printed_for,
        subtitle=f"{request.title} — to the Board's Executive Director. Request #{request.pk}, prepared "
                 f"{prepared:%d %b %Y}.")
    return render_pdf(meta, story)
