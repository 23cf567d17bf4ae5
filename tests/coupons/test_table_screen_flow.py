"""The dealer's flow at the table screen (§ 525.22(b): the coupon is wagered with chips): the chips are the table's
usual wager, kept from coupon to coupon; a keyboard-wedge scanner's Enter before any chips are entered is not a
redemption refused, but the screen asking for the chips with the serial kept (the page's script does it in the
browser: tests/coupons/test_browser_redemption.py; this is the same flow when the page comes back from the server)."""

from __future__ import annotations

import re

import pytest

from coupons.models import Redemption

pytestmark = pytest.mark.django_db


def _field(html: str, name: str) -> str:
    found = re.search(rf'<(?:input|select)[^>]*name="{name}"[^>]*>', html)
    assert found is not None, f"no field {name}"
    return found[0]


def test_the_chips_come_before_the_serial_and_the_serial_has_the_focus(program, craps_table, dealer, client_for):
    html = client_for(dealer).get(f"/coupons/redeem/tables/{craps_table.pk}/").content.decode()
    assert html.index('name="position"') < html.index('name="chips"') < html.index('name="serial"')
    assert "autofocus" in _field(html, "serial") and "autofocus" not in _field(html, "chips")
    assert "Kept for the next coupon" in html and "coupons/table_screen.js" in html


def test_a_scan_before_the_chips_keeps_the_serial_and_asks_for_the_chips(
    program, handed_out, craps_table, dealer, client_for
):
    handed_out(1, 10)
    client = client_for(dealer)
    url = f"/coupons/redeem/tables/{craps_table.pk}/"
    held = client.post(url, {"serial": "MP-0000004", "position": "pass_line", "chips": ""})
    html = held.content.decode()
    assert held.status_code == 422 and "answer refused" not in html and Redemption.objects.count() == 0
    assert "Enter the chips wagered with this coupon, then press Enter: the serial scanned is kept." in html
    assert 'value="MP-0000004"' in _field(html, "serial") and "autofocus" in _field(html, "chips")
    assert "autofocus" not in _field(html, "serial")


def test_the_chips_are_kept_after_an_accepted_coupon(program, handed_out, craps_table, dealer, client_for):
    handed_out(1, 10)
    client = client_for(dealer)
    url = f"/coupons/redeem/tables/{craps_table.pk}/"
    accepted = client.post(url, {"serial": "MP-0000004", "position": "pass_line", "chips": "25"})
    html = accepted.content.decode()
    assert accepted.status_code == 200 and "answer ok" in html
    assert 'value="25' in _field(html, "chips") and "value=" not in _field(html, "serial")
    assert "autofocus" in _field(html, "serial")
    # The next scan alone (serial and Enter) redeems with the same wager.
    client.post(url, {"serial": "MP-0000005", "position": "pass_line", "chips": "25"})
    assert sorted(r.chips_cents for r in Redemption.objects.all()) == [2500, 2500]
