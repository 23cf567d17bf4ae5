"""A report's content rendered as CSV and as PDF (reportlab, charts with reportlab's graphics).

Both renderings print what a filed document needs: the facility, the report's title and clauses, the period,
the version, when and for whom it was produced, how the clause was read, and the audit chain head at
production — each chain's last link and one digest — so an inspector can later prove the records the report
was drawn from are the ones still in the database (``manage.py verify_audit_chain``).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.units import inch
from reportlab.platypus import Flowable, KeepTogether, Paragraph, Spacer

from compliance.citations import cite
from compliance.documents import (
    CELL,
    FONT,
    FONT_BOLD,
    DocumentMeta,
    data_table,
    fit_table,
    markup_safe,
    render_pdf,
    signature_block,
    styles,
)
from compliance.exports import BOM, safe_csv_writer, xlsx_bytes
from compliance.exports import Section as ExportSection
from compliance.reports.charts import PALETTE, axis_top, label_step, tick_count, value_text
from compliance.reports.content import Chart, ReportContent

__all__ = ["Production", "chain_words", "content_csv", "content_pdf", "content_sections", "content_xlsx"]


def chain_words(label: str) -> str:
    """A chain of the audit trail as a person reads it: "compliance.AuditEvent@3" is "Audit events", and
    "compliance.AuditEvent@-" "Audit events (the registers every facility shares)"; a label the system no longer
    knows stays as it is."""
    from django.apps import apps

    model_label, _, facility = label.partition("@")
    try:
        words = str(apps.get_model(model_label)._meta.verbose_name_plural)
    except (LookupError, ValueError):
        return label
    words = words[:1].upper() + words[1:]
    return f"{words} (the registers every facility shares)" if facility == "-" else words


@dataclass(frozen=True)
class Production:
    """What a version says about itself, on every file."""

    facility_name: str
    version: int
    produced_at: str  # in words, on the facility's clock
    requested_by: str
    chain_digest: str = ""
    chain_links: tuple[tuple[str, int, str], ...] = ()  # (chain, last sequence, last link hash)
    logo: bytes = b""

    def lines(self) -> list[tuple[str, str]]:
        return [
            ("Facility", self.facility_name),
            ("Version", str(self.version)),
            ("Produced", self.produced_at),
            ("Asked for by", self.requested_by),
            ("Audit chain anchor (SHA-256 of the heads sent to the Board)", self.chain_digest or "—"),
        ]


def content_csv(content: ReportContent, production: Production) -> bytes:
    buffer = io.StringIO()
    writer = safe_csv_writer(buffer)
    writer.writerow([content.title])
    writer.writerow(["Period", content.period])
    writer.writerow(["Clauses", "; ".join(cite(ref).label for ref in content.citations)])
    writer.writerows([list(line) for line in production.lines()])
    if content.summary:
        writer.writerow([])
        writer.writerow(["Summary"])
        writer.writerows([list(row) for row in content.summary])
    for section in content.sections:
        writer.writerow([])
        writer.writerow([section.title])
        writer.writerow(section.header)
        writer.writerows(section.rows)
    if content.readings:
        writer.writerow([])
        writer.writerow(["How the regulation was read"])
        writer.writerows([[reading] for reading in content.readings])
    if production.chain_links:
        writer.writerow([])
        writer.writerow(["Audit chain head"])
        writer.writerow(["Chain", "Last link", "Link hash"])
        writer.writerows([[chain_words(label), seq, link_hash] for label, seq, link_hash in production.chain_links])
    return (BOM + buffer.getvalue()).encode("utf-8")  # the byte order mark: Excel reads "§" as such


def content_sections(content: ReportContent, production: Production) -> list[ExportSection]:
    """The CSV's parts as titled tables, for the Excel workbook."""
    about = [["Period", content.period], ["Clauses", "; ".join(cite(ref).label for ref in content.citations)],
             *[list(line) for line in production.lines()]]
    found: list[ExportSection] = [("This version", ["Item", "Value"], about)]
    if content.summary:
        found.append(("Summary", ["Measure", "Value"], [list(row) for row in content.summary]))
    found += [(section.title, list(section.header), [list(row) for row in section.rows])
              for section in content.sections]
    if content.readings:
        found.append(("How the regulation was read", ["Reading"], [[reading] for reading in content.readings]))
    if production.chain_links:
        found.append(("Audit chain head", ["Chain", "Last link", "Link hash"],
                      [[chain_words(label), seq, link_hash] for label, seq, link_hash in production.chain_links]))
    return found


def content_xlsx(content: ReportContent, production: Production) -> bytes:
    """The version as an Excel workbook: the CSV's rows, numbers as numbers, the headers in bold."""
    return xlsx_bytes([content.title], content_sections(content, production), sheet=content.title)


