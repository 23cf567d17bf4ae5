"""The common frame of every PDF the system prints (reportlab).

Each regulated document carries the facility (name and logo, § 525.21(c)(1) style), its title, the
clause it implements, page numbers "Page n of N", when and for whom it was printed, and — for signed
records — a signature block that reads like the paper form's: meaning, printed name, Board-issued
credential number, date and time. Apps build their content as plain data and flowables and hand them
to :func:`render_pdf`.
"""

from __future__ import annotations

import heapq
import io
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from django.utils import timezone
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle, StyleSheet1, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError, TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Image, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from compliance.citations import cite
from compliance.people import person_name

__all__ = [
    "FONT",
    "FONT_BOLD",
    "FONT_BOLD_OBLIQUE",
    "FONT_MONO",
    "FONT_OBLIQUE",
    "DocumentMeta",
    "data_table",
    "fit_table",
    "markup_safe",
    "printed_for",
    "render_pdf",
    "signature_block",
    "styles",
    "text_width",
]

log = logging.getLogger(__name__)

# The one font family of every PDF: DejaVu Sans from Debian's fonts-dejavu-core, embedded (subset) in each document,
# so a name outside Latin-1 (Łukasz Żółć, Nguyễn Văn An) prints as its letters on any reader. DejaVu has no CJK
# glyphs: a run of characters it cannot draw is set in the first fallback font found that can (fonts-droid-fallback,
# or WenQuanYi), so 王小明 prints too. reportlab embeds TrueType outlines only (not the CFF of Noto CJK's .otf).
# Without the package the documents fall back to Helvetica (Latin-1 only), with a warning in the log.
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
_FAMILY = {  # our name -> (file, the standard font it replaces)
    "DejaVuSans": ("DejaVuSans.ttf", "Helvetica"),
    "DejaVuSans-Bold": ("DejaVuSans-Bold.ttf", "Helvetica-Bold"),
    "DejaVuSans-Oblique": ("DejaVuSans-Oblique.ttf", "Helvetica-Oblique"),
    "DejaVuSans-BoldOblique": ("DejaVuSans-BoldOblique.ttf", "Helvetica-BoldOblique"),
    "DejaVuSansMono": ("DejaVuSansMono.ttf", "Courier"),
    "DejaVuSansMono-Bold": ("DejaVuSansMono-Bold.ttf", "Courier-Bold"),
}
FALLBACK_NAME = "UnicodeFallback"
FALLBACK_FILES = (  # (path, index in a collection): the first present is used
    ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", 0),  # fonts-droid-fallback
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),  # fonts-wqy-microhei
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),  # fonts-wqy-zenhei
)


def _register_family(font_dir: Path = FONT_DIR) -> dict[str, str]:
    """Register DejaVu Sans with reportlab (once per process); the standard font each of ours replaces -> ours.
    An empty answer: the fonts are missing or unreadable, the documents use Helvetica (never a crash)."""
    registered = set(pdfmetrics.getRegisteredFontNames())
    try:
        missing = [file for file, _standard in _FAMILY.values() if not (font_dir / file).is_file()]
        if missing:
            raise OSError(f"missing {', '.join(missing)}")
        for name, (file, _standard) in _FAMILY.items():
            if name not in registered:
                pdfmetrics.registerFont(TTFont(name, str(font_dir / file)))
    except (OSError, TTFError) as error:
        log.warning("PDF fonts: DejaVu Sans not found in %s (%s); documents print in Helvetica, which cannot draw "
                    "names outside Latin-1. Install Debian's fonts-dejavu-core.", font_dir, error)
        return {}
    pdfmetrics.registerFontFamily("DejaVuSans", normal="DejaVuSans", bold="DejaVuSans-Bold",
                                  italic="DejaVuSans-Oblique", boldItalic="DejaVuSans-BoldOblique")
    pdfmetrics.registerFontFamily("DejaVuSansMono", normal="DejaVuSansMono", bold="DejaVuSansMono-Bold",
                                  italic="DejaVuSansMono", boldItalic="DejaVuSansMono-Bold")
    return {standard: name for name, (_file, standard) in _FAMILY.items()}


_REPLACES = _register_family()


def _ours(standard: str) -> str:
    return _REPLACES.get(standard, standard)


FONT = _ours("Helvetica")
FONT_BOLD = _ours("Helvetica-Bold")
FONT_OBLIQUE = _ours("Helvetica-Oblique")
FONT_BOLD_OBLIQUE = _ours("Helvetica-BoldOblique")
FONT_MONO = _ours("Courier")


