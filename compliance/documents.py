"""The common frame of every PDF the system prints (reportlab).

Each regulated document carries the facility (name and logo, § 525.21(c)(1) style), its title, the
clause it implements, page numbers "Page n of N", when and for whom it was printed, and — for signed
records — a signature block that reads like the paper form's: meaning, printed name, Board-issued
credential number, date and time. Apps build their content as plain data and flowables and hand them
to :func:`render_pdf`.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from django.utils import timezone
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Image, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from compliance.citations import cite
from compliance.people import person_name

__all__ = [
    "DocumentMeta",
    "data_table",
    "markup_safe",
    "printed_for",
    "render_pdf",
    "signature_block",
    "styles",
]

styles = getSampleStyleSheet()
SMALL = ParagraphStyle("small", parent=styles["Normal"], fontSize=8, leading=10)
CELL = ParagraphStyle("cell", parent=styles["Normal"], fontSize=9, leading=11)


@dataclass(frozen=True)
class DocumentMeta:
    title: str
    facility_name: str
    citation: str | tuple[str, ...]  # catalogue reference(s), e.g. "525.21(j)"
    printed_for: str = ""
    logo_path: str = ""
    subtitle: str = ""
    pagesize: tuple[float, float] = letter  # reportlab.lib.pagesizes.landscape(letter) for wide ledgers


class _NumberedCanvas(Canvas):
    """Draws "Page n of N" once the total is known."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pages: list[dict[str, Any]] = []

    def showPage(self) -> None:  # reportlab names it so
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._pages)
        for state in self._pages:
            self.__dict__.update(state)
            self.setFont("Helvetica", 8)
            self.drawRightString(self._pagesize[0] - 0.6 * inch, 0.3 * inch, f"Page {self._pageNumber} of {total}")
            super().showPage()
        super().save()


def markup_safe(value: Any) -> str:
    """Text as reportlab's paragraph markup reads it literally: ``<``, ``>`` and ``&`` escaped, so a
    reason typed as "<b" or "a < b" prints as typed instead of breaking the document."""
    return escape(str(value))


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
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 9),
        ("FONT", (0, 1), (-1, -1), "Helvetica", 9),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e9eef2")),
        ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#6b7785")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]
)


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

    ``wrap``: set each cell in a paragraph of that style, so long text wraps inside its column (the
    header in bold); ``empty``: the words of the one row shown when there are no rows."""
    head: list[Any] = list(header)
    body: list[list[Any]] = [list(r) for r in rows]
    if wrap is not None:
        head = [Paragraph(f"<b>{markup_safe(cell)}</b>", wrap) for cell in header]
        body = [[Paragraph(markup_safe(cell), wrap) for cell in row] for row in body]
    if not body and empty is not None:
        body = [[Paragraph(markup_safe(empty), wrap) if wrap is not None else empty] + [""] * (len(header) - 1)]
    table = Table([head, *body], colWidths=widths, repeatRows=1, hAlign="LEFT")
    table.setStyle(style)
    return table


def render_pdf(meta: DocumentMeta, body: Sequence[Flowable]) -> bytes:
    refs = (meta.citation,) if isinstance(meta.citation, str) else meta.citation
    citations = [cite(ref) for ref in refs]
    printed = timezone.localtime()
    buffer = io.BytesIO()

    def frame(canvas: Canvas, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        footer = "58 Pa. Code " + ", ".join(f"§ {c.ref}" for c in citations)
        if len(citations) == 1 and citations[0].current:
            footer += f" ({citations[0].current})"
        canvas.drawString(0.6 * inch, 0.45 * inch, footer[:160])
        stamp = f"Printed {printed:%d %b %Y %H:%M} {printed.tzname()}"
        if meta.printed_for:
            stamp += f" for {meta.printed_for}"
        canvas.drawString(0.6 * inch, 0.3 * inch, stamp)
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
    if meta.logo_path:
        header.append(Image(meta.logo_path, width=1.2 * inch, height=0.6 * inch, kind="proportional"))
    header += [
        Paragraph(markup_safe(meta.facility_name), styles["Heading3"]),
        Paragraph(markup_safe(meta.title), styles["Title"]),
        *([Paragraph(markup_safe(meta.subtitle), styles["Normal"])] if meta.subtitle else []),
        Paragraph(markup_safe(", ".join(c.label for c in citations)), styles["Normal"]),
        Spacer(1, 0.2 * inch),
    ]
    doc.build([*header, *body], onFirstPage=frame, onLaterPages=frame, canvasmaker=_NumberedCanvas)
    return buffer.getvalue()
