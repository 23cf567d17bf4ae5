"""PDF documents of the coupon ledger (reportlab), built from the selectors' plain data."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import KeepTogether, Paragraph, Spacer, Table, TableStyle

from compliance.documents import FONT, FONT_BOLD, data_table, fit_table, markup_safe, styles
from coupons.models import CouponState as S
from coupons.selectors import LEDGER_STATE_SHORT, LEDGER_STATES, RangeRow, ReconciliationData

__all__ = ["ledger_pdf", "ledger_widths", "reconciliation_pdf"]

_STYLES = styles
_SUB = ParagraphStyle("sub", parent=_STYLES["Normal"], fontSize=9, alignment=1, textColor=colors.HexColor("#333333"))
_H2 = ParagraphStyle("h2", parent=_STYLES["Heading3"], fontSize=10, spaceBefore=8, spaceAfter=3)
_BODY = ParagraphStyle("body", parent=_STYLES["Normal"], fontSize=9, leading=11)
_SMALL = ParagraphStyle("small", parent=_BODY, fontSize=7.5, leading=9)

_GRID = TableStyle([
    ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
    ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6e6e6")),
    ("FONTNAME", (0, 0), (-1, -1), FONT),
    ("FONTNAME", (0, 0), (-1, 0), FONT_BOLD),
    ("FONTSIZE", (0, 0), (-1, -1), 8),
    ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ("ALIGN", (1, 1), (-1, -1), "LEFT"),
])


def _table(header: list[str], rows: list[list[Any]], widths: list[float]) -> Table:
    """The paper form's ruled tables: small wrapped text, "None" when a section is empty; each column at least as
    wide as its longest word (a 12-digit serial range, a count), the rest of the width by ``widths``' shares."""
    return fit_table(header, rows, sum(widths), widths, style=_SMALL, sizes=(7.5, 7, 6.5, 6), empty="None",
                     grid=_GRID)


def _ranges(rows: list[RangeRow], note_header: str = "") -> list[list[Any]]:
    return [[r.series, r.denomination, r.span, f"{r.quantity:,}", *([r.note] if note_header else [])] for r in rows]


def _numbered(number: int, text: str) -> Paragraph:
    return Paragraph(f"<b>({number})</b> {text}", _H2)