@cache
def _glyphs(name: str) -> frozenset[int]:
    """The code points a registered TrueType font draws (empty for a standard font)."""
    face = getattr(pdfmetrics.getFont(name), "face", None)
    return frozenset(getattr(face, "charToGlyph", {}))


@cache
def _fallback() -> str:
    """The registered name of the fallback font for what DejaVu cannot draw (CJK), or "" when none is installed."""
    if not _REPLACES:
        return ""
    for path, index in FALLBACK_FILES:
        if Path(path).exists():
            try:
                pdfmetrics.registerFont(TTFont(FALLBACK_NAME, path, subfontIndex=index))
            except TTFError as error:
                log.warning("PDF fonts: %s could not be read (%s)", path, error)
                continue
            # bold and oblique of the fallback: itself, so <b> around a CJK name keeps its glyphs
            pdfmetrics.registerFontFamily(FALLBACK_NAME, normal=FALLBACK_NAME, bold=FALLBACK_NAME,
                                          italic=FALLBACK_NAME, boldItalic=FALLBACK_NAME)
            return FALLBACK_NAME
    log.warning("PDF fonts: no font for Chinese, Japanese or Korean names is installed (fonts-droid-fallback); "
                "such names print as empty boxes.")
    return ""


def _unicode_styles() -> StyleSheet1:
    """reportlab's sample styles, each in our family instead of Helvetica and Courier."""
    sheet = getSampleStyleSheet()
    for style in sheet.byName.values():
        for attribute in ("fontName", "bulletFontName"):
            if hasattr(style, attribute):
                setattr(style, attribute, _ours(getattr(style, attribute)))
    return sheet


styles = _unicode_styles()
SMALL = ParagraphStyle("small", parent=styles["Normal"], fontSize=8, leading=10)
CELL = ParagraphStyle("cell", parent=styles["Normal"], fontSize=9, leading=11)
FOOT = ParagraphStyle("foot", parent=styles["Normal"], fontSize=8, leading=9)


def text_width(text: str, size: float) -> float:
    """Points ``text`` takes in the common font at ``size``, each character DejaVu cannot draw in the fallback."""
    drawn = _glyphs(FONT)
    if not drawn or all(ord(ch) in drawn for ch in text):
        return pdfmetrics.stringWidth(text, FONT, size)
    fallback = _fallback() or FONT
    return sum(pdfmetrics.stringWidth(ch, FONT if ord(ch) in drawn else fallback, size) for ch in text)


def _fitted(text: str, width: float, size: float = 8) -> str:
    """``text`` cut with "…" to one line of ``width`` points (a long name printed for at the foot of a page)."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text + "…"


@dataclass(frozen=True)
class DocumentMeta:
    title: str
    facility_name: str
    citation: str | tuple[str, ...]  # catalogue reference(s), e.g. "525.21(j)"
    printed_for: str = ""
    logo: bytes = b""  # the picture's bytes (compliance.storage.logo_bytes)
    subtitle: str = ""
    pagesize: tuple[float, float] = letter  # reportlab.lib.pagesizes.landscape(letter) for wide ledgers
    heading: bool = True  # False: a sign, whose story carries its own heading (the clauses stay at the foot)


class _NumberedCanvas(Canvas):
    """Draws "Page n of N" once the total is known."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["initialFontName"] = kwargs.get("initialFontName") or FONT  # else each page's preamble names Helvetica
        super().__init__(*args, **kwargs)
        self._pages: list[dict[str, Any]] = []

    def showPage(self) -> None:  # reportlab names it so
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._pages)
        for state in self._pages:
            self.__dict__.update(state)
            self.setFont(FONT, 8)
            self.drawRightString(self._pagesize[0] - 0.6 * inch, 0.3 * inch, f"Page {self._pageNumber} of {total}")
            super().showPage()
        super().save()


