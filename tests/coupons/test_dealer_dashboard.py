"""The dealer's first screen is their work (issue 25, item 1): the open tables taking wagers, each a link to its
scanner screen (§ 525.22(b)); nothing else of the coupon ledger."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_dealers_dashboard_links_each_open_table_to_its_scanner(craps_table, dealer, client_for):
    page = client_for(dealer).get("/").content.decode()
    assert "Redeem coupons at your table" in page
    assert f'href="/coupons/redeem/tables/{craps_table.pk}/"' in page
    assert "Match Play Coupons" not in page  # the ledger's panel is finance's and marketing's


def test_no_open_table_says_so(facility, dealer, client_for):
    page = client_for(dealer).get("/").content.decode()
    assert "No banking table is open" in page


def test_the_panel_is_the_dealers_alone(craps_table, finance_staff, client_for):
    assert "Redeem coupons at your table" not in client_for(finance_staff).get("/").content.decode()