def reconciliation_pdf(data: ReconciliationData, *, printed_for: str = "") -> bytes:
    """The daily Match Play Coupon Reconciliation Form, laid out like the paper form: items (1)–(8)."""
    from compliance.documents import DocumentMeta, render_pdf, signature_block

    width = letter[0] - 1.2 * inch
    story: list[Any] = [
        Paragraph(markup_safe(data.certificate_holder), _SUB),
        _numbered(1, f"Date: <b>{data.gaming_date:%A, %d %B %Y}</b>"
                  + ("" if data.completed else "  <font color='#a4161a'>(DRAFT — not yet signed)</font>")),
        _numbered(2, "Serial numbers of the coupons received from the finance department"),
        _table(["Series", "Denomination", "Serial numbers", "Quantity", "Issuance"],
               _ranges(data.received_ranges, "note"), [1.9 * inch, 0.9 * inch, 2.3 * inch, 0.8 * inch, 1.4 * inch]),
    ]
    if data.carried_ranges:
        story += [Paragraph("Carried over from the previous gaming day (kept in an approved locked area, § 525.21(k)):",
                            _BODY),
                  _table(["Series", "Denomination", "Serial numbers", "Quantity"], _ranges(data.carried_ranges),
                         [2.3 * inch, 1.1 * inch, 2.8 * inch, 1.1 * inch])]
    figure_rows = [
        [f.denomination, f"{f.carried_in:,}", f"{f.received:,}", f"{f.to_distribute:,}", f"{f.distributed:,}",
         f"{f.voided:,}", f"{f.returned:,}", f"{f.remaining:,}",
         "" if f.remaining_counted is None else f"{f.remaining_counted:,}"]
        for f in data.figures
    ]
    story += [
        _numbered(3, "Denomination and quantity of coupons to distribute to patrons; "
                     "<b>(4)</b> distributed to patrons; <b>(5)</b> remaining"),
        _table(["Denomination", "Carried in", "Received", "(3) To distribute", "(4) Distributed", "Voided",
                "Returned", "(5) Remaining", "Counted"], figure_rows,
               [1.0 * inch] + [(width - 1.0 * inch) / 8] * 8),
        _numbered(5, "Denomination, quantity and serial numbers of the coupons remaining"),
        _table(["Series", "Denomination", "Serial numbers", "Quantity"], _ranges(data.remaining_ranges),
               [2.3 * inch, 1.1 * inch, 2.8 * inch, 1.1 * inch]),
        _numbered(6, "Serial numbers of coupons voided and the reason they were voided"),
        _table(["Series", "Denomination", "Serial numbers", "Quantity", "Reason"], _ranges(data.voided, "reason"),
               [1.7 * inch, 0.9 * inch, 1.9 * inch, 0.7 * inch, 2.1 * inch]),
        _numbered(7, "Variations discovered and their explanation"),
        Paragraph(
            (f"Variation of {data.total_variance:,} coupon(s). " if data.total_variance else "No variation. ")
            + markup_safe(data.variation_explanation or ""), _BODY),
    ]
    if data.disposition:
        story.append(Paragraph(f"End of day: {markup_safe(data.disposition)}.", _BODY))
    if data.record is not None:
        block: Any = signature_block(data.record)
    else:
        block = Table(
            [[Paragraph(f"<b>{words}</b>", _SMALL) for words in ("Name", "Board-issued credential number",
                                                                  "Signature", "Date / time")], ["", "", "", ""]],
            colWidths=[2.0 * inch, 1.8 * inch, 1.8 * inch, 1.7 * inch], rowHeights=[None, 0.45 * inch],
        )
        block.setStyle(_GRID)
    story += [
        KeepTogether([_numbered(8, "Name, signature and Board-issued credential number of the marketing department "
                                   "supervisor completing the form"), block]),
        Spacer(1, 6),
        Paragraph(
            "Prepared from the Match Play Coupon ledger" + (f"; form #{data.form_id}" if data.form_id else "")
            + ". A copy of this form goes to the finance department with the undistributed coupons at the end of "
            "the gaming day, § 525.21(k).", _SMALL),
    ]
    meta = DocumentMeta(title=data.title, facility_name=data.facility_name, citation="525.21(j)",
                        printed_for=printed_for, logo=data.logo,
                        subtitle=f"gaming day {data.gaming_date:%d %b %Y}")
    return render_pdf(meta, story)


_PAD = 3  # points each side of a ledger cell's text
# The columns whose text wraps (entry, series, serial numbers) and their shares of the width the others leave: the
# date, the denomination and the counts are as wide as their widest value, never broken.
_WRAPPED = {1: 1.2, 2: 1.3, 4: 1.6}
_RIGHT_FROM = 5  # quantity and the balances, right-aligned
_WRAPPED_AT_LEAST = 2.8 * inch
_SIZES = (7.0, 6.5, 6.0, 5.5, 5.0)  # the ledger's type, smaller only when its figures need the room


def _ledger_style(size: float, *, right: bool = False, red: bool = False, bold: bool = False) -> ParagraphStyle:
    return ParagraphStyle(f"ledger-{size}-{right}-{red}-{bold}", parent=_STYLES["Normal"], fontSize=size,
                          leading=size * 1.22, alignment=TA_RIGHT if right else 0,
                          textColor=colors.red if red else colors.black, fontName=FONT_BOLD if bold else FONT)