def markup_safe(value: Any) -> str:
    """Text as reportlab's paragraph markup reads it literally: ``<``, ``>`` and ``&`` escaped, so a
    reason typed as "<b" or "a < b" prints as typed instead of breaking the document; each run of characters
    DejaVu Sans cannot draw (a CJK name) is set in the fallback font that can."""
    text = str(value)
    drawn = _glyphs(FONT)
    if not drawn or all(ord(ch) in drawn for ch in text):
        return escape(text)
    fallback = _fallback()
    if not fallback:
        return escape(text)
    spare = _glyphs(fallback)
    parts: list[str] = []
    run: list[str] = []
    in_fallback = False
    for ch in text:
        wants = not ch.isspace() and ord(ch) not in drawn and ord(ch) in spare
        if wants != in_fallback and run:
            parts.append(_run("".join(run), fallback if in_fallback else ""))
            run = []
        in_fallback = wants
        run.append(ch)
    if run:
        parts.append(_run("".join(run), fallback if in_fallback else ""))
    return "".join(parts)


def _run(text: str, font: str) -> str:
    return f'<font name="{font}">{escape(text)}</font>' if font else escape(text)


def printed_for(user: Any) -> str:
    """Who a document was printed for, as the stamp at its foot says it."""
    return person_name(user, credential=True)


def signature_block(record: Any) -> Table:
    """The record's required signatures, given or not, as lines of the paper form."""
    rows: list[list[Any]] = [[Paragraph("<b>Signature</b>", CELL), Paragraph("<b>Signed</b>", CELL)]]
    for requirement, signature in record.signature_slots():
        if signature is None:
            signed = Paragraph("<i>not signed</i>", CELL)
        else:
            local = timezone.localtime(signature.signed_at)
            signed = Paragraph(
                f"{signature.get_meaning_display()}: <b>{markup_safe(signature.printed_name)}</b>, Board-issued "
                f"credential no. <b>{markup_safe(signature.credential_number)}</b>, {local:%d %b %Y %H:%M} "
                f"{local.tzname()}",
                CELL,
            )
        rows.append([Paragraph(markup_safe(requirement.label), CELL), signed])
    if getattr(record, "altered_since_signed", False):
        rows.append([Paragraph("<b>ALTERED SINCE SIGNED</b>", CELL),
                     Paragraph("This record no longer matches what was signed.", CELL)])
    table = Table(rows, colWidths=[2.4 * inch, 4.6 * inch], repeatRows=1)
    table.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), FONT, 9),
                ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e9eef2")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 1), (-1, -1), 8),
                ("BOTTOMPADDING", (0, 1), (-1, -1), 8),
            ]
        )
    )
    return table


GRID = TableStyle(
    [
        ("FONT", (0, 0), (-1, 0), FONT_BOLD, 9),
        ("FONT", (0, 1), (-1, -1), FONT, 9),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e9eef2")),
        ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#6b7785")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]
)


def _cell(value: Any, style: ParagraphStyle, *, bold: bool = False) -> Any:
    """A table cell as a paragraph of ``style``, which wraps inside its column (a flowable passes as it is)."""
    if isinstance(value, (Flowable, list, tuple)):
        return value
    text = markup_safe("" if value is None else value).replace("\n", "<br/>")
    return Paragraph(f"<b>{text}</b>" if bold and text else text, style)


def data_table(
    header: Sequence[str],
    rows: Sequence[Sequence[Any]],
    widths: Sequence[float] | None = None,
    *,
    wrap: ParagraphStyle | None = None,
    empty: str | None = None,
    style: TableStyle = GRID,
) -> Table:
    """A ruled table with a repeated header row, the grid every report uses.

    Every cell is set in a paragraph (``wrap``: its style, the common cell style by default), so long text — a
    long name, a 12-digit serial, a large sum — wraps inside its column instead of printing over the next one;
    the header in bold. A cell that is already a flowable is kept. ``empty``: the words of the one row shown when
    there are no rows."""
    wrap = wrap or CELL
    head = [_cell(cell, wrap, bold=True) for cell in header]
    body = [[_cell(cell, wrap) for cell in row] for row in rows]
    if not body and empty is not None:
        body = [[_cell(empty, wrap)] + [_cell("", wrap)] * (len(header) - 1)]
    table = Table([head, *body], colWidths=widths, repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, 9)]))  # what a table sets before its cells
    table.setStyle(style)
    return table


_PADDING = 12  # points a table cell leaves beside its text (6 each side)
_BREAKS = re.compile(r"\s+|(?<=/)")  # a line breaks at a space, or after the slash of a long fraction


def _words(text: str) -> list[str]:
    return [w for w in _BREAKS.split(text) if w]


def _longest_word(head: str, cells: Sequence[Any]) -> float:
    """Points at 1-point type of the widest word of a column: of its 40 longest words by letters (measuring every
    word of a 200,000-row extract would cost more than the extract)."""
    words = heapq.nlargest(40, {w for cell in [head, *cells] for w in _words(str(cell))}, key=len)
    return max((text_width(word, 1) for word in words), default=0.0)