def _chart_drawing(chart: Chart, width: float) -> Drawing:
    height = 2.6 * inch
    drawing = Drawing(width, height)
    drawing.initialFontName = FONT  # the renderer's starting state, else Helvetica is named in the page
    drawing.add(String(0, height - 12, chart.title, fontName=FONT_BOLD, fontSize=10))
    bars = VerticalBarChart()
    bars.x, bars.y = 50, 42
    bars.width, bars.height = width - 70, height - 80
    scale = 100 if chart.unit == "$" else 1
    bars.data = [[value / scale for value in s.values] for s in chart.series] or [[0]]
    step = label_step(len(chart.categories), 14)
    bars.categoryAxis.categoryNames = [c if i % step == 0 else "" for i, c in enumerate(chart.categories)]
    bars.categoryAxis.labels.fontSize = 7
    bars.categoryAxis.labels.fontName = FONT
    bars.categoryAxis.labels.angle = 30 if len(chart.categories) > 8 else 0
    bars.categoryAxis.labels.boxAnchor = "ne" if len(chart.categories) > 8 else "n"
    if chart.stacked:
        bars.categoryAxis.style = "stacked"
    peak = max((sum(s.values[i] for s in chart.series) if chart.stacked else max(s.values[i] for s in chart.series)
                for i in range(len(chart.categories))), default=0) if chart.series else 0
    top = axis_top(peak)
    bars.valueAxis.valueMin, bars.valueAxis.valueMax = 0, top / scale
    bars.valueAxis.valueStep = top / scale / tick_count(top)
    bars.valueAxis.labels.fontSize = 7
    bars.valueAxis.labels.fontName = FONT
    bars.valueAxis.labelTextFormat = (lambda v: value_text(round(v * scale), chart.unit))
    bars.barSpacing = 0
    bars.groupSpacing = 2 if len(chart.categories) > 30 else 5
    for j in range(len(chart.series)):
        bars.bars[j].fillColor = colors.HexColor(PALETTE[j % len(PALETTE)])
        bars.bars[j].strokeColor = None
    drawing.add(bars)
    legend = Legend()
    legend.x, legend.y = 50, 8
    legend.fontSize = 8
    legend.fontName = FONT
    legend.alignment = "right"
    legend.columnMaximum = 1
    legend.deltax = 90
    legend.colorNamePairs = [(colors.HexColor(PALETTE[j % len(PALETTE)]), s.name) for j, s in enumerate(chart.series)]
    drawing.add(legend)
    return drawing


def content_pdf(content: ReportContent, production: Production, *, signoff: Any = None) -> bytes:
    """The PDF of a version. ``signoff``: the :class:`ReportSignoff` whose signatures (given or not) print as
    the report's prepared-by and approved-by lines."""
    pagesize = landscape(letter) if content.landscape else letter
    width = pagesize[0] - 1.2 * inch
    story: list[Flowable] = [data_table(["This version", ""], production.lines(), [2.2 * inch, width - 2.2 * inch],
                                        wrap=CELL),
                             Spacer(1, 0.15 * inch)]
    if content.summary:
        story += [Paragraph("Summary", styles["Heading2"]),
                  data_table(["Measure", "Value"], [list(r) for r in content.summary], wrap=CELL),
                  Spacer(1, 0.15 * inch)]
    for chart in content.charts:
        if not chart.empty:
            story += [KeepTogether([_chart_drawing(chart, width)]), Spacer(1, 0.1 * inch)]
    for section in content.sections:
        story.append(Paragraph(markup_safe(section.title), styles["Heading2"]))
        if section.note:
            story.append(Paragraph(markup_safe(section.note), styles["Normal"]))
        # columns as wide as their longest word (a serial range, a sum), the rest by the section's shares
        story += [fit_table(section.header, section.rows, width, section.widths, empty=section.empty),
                  Spacer(1, 0.15 * inch)]
    if content.readings:
        story.append(Paragraph("How the regulation was read", styles["Heading2"]))
        story += [Paragraph(markup_safe(reading), styles["Normal"]) for reading in content.readings]
    if signoff is not None:
        story += [Spacer(1, 0.2 * inch),
                  KeepTogether([Paragraph("Signatures", styles["Heading2"]), signature_block(signoff)])]
    if production.chain_links:
        story += [Spacer(1, 0.2 * inch), Paragraph("Audit chain heads anchored at production", styles["Heading2"]),
                  Paragraph("These heads were e-mailed to the Board's recipients when this version was produced: every "
                            "record up to them must still lead to them (the compliance officer's verification of the "
                            "audit chain against its anchors, or the Board's verifier on an evidence bundle). Digest "
                            f"<b>{markup_safe(production.chain_digest)}</b>", styles["Normal"]),
                  data_table(["Chain", "Last link", "Link hash"],
                             [[chain_words(label), str(seq), link_hash]
                              for label, seq, link_hash in production.chain_links],
                             [2.4 * inch, 0.9 * inch, width - 3.3 * inch], wrap=CELL)]
    meta = DocumentMeta(
        title=content.title, facility_name=production.facility_name, citation=tuple(content.citations),
        printed_for=production.requested_by, logo=production.logo, pagesize=pagesize,
        subtitle=f"{content.period}. Version {production.version}, produced {production.produced_at}.",
    )
    return render_pdf(meta, story)
