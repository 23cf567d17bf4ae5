"""The register of table scanners (/coupons/scanners/, § 525.21(r)(2)) a page at a time by keyset (issue 27, item 3):
in service or revoked, newest registered first, no count and no OFFSET; a link whose cursor was not made here is
answered in words with the newest page."""

from __future__ import annotations

import re

import pytest

from coupons.models import ScannerDevice
from coupons.services.scanners import scanner_register, scanner_revoke
from coupons.views.redemption import ScannerListView
from tests.coupons.real_clock import _frozen_day  # noqa: F401  (the real clock: a browser keeps its cookies by it)

pytestmark = pytest.mark.django_db


def _names(content: bytes) -> list[str]:
    return re.findall(r"<tr><td>(Scanner \d+)</td>", content.decode())


def _link(content: bytes, rel: str) -> str:
    found = re.search(rf'href="(\?[^"]*)" rel="{rel}"', content.decode())
    assert found, f"no {rel} link"
    return found.group(1).replace("&amp;", "&")


@pytest.fixture
def scanners(facility, craps_table, shift_manager):
    made = [scanner_register(facility=facility, table=craps_table, name=f"Scanner {n}", user=shift_manager)[0]
            for n in range(1, 6)]
    scanner_revoke(device=made[1], reason="Lost on the floor", user=shift_manager)
    return made


def test_the_register_is_read_a_page_at_a_time_newest_first(scanners, shift_manager, client_for, monkeypatch,
                                                             django_assert_max_num_queries):
    monkeypatch.setattr(ScannerListView, "page_size", 2)
    manager = client_for(shift_manager)
    first = manager.get("/coupons/scanners/")
    assert _names(first.content) == ["Scanner 5", "Scanner 4"]  # registered at one instant: the id decides
    second = manager.get("/coupons/scanners/" + _link(first.content, "next"))
    assert _names(second.content) == ["Scanner 3", "Scanner 1"]  # 2 is revoked: not in service
    assert 'rel="next"' not in second.content.decode()
    back = manager.get("/coupons/scanners/" + _link(second.content, "prev"))
    assert _names(back.content) == ["Scanner 5", "Scanner 4"]
    revoked = manager.get("/coupons/scanners/?status=revoked")
    assert _names(revoked.content) == ["Scanner 2"] and b"Lost on the floor" in revoked.content
    assert b"Revoke</button>" not in revoked.content
    with django_assert_max_num_queries(20):
        manager.get("/coupons/scanners/" + _link(first.content, "next"))


def test_a_cursor_not_made_here_gets_the_newest_page_and_words(scanners, shift_manager, client_for, monkeypatch):
    monkeypatch.setattr(ScannerListView, "page_size", 2)
    manager = client_for(shift_manager)
    for query in ("?older=forged.cursor", "?newer=" + "A" * 99, "?older=%E2%80%AE", "?status=revoked&older=x.y"):
        answer = manager.get("/coupons/scanners/" + query)
        assert answer.status_code == 200, query
        assert _names(answer.content) in (["Scanner 5", "Scanner 4"], ["Scanner 2"]), query
        assert b"scanners" in answer.content and b"newest" in answer.content.lower(), query


def test_a_scanner_on_a_later_page_is_revoked_from_it(scanners, shift_manager, client_for, monkeypatch):
    monkeypatch.setattr(ScannerListView, "page_size", 2)
    manager = client_for(shift_manager)
    later = _link(manager.get("/coupons/scanners/").content, "next")
    manager.post("/coupons/scanners/" + later, {"revoke": scanners[0].pk, "reason": "Replaced"})
    assert ScannerDevice.objects.get(pk=scanners[0].pk).revoked_reason == "Replaced"
    assert _names(manager.get("/coupons/scanners/?status=revoked").content) == ["Scanner 2", "Scanner 1"]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_shift_manager_pages_through_the_register_in_a_browser(live_server, facility, craps_table,
                                                                     shift_manager, monkeypatch):
    from tests.browser.conftest import fill_sign_in, shoot
    from tests.browser.day import in_browser
    from tests.coupons.test_browser import SHOTS

    monkeypatch.setattr(ScannerListView, "page_size", 2)
    for n in range(1, 4):
        scanner_register(facility=facility, table=craps_table, name=f"Scanner {n}", user=shift_manager)
    seen: dict[str, object] = {}

    def steps(page: object) -> None:
        fill_sign_in(page, live_server, shift_manager)
        page.wait_for_url(f"{live_server.url}/")  # type: ignore[attr-defined]
        page.goto(f"{live_server.url}/coupons/scanners/")  # type: ignore[attr-defined]
        seen["first"] = _names(page.content().encode())  # type: ignore[attr-defined]
        page.get_by_role("link", name="Older →").click()  # type: ignore[attr-defined]
        seen["older"] = _names(page.content().encode())  # type: ignore[attr-defined]
        page.get_by_label("Reason").fill("Battery swollen")  # type: ignore[attr-defined]
        page.get_by_role("button", name="Revoke").click()  # type: ignore[attr-defined]
        page.get_by_role("link", name="Revoked").click()  # type: ignore[attr-defined]
        seen["revoked"] = _names(page.content().encode())  # type: ignore[attr-defined]
        SHOTS.mkdir(parents=True, exist_ok=True)
        shoot(page, SHOTS / "coupons-scanners-revoked.png")

    in_browser(steps, {"width": 1024, "height": 768})
    assert seen == {"first": ["Scanner 3", "Scanner 2"], "older": ["Scanner 1"], "revoked": ["Scanner 1"]}