def ledger_widths(header: list[str], body: list[list[str]], width: float) -> tuple[list[float], float]:
    """Columns of the ledger on ``width`` points and its type size: the date, the denomination and each count as
    wide as its widest value (or its header's longest word) — a figure never breaks or runs into the next column
    —, the entry, the series and the serial numbers sharing the rest, their text wrapping inside them; the type
    smaller when the figures leave them less than 2.8 inches (beyond 5 points, every column shrinks and a figure
    wraps inside its cell)."""

    def widest(n: int, size: float) -> float:
        values = [stringWidth(str(row[n]), FONT, size) for row in body]
        words = [stringWidth(word, FONT_BOLD, size) for word in header[n].split()]
        return max([*values, *words, 0.0]) + 2 * _PAD + 1

    shares = sum(_WRAPPED.values())
    for size in _SIZES:
        fitted = {n: widest(n, size) for n in range(len(header)) if n not in _WRAPPED}
        rest = width - sum(fitted.values())
        if rest >= _WRAPPED_AT_LEAST or size == _SIZES[-1]:
            break
    if rest < _WRAPPED_AT_LEAST:
        scale = (width - _WRAPPED_AT_LEAST) / sum(fitted.values())
        fitted = {n: w * scale for n, w in fitted.items()}
        rest = _WRAPPED_AT_LEAST
    return [rest * _WRAPPED[n] / shares if n in _WRAPPED else fitted[n] for n in range(len(header))], size


def ledger_pdf(facility: Any, filters: dict[str, Any], rows: Iterable[dict[str, Any]], *, printed_for: str = "") -> bytes:
    from compliance.documents import DocumentMeta, render_pdf

    period = " to ".join(f"{filters[k]:%-d %B %Y}" for k in ("date_from", "date_to") if filters.get(k))
    header = ["Date", "Entry", "Series", "Denom.", "Serial numbers", "Qty",
              *[LEDGER_STATE_SHORT[S(s)] for s in LEDGER_STATES]]
    body: list[list[str]] = []
    altered: set[int] = set()
    for r in rows:
        if r.get("altered"):
            altered.add(len(body))
        body.append([f"{r['gaming_date']:%d %b %Y}", r["kind_label"] + (" — ALTERED SINCE SIGNED" if r.get("altered")
                                                                         else ""),
                     r["series_name"], r["denomination"], r["span"], f"{r['quantity']:,}",
                     *[f"{b:,}" for b in r["balances"]]])
    pagesize = landscape(letter)
    widths, size = ledger_widths(header, body, pagesize[0] - 1.2 * inch)
    text, number = _ledger_style(size), _ledger_style(size, right=True)
    red_text, red_number = _ledger_style(size, red=True), _ledger_style(size, right=True, red=True)

    def cells(n: int, row: list[str]) -> list[Paragraph]:
        red = n in altered
        return [Paragraph(markup_safe(v), (red_number if red else number) if i >= _RIGHT_FROM
                          else (red_text if red else text)) for i, v in enumerate(row)]

    table = data_table([Paragraph(markup_safe(h), _ledger_style(size, bold=True)) for h in header],
                       [cells(n, row) for n, row in enumerate(body)], widths, wrap=text, empty="No entries",
                       style=TableStyle([*_GRID.getCommands(), ("LEFTPADDING", (0, 0), (-1, -1), _PAD),
                                         ("RIGHTPADDING", (0, 0), (-1, -1), _PAD)]))
    story: list[Any] = [
        table,
        Spacer(1, 4),
        Paragraph("Balances are the running totals for the line's denomination after the entry.", _SMALL),
    ]
    if altered:
        story.append(Paragraph(f"{len(altered):,} line(s) marked ALTERED SINCE SIGNED: the line no longer matches its "
                               "seal, or its document what its signatures vouch for. The compliance officer's "
                               "verification of the audit chain names each record.", _SMALL))
    meta = DocumentMeta(
        title="Match Play Coupon ledger", facility_name=facility.name,
        citation=("525.21(d)", "525.21(f)", "525.21(h)", "525.21(l)", "525.21(n)"),
        printed_for=printed_for, subtitle=period, pagesize=pagesize,
    )
    return render_pdf(meta, story)
