"""The proofs of mailed coupons (PDF): what each coupon carries (§ 525.21(c)) and its serial as a Code 128
barcode the tables' scanners read (§ 525.21(q)(3)). One proof per coupon, in parts of :data:`PER_PART`."""

from __future__ import annotations

from collections.abc import Sequence

from reportlab.graphics.barcode.code128 import Code128
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import KeepTogether, Paragraph, Spacer, Table, TableStyle

from compliance.documents import FONT, FONT_MONO, DocumentMeta, markup_safe, render_pdf, styles
from coupons.models import MailedCoupon, MailingCampaign

__all__ = ["PER_PART", "proofs_pdf"]

PER_PART = 300
_BARCODE_WIDTH = 2.9 * inch
_STYLES = styles
_TEXT = ParagraphStyle("proof", parent=_STYLES["Normal"], fontSize=8.5, leading=11)
_CAPTION = ParagraphStyle("caption", parent=_TEXT, alignment=1, fontName=FONT_MONO, spaceBefore=2)
_BOX = TableStyle([("FONT", (0, 0), (-1, -1), FONT, 8), ("BOX", (0, 0), (-1, -1), 0.8, "#333333"),
                   ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
                   ("LEFTPADDING", (0, 0), (-1, -1), 8), ("TOPPADDING", (0, 0), (-1, -1), 6)])


def _proof(campaign: MailingCampaign, coupon: MailedCoupon) -> Table:
    series, patron = coupon.series, coupon.recipient
    serial = series.serial(coupon.serial)
    text = Paragraph(
        f"<b>{markup_safe(series.printed_name)}</b> · Match Play Coupon<br/>"
        f"Value <b>{markup_safe(series.denomination)}</b> · Expires <b>{series.expires_on:%-d %b %Y}</b><br/>"
        f"Serial <b>{markup_safe(serial)}</b><br/>"
        f"{markup_safe(patron.full_name)}<br/>{markup_safe(patron.one_line_address)}<br/>"
        f"<font size=7>{markup_safe(series.wager_restrictions[:160])}</font>", _TEXT)
    barcode = [_barcode(serial, _BARCODE_WIDTH - 16), Paragraph(markup_safe(serial), _CAPTION)]
    return Table([[text, barcode]], colWidths=[7.2 * inch - _BARCODE_WIDTH, _BARCODE_WIDTH], style=_BOX)


def _barcode(serial: str, room: float) -> Code128:
    """The serial's Code 128 at one point a bar, narrower for a long serial so it stays inside its box (a scanner
    reads bars down to about half a point)."""
    code = Code128(serial, barHeight=0.55 * inch, barWidth=1.0, humanReadable=False)
    if code.width > room:
        code = Code128(serial, barHeight=0.55 * inch, barWidth=max(0.5, room / code.width), humanReadable=False)
    return code


def proofs_pdf(campaign: MailingCampaign, coupons: Sequence[MailedCoupon], *, part: int, parts: int,
               printed_for: str = "") -> bytes:
    meta = DocumentMeta(
        title=f"Mailing proofs: {campaign.name}", facility_name=campaign.facility.name,
        citation=("525.21(q)(3)", "525.21(c)"), printed_for=printed_for,
        subtitle=f"{campaign.provider.name} · {campaign.series.name} · part {part} of {parts}",
    )
    body = []
    for coupon in coupons:
        body += [KeepTogether([_proof(campaign, coupon)]), Spacer(1, 6)]
    if not body:
        body = [Paragraph("No coupons were mailed by this campaign.", _TEXT)]
    return render_pdf(meta, body)
