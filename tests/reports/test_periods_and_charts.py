"""Report periods in gaming days and the server-drawn charts: pure functions, no database."""

from __future__ import annotations

from datetime import date

import pytest

from compliance.reports.charts import axis_top, chart_svg, label_step
from compliance.reports.content import Chart, ReportContent, Section, Series
from compliance.reports.periods import Period, month_of, previous_quarter, quarter_of


@pytest.mark.parametrize(("day", "start", "end"), [
    (date(2026, 9, 30), date(2026, 7, 1), date(2026, 9, 30)),
    (date(2026, 10, 1), date(2026, 10, 1), date(2026, 12, 31)),
    (date(2026, 12, 31), date(2026, 10, 1), date(2026, 12, 31)),
    (date(2026, 1, 1), date(2026, 1, 1), date(2026, 3, 31)),
    (date(2028, 2, 29), date(2028, 1, 1), date(2028, 3, 31)),
])
def test_the_quarter_of_a_gaming_day(day, start, end):
    assert quarter_of(day) == Period(start, end)


def test_the_quarter_due_is_the_last_one_wholly_before_the_gaming_day():
    assert previous_quarter(date(2026, 10, 1)) == Period(date(2026, 7, 1), date(2026, 9, 30))
    assert previous_quarter(date(2026, 9, 30)) == Period(date(2026, 4, 1), date(2026, 6, 30))
    assert previous_quarter(date(2027, 1, 1)) == Period(date(2026, 10, 1), date(2026, 12, 31))


def test_a_period_knows_whether_it_is_a_whole_quarter():
    assert Period(date(2026, 7, 1), date(2026, 9, 30)).quarter == (2026, 3)
    assert Period(date(2026, 7, 1), date(2026, 9, 29)).quarter is None
    assert Period(date(2026, 7, 1), date(2026, 9, 30)).label().startswith("Q3 2026")
    assert Period(date(2026, 7, 1), date(2026, 9, 30)).days == 92
    assert month_of(date(2026, 2, 14)) == Period(date(2026, 2, 1), date(2026, 2, 28))
    with pytest.raises(ValueError, match="ends on or after"):
        Period(date(2026, 7, 2), date(2026, 7, 1))


def test_axis_tops_are_round_and_labels_thin_out():
    assert [axis_top(n) for n in (0, 1, 3, 7, 11, 99, 101, 4999)] == [1, 1, 5, 10, 20, 100, 200, 5000]
    assert label_step(92) == 6 and label_step(7) == 1


def test_a_chart_is_svg_with_its_words_escaped():
    chart = Chart('Coupons <per> day & "more"', ["01 Jul", "02 Jul"],
                  [Series("$5.00", [3, 0]), Series("<b>$25.00</b>", [1, 2])])
    svg = chart_svg(chart)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<b>" not in svg and "&lt;b&gt;$25.00&lt;/b&gt;" in svg
    assert "Coupons &lt;per&gt; day &amp;" in svg
    assert svg.count("<rect") == 3 + 2  # three bars with a value, two legend keys
    assert "style=" not in svg  # the Content-Security-Policy forbids inline styles
    assert Chart("empty", ["a"], [Series("s", [0])]).empty


def test_content_round_trips_through_its_stored_json():
    content = ReportContent(title="T", citations=["525.21(o)"], period="Q3", summary=[("a", "1")],
                            sections=[Section("S", ["h"], [["=cmd"]], widths=[1.0])],
                            charts=[Chart("C", ["x"], [Series("s", [1])], stacked=False, unit="$")],
                            readings=["r"], figures={"value_cents": 5}, landscape=True)
    assert ReportContent.from_json(content.to_json()) == content


def test_value_axes_step_in_round_whole_numbers():
    from compliance.reports.charts import tick_count

    for top in (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000, 2000):
        steps = tick_count(top)
        assert top % steps == 0, top