def fit_table(
    header: Sequence[str],
    rows: Sequence[Sequence[Any]],
    width: float,
    shares: Sequence[float] | None = None,
    *,
    style: ParagraphStyle = CELL,
    sizes: Sequence[float] = (9, 8, 7, 6),
    empty: str | None = None,
    grid: TableStyle = GRID,
) -> Table:
    """A :func:`data_table` ``width`` points wide whose columns are computed to fit: each column at least as wide as
    its longest word (a 14-digit numerator, a 12-digit serial range, a large sum: never broken inside), the rest of
    the width shared by ``shares`` (equal by default); the type the largest of ``sizes`` that lets every column fit.
    A fraction longer than its column breaks after its slash. Past the smallest size, the shares alone (a word longer
    than its column then wraps inside it, never over the next one)."""
    columns = len(header)
    shares = list(shares) if shares else [1.0] * columns
    longest = [_longest_word(str(header[n]), [row[n] for row in rows]) for n in range(columns)]  # at 1 point
    for size in sizes:
        least = [words * size + _PADDING for words in longest]
        if sum(least) <= width:
            break
    chosen = ParagraphStyle(f"{style.name}-{size}", parent=style, fontSize=size, leading=size * 1.22)
    if sum(least) > width:
        least = [0.0] * columns
    spare = width - sum(least)
    widths = [least[n] + spare * shares[n] / sum(shares) for n in range(columns)]

    def breakable(cell: Any, n: int) -> Any:
        if isinstance(cell, str) and "/" in cell and text_width(cell, size) > widths[n] - _PADDING:
            return cell.replace("/", "/ ")
        return cell

    body = [[breakable(cell, n) for n, cell in enumerate(row)] for row in rows]
    return data_table(header, body, widths, wrap=chosen, empty=empty, style=grid)


def render_pdf(meta: DocumentMeta, body: Sequence[Flowable]) -> bytes:
    refs = (meta.citation,) if isinstance(meta.citation, str) else meta.citation
    citations = [cite(ref) for ref in refs]
    printed = timezone.localtime()
    buffer = io.BytesIO()

    footer = "58 Pa. Code " + ", ".join(f"§ {c.ref}" for c in citations)
    if len(citations) == 1 and citations[0].current:
        footer += f" ({citations[0].current})"
    stamp = f"Printed {printed:%d %b %Y %H:%M} {printed.tzname()}"
    if meta.printed_for:
        stamp += f" for {meta.printed_for}"
    foot_width = meta.pagesize[0] - 1.2 * inch - 0.9 * inch  # the page number's room kept free on the right

    def frame(canvas: Canvas, doc: Any) -> None:
        canvas.saveState()
        # paragraphs, not drawString: the name printed for may need the fallback font, and a long one is cut at
        # the margin instead of running off the page
        for text, y in ((footer, 0.45 * inch), (stamp, 0.3 * inch)):
            line = Paragraph(markup_safe(_fitted(text, foot_width)), FOOT)
            line.wrapOn(canvas, foot_width, 0.2 * inch)
            line.drawOn(canvas, 0.6 * inch, y - 2)
        canvas.restoreState()

    doc = SimpleDocTemplate(
        buffer,
        pagesize=meta.pagesize,
        leftMargin=0.6 * inch,
        rightMargin=0.6 * inch,
        topMargin=0.6 * inch,
        bottomMargin=0.8 * inch,
        title=meta.title,
        author=meta.facility_name,
        subject=", ".join(c.label for c in citations),
    )
    header: list[Flowable] = []
    if meta.logo and meta.heading:
        header.append(Image(io.BytesIO(meta.logo), width=1.2 * inch, height=0.6 * inch, kind="proportional"))
    if meta.heading:
        header += [
            Paragraph(markup_safe(meta.facility_name), styles["Heading3"]),
            Paragraph(markup_safe(meta.title), styles["Title"]),
            *([Paragraph(markup_safe(meta.subtitle), styles["Normal"])] if meta.subtitle else []),
            Paragraph(markup_safe(", ".join(c.label for c in citations)), styles["Normal"]),
            Spacer(1, 0.2 * inch),
        ]
    doc.build([*header, *body], onFirstPage=frame, onLaterPages=frame, canvasmaker=_NumberedCanvas)
    return buffer.getvalue()
