"""Charts drawn on the server as SVG for the page (no script, no CDN, nothing inline for the CSP to refuse).

The PDF draws the same :class:`~compliance.reports.content.Chart` with reportlab's graphics
(:mod:`compliance.reports.render`). Pure functions: no database, no Django.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from compliance.reports.content import Chart

__all__ = ["PALETTE", "axis_top", "chart_svg", "label_step", "tick_count", "value_text"]

PALETTE = ("#1f5f8b", "#e07b39", "#4c9a5b", "#b23a48", "#7a5c99", "#8c7a3d", "#3d8c8c", "#6b7785")
WIDTH, HEIGHT = 760, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 34, 58


def value_text(value: int, unit: str) -> str:
    return f"${value / 100:,.2f}" if unit == "$" else f"{value:,}"


def axis_top(peak: int) -> int:
    """A round top for the value axis at or above ``peak`` (1, 2 or 5 times a power of ten)."""
    if peak <= 0:
        return 1
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor >= peak:
                return step * factor
        step *= 10


def tick_count(top: int) -> int:
    """How many steps the value axis takes up to ``top`` so each is a round whole number (50: 5 × 10,
    20: 4 × 5, 3: 3 × 1)."""
    if top <= 5:
        return max(1, top)
    return 4 if str(top)[0] == "2" else 5


def label_step(categories: int, room: int = 16) -> int:
    """Label every n-th category so that at most ``room`` labels fit under the bars."""
    return max(1, -(-categories // room))


def _peak(chart: Chart) -> int:
    if chart.stacked:
        return max((sum(s.values[i] for s in chart.series) for i in range(len(chart.categories))), default=0)
    return max((v for s in chart.series for v in s.values), default=0)


def chart_svg(chart: Chart) -> str:
    """The chart as a standalone ``<svg>`` element, with a text alternative for screen readers."""
    top = axis_top(_peak(chart))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    n = max(1, len(chart.categories))
    slot = plot_w / n
    groups = 1 if chart.stacked else max(1, len(chart.series))
    bar_w = max(1.0, slot * 0.8 / groups)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label={quoteattr(chart.title)}>',
        f"<title>{escape(chart.title)}</title>",
        f'<text x="{LEFT}" y="18" font-size="14" font-weight="bold">{escape(chart.title)}</text>',
    ]
    steps = tick_count(top)
    for tick in range(steps + 1):
        value = top * tick // steps
        y = TOP + plot_h - plot_h * tick / steps
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#d5dbe1"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" font-size="10" text-anchor="end">'
                     f"{escape(value_text(value, chart.unit))}</text>")
    step = label_step(n)
    for i, category in enumerate(chart.categories):
        base: float = TOP + plot_h
        for j, series in enumerate(chart.series):
            value = series.values[i] if i < len(series.values) else 0
            if value <= 0:
                continue
            h = plot_h * value / top
            x = LEFT + slot * i + slot * 0.1 + (0 if chart.stacked else j * bar_w)
            y = base - h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{h:.1f}" fill="{PALETTE[j % len(PALETTE)]}">'
                f"<title>{escape(f'{category}, {series.name}: {value_text(value, chart.unit)}')}</title></rect>"
            )
            if chart.stacked:
                base = y
        if i % step == 0:
            cx = LEFT + slot * i + slot / 2
            parts.append(f'<text x="{cx:.1f}" y="{TOP + plot_h + 14}" font-size="10" text-anchor="middle">'
                         f"{escape(category)}</text>")
    x = LEFT
    for j, series in enumerate(chart.series):
        parts.append(f'<rect x="{x}" y="{HEIGHT - 20}" width="10" height="10" fill="{PALETTE[j % len(PALETTE)]}"/>')
        parts.append(f'<text x="{x + 14}" y="{HEIGHT - 11}" font-size="11">{escape(series.name)}</text>')
        x += 24 + 7 * len(series.name)
    parts.append("</svg>")
    return "".join(parts)
