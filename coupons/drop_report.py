"""The drop-box count report (PDF, the common document frame): what was cancelled and every exception."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import Paragraph, Spacer

from compliance.documents import DocumentMeta, fit_table, markup_safe, render_pdf, signature_block, styles
from coupons.models import DropCount, DropCountItem

__all__ = ["drop_count_pdf"]

_STYLES = styles
_H2 = ParagraphStyle("h2", parent=_STYLES["Heading3"], fontSize=10, spaceBefore=8, spaceAfter=3)
_CELL = ParagraphStyle("cell", parent=_STYLES["Normal"], fontSize=8, leading=10)
_WIDTHS = [1.5 * inch, 1.7 * inch, 4.1 * inch]


def _rows(items: Sequence[DropCountItem]) -> list[list[Any]]:
    return [[item.scanned or (item.series.serial(item.serial) if item.series and item.serial is not None else "—"),
             item.get_outcome_display() + (f" ({item.code})" if item.code else ""), item.message] for item in items]


def drop_count_pdf(count: DropCount, items: Sequence[DropCountItem], *, printed_for: str = "") -> bytes:
    cancelled = [i for i in items if not i.is_exception]
    exceptions = [i for i in items if i.is_exception]
    meta = DocumentMeta(
        title=f"Drop-box count #{count.pk}: table {count.table.number}", facility_name=count.facility.name,
        citation=("525.21(q)(6)", "525.21(m)"), printed_for=printed_for,
        subtitle=f"Gaming day {count.gaming_date:%-d %b %Y} · {count.table.game.name}",
    )
    body = [
        Paragraph(markup_safe(f"{len(cancelled)} coupon(s) cancelled (at the table or at this count); "
                              f"{len(exceptions)} exception(s)."), _CELL),
        Paragraph("Exceptions", _H2),
        fit_table(["Coupon", "What was found", "Detail"], _rows(exceptions), sum(_WIDTHS), _WIDTHS, style=_CELL,
                  sizes=(8, 7, 6), empty="None"),
        Paragraph("Cancelled", _H2),
        fit_table(["Coupon", "What was found", "Detail"], _rows(cancelled), sum(_WIDTHS), _WIDTHS, style=_CELL,
                  sizes=(8, 7, 6), empty="None"),
        Spacer(1, 10),
        signature_block(count),
    ]
    return render_pdf(meta, body)
