"""A series' page lists its open ranges a page at a time by keyset from a serial (issue 27: out-of-order redemptions
split a series into many ranges; no count, no OFFSET), and "Go to serial" finds the range holding it."""

from __future__ import annotations

from coupons import selectors, services
from tests.coupons.conftest import TODAY
from tests.keyset_pages import assert_no_count


def _spans(response):
    return [(item["range"].first_serial, item["range"].last_serial) for item in response.context["ranges"]]


def test_the_ranges_are_paged_from_the_range_holding_a_serial(program, receive, issue, marketing_staff, finance_staff,
                                                              client_for, monkeypatch):
    real = selectors.series_ranges
    monkeypatch.setattr(selectors, "series_ranges", lambda series, start: real(series, start, per_page=2))
    receive(1, 100)
    issue(1, 50)
    services.distribution_record(facility=program.facility, series=program.series, spans=[(1, 10), (21, 30)],
                                 user=marketing_staff, gaming_date=TODAY)
    client = client_for(finance_staff)
    url = program.series.get_absolute_url()
    first = client.get(url)
    assert _spans(first) == [(1, 10), (11, 20)] and first.context["page"].next_from == 21
    held = client.get(url, {"from": "25"})  # the range holding serial 25 starts the page
    assert _spans(held) == [(21, 30), (31, 50)]
    assert held.context["page"].previous_from == 1 and held.context["page"].next_from == 51
    printed = client.get(url, {"from": program.series.serial(25)})  # as printed on the coupon
    assert _spans(printed) == [(21, 30), (31, 50)]
    last = client.get(url, {"from": "51"})
    assert _spans(last) == [(51, 100)] and last.context["page"].next_from is None
    assert 'href="?from=21"' in first.content.decode() and "Go to serial" in first.content.decode()
    assert_no_count(client, url, [{}, {"from": "25"}])
    for hostile in ("abc", "-5", "9" * 40, "MP-"):
        response = client.get(url, {"from": hostile})
        assert response.status_code == 200 and _spans(response) == [(1, 10), (11, 20)], hostile
