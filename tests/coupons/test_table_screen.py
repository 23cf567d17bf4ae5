"""The table screen: a dealer (or a keyboard-wedge scanner) types the serial and Enter; the answer shows
large and coloured; the table's redemptions of the day are listed. The scanners page registers and revokes."""

from __future__ import annotations

import pytest

from coupons.models import Redemption, ScannerDevice

pytestmark = pytest.mark.django_db


def test_a_dealer_scans_and_sees_accept_then_refuse(program, handed_out, craps_table, dealer, client_for):
    handed_out(1, 10)
    client = client_for(dealer)
    url = f"/coupons/redeem/tables/{craps_table.pk}/"
    page = client.get(url)
    assert page.status_code == 200 and b'autofocus' in page.content and b"Don&#x27;t Pass" in page.content
    ok = client.post(url, {"serial": "MP-0000004", "position": "pass_line", "chips": "25"})
    assert ok.status_code == 200 and b"Accept" in ok.content and b"answer ok" in ok.content
    assert b"MP-0000004" in ok.content and b"drop box" in ok.content
    again = client.post(url, {"serial": "MP-0000004", "position": "pass_line", "chips": "25"})
    assert again.status_code == 422 and b"answer refused" in again.content and b"already redeemed" in again.content
    assert Redemption.objects.count() == 1


def test_the_table_screen_is_for_dealers_and_only_banking_tables(program, craps_table, marketing_staff, dealer,
                                                                 client_for, inspector):
    assert client_for(marketing_staff).get(f"/coupons/redeem/tables/{craps_table.pk}/").status_code == 403
    assert client_for(dealer).get("/coupons/redeem/tables/999999/").status_code == 404
    assert client_for(inspector).post(f"/coupons/redeem/tables/{craps_table.pk}/", {"serial": "x"}).status_code == 403


def test_a_shift_manager_registers_a_scanner_sees_its_token_once_and_revokes_it(
    program, craps_table, shift_manager, dealer, client_for
):
    manager = client_for(shift_manager)
    shown = manager.post("/coupons/scanners/", {"table": craps_table.pk, "name": "CR-1 scanner"})
    assert shown.status_code == 200 and b"only this once" in shown.content
    device = ScannerDevice.objects.get()
    assert device.token_hint.encode() in shown.content and len(device.token_sha256) == 64
    listing = manager.get("/coupons/scanners/")
    assert b"In service" in listing.content and b"Register a scanner" in listing.content
    assert b"Register a scanner" not in client_for(dealer).get("/coupons/scanners/").content
    manager.post("/coupons/scanners/", {"revoke": device.pk, "reason": "Lost"})
    device.refresh_from_db()
    assert device.revoked_at is not None and device.revoked_by == shift_manager


def test_redemption_pages_for_the_inspector(program, handed_out, craps_table, dealer, inspector, client_for):
    handed_out(1, 10)
    client_for(dealer).post(f"/coupons/redeem/tables/{craps_table.pk}/",
                            {"serial": "MP-0000001", "position": "pass_line", "chips": "30"})
    reader = client_for(inspector)
    day = reader.get("/coupons/redemptions/")
    assert day.status_code == 200 and b"MP-0000001" in day.content and b"$25" in day.content
    assert reader.get("/coupons/redemptions/day/2026-11-03/").status_code == 200
    assert reader.get("/coupons/redemptions/day/9999-99-99/").status_code == 404


def test_the_day_of_redemptions_is_paged_newest_first_and_narrowed_to_a_table(
        program, handed_out, craps_table, dealer, inspector, client_for, monkeypatch):
    """Issue 27: a busy day holds tens of thousands of redemptions; the page shows each table's count and value
    and the coupons a page at a time (keyset, newest first), one table's if asked; a foreign table is said."""
    from coupons.views.redemption import RedemptionDayView

    monkeypatch.setattr(RedemptionDayView, "page_size", 2)
    handed_out(1, 10)
    for n in (1, 2, 3):
        client_for(dealer).post(f"/coupons/redeem/tables/{craps_table.pk}/",
                                {"serial": f"MP-000000{n}", "position": "pass_line", "chips": "30"})
    reader = client_for(inspector)
    first = reader.get("/coupons/redemptions/")
    body = first.content.decode()
    assert "3 coupons redeemed" in body and "$75" in body
    assert "MP-0000003" in body and "MP-0000002" in body and "MP-0000001" not in body
    older = first.context["page"].older
    second = reader.get(f"/coupons/redemptions/?older={older}").content.decode()
    assert "MP-0000001" in second and "MP-0000003" not in second
    narrowed = reader.get(f"/coupons/redemptions/?table={craps_table.pk}").content.decode()
    assert f"at table {craps_table.number}" in narrowed
    for hostile in ("999999", "x' OR 1=1", "-1"):
        response = reader.get("/coupons/redemptions/", {"table": hostile})
        assert response.status_code == 200 and "showing every table" in response.content.decode()
    forged = reader.get("/coupons/redemptions/?older=AAAA.BBBB")
    assert forged.status_code == 200 and "no longer valid" in forged.content.decode()


def test_the_screen_shows_the_verdict_the_scan_obeys_and_a_closing_at_once(program, handed_out, facility, dealer,
                                                                           client_for):
    """The table screen asks the table's readiness as the scan does (kept a few seconds, issue 27), so the second
    view reads no verdict of its own; a write that changes it (the table closing) shows on the very next view."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from compliance.models import Game
    from tests.factories import GamingTableFactory

    handed_out(1, 10)
    table = GamingTableFactory(is_open=True, facility=facility, number="CR-7", game=Game.objects.get(code="craps"))
    client = client_for(dealer)
    url = f"/coupons/redeem/tables/{table.pk}/"
    with CaptureQueriesContext(connection) as first:
        assert client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as second:
        open_page = client.get(url)
    assert b'id="readiness"' not in open_page.content  # open, every requirement met: no banner
    assert len(second.captured_queries) < len(first.captured_queries)
    table.is_open = False
    table.save()
    closed_page = client.get(url)
    assert not closed_page.context["readiness"].is_open
    assert b'id="readiness"' in closed_page.content and b"Ready to open" in closed_page.content  # closed: no wager
