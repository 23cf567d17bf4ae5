"""An expired series reads as expired wherever its status shows, § 525.21(k), (m)(2): "All expired coupons must be
returned to the finance department on a daily basis", where finance cancels them. A series past its expiry never
reads "May be issued: Approved" while its stock is still in place."""

from __future__ import annotations

import html
from typing import Any

import pytest
import time_machine

from coupons import services

pytestmark = pytest.mark.django_db

AFTER_EXPIRY = "2027-01-04 14:00:00+00:00"  # 09:00 in Harrisburg, 4 Jan 2027; the series expired on 31 Dec 2026
EXPIRED = "Expired on 31 Dec 2026 — may not be issued"


def _pages(client: Any, series: Any) -> dict[str, str]:
    pages = {}
    for url in ("/coupons/", "/coupons/program/", series.get_absolute_url(), "/coupons/ledger/"):
        response = client.get(url)
        assert response.status_code == 200, url
        pages[url] = html.unescape(response.content.decode())
    return pages


def test_an_expired_series_with_stock_in_place_says_to_return_and_cancel_it_wherever_its_status_shows(
    program, receive, issue, finance_supervisor, client_for
):
    receive(1, 100)
    issue(1, 30)
    client = client_for(finance_supervisor)
    before = _pages(client, program.series)
    assert "Approved" in before["/coupons/"] and "Expired on" not in "".join(before.values())

    with time_machine.travel(AFTER_EXPIRY, tick=False):
        client = client_for(finance_supervisor)  # a new session: the last one ended two months ago
        pages = _pages(client, program.series)
        words = (
            f"{EXPIRED}; return and cancel its stock (§ 525.21(k), (m)(2)): 30 coupons with marketing and "
            f"70 coupons in finance's custody."
        )
        for url, page in pages.items():
            assert words in page, url
        overview = pages["/coupons/"]
        row = overview[overview.index(program.series.name) :]
        assert "Approved" not in row[: row.index("</tr>")]
        assert "Approved, § 525.21(b)" not in pages[program.series.get_absolute_url()]

        # Finance takes its expired stock out of circulation: what is left is marketing's to return.
        services.stock_expire(series=program.series, user=finance_supervisor)
        after = _pages(client, program.series)
        for page in after.values():
            assert f"{EXPIRED}; return and cancel its stock (§ 525.21(k), (m)(2)): 30 coupons with marketing." in page


def test_an_expired_series_with_nothing_left_says_so_and_leaves_the_ledger_quiet(
    program, receive, finance_supervisor, client_for
):
    receive(1, 10)
    with time_machine.travel(AFTER_EXPIRY, tick=False):
        client = client_for(finance_supervisor)
        services.stock_expire(series=program.series, user=finance_supervisor)
        pages = _pages(client, program.series)
    gone = f"{EXPIRED}; none of its stock is left to return or cancel (§ 525.21(k), (m)(2))."
    assert gone in pages["/coupons/"] and gone in pages[program.series.get_absolute_url()]
    assert gone in pages["/coupons/program/"]
    assert "Expired on" not in pages["/coupons/ledger/"]  # nothing left to do: no standing notice
