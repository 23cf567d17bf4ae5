"""The coupon ledger a page at a time by keyset (issue 27, Deliver 3): no count, no gap, no duplicate, filters kept,
true running balances on every page, a stale link answered in words."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse
from django.utils import timezone

from compliance.actors import acting_as
from compliance.keyset import stale_link_words
from compliance.models import regulated_bulk_create
from coupons import selectors
from coupons.models import CouponReceipt, CouponState, LedgerLine
from tests.keyset_pages import TAMPERINGS, assert_no_count, page_of, walk

pytestmark = pytest.mark.django_db
S = CouponState
URL = "/coupons/ledger/"


@pytest.fixture
def ledger(program: Any, receive: Any, finance_supervisor: Any) -> list[int]:
    """130 issue lines, 60 and 50 of them sharing an instant each, with a distribution after each issue (filtered
    out by ``kind=issue``); the issue lines' ids newest first."""
    receipt = receive(1, 10)
    doc_type = ContentType.objects.get_for_model(CouponReceipt)
    busy = timezone.now() + timedelta(seconds=5)
    instants = [busy] * 60 + [busy + timedelta(seconds=1)] * 50 + [busy + timedelta(days=1, minutes=n) for n in range(20)]
    lines = []
    for n, at in enumerate(instants):
        first = 1_000_000 + n * 10
        for kind, from_state, to_state, quantity in (("issue", S.IN_STOCK, S.ISSUED, 10),
                                                     ("distribute", S.ISSUED, S.DISTRIBUTED, 4)):
            lines.append(LedgerLine(facility=program.facility, occurred_at=at, gaming_date=at.date(), kind=kind,
                                    series=program.series, denomination_cents=2500, from_state=from_state,
                                    to_state=to_state, first_serial=first, last_serial=first + quantity - 1,
                                    quantity=quantity, document_type=doc_type, document_id=receipt.pk))
    with acting_as(finance_supervisor):
        regulated_bulk_create(LedgerLine, lines)
    issues = LedgerLine.objects.filter(facility=program.facility, kind="issue", first_serial__gte=1_000_000)
    return list(issues.order_by("-occurred_at", "-id").values_list("id", flat=True))


def test_older_links_walk_the_filtered_ledger_without_gap_or_duplicate_and_newer_links_walk_back(
        ledger, finance_supervisor, client_for):
    pages = walk(client_for(finance_supervisor), URL, {"kind": "issue", "denomination": 2500}, lambda r: r["id"])
    assert [len(p) for p in pages] == [50, 50, 30]
    assert [pk for p in pages for pk in p] == ledger


def test_each_page_shows_its_rows_chronologically_with_true_running_balances(ledger, finance_supervisor, client_for):
    client = client_for(finance_supervisor)
    issued = selectors.LEDGER_STATES.index(S.ISSUED)
    first = page_of(client, URL, {"kind": "issue"}).context["page"]
    second = page_of(client, URL, {"kind": "issue", "older": first.older}).context["page"]
    for page in (first, second):
        keys = [(r["occurred_at"], r["id"]) for r in page.rows]
        assert keys == sorted(keys)
        for row in page.rows:  # after the n-th issue (and n distributions before it): 10n issued, 4(n-1) gone on
            n = ledger[::-1].index(row["id"]) + 1
            assert row["balances"][issued] == 10 * n - 4 * (n - 1)


def test_the_page_links_keep_the_filters_and_say_no_count(ledger, finance_supervisor, client_for):
    client = client_for(finance_supervisor)
    first = page_of(client, URL, {"kind": "issue"})
    html, older = first.content.decode(), first.context["page"].older
    assert f"?kind=issue&amp;older={older}" in html and "50 entries shown" in html
    second = page_of(client, URL, {"kind": "issue", "older": older})
    html = second.content.decode()
    assert f"?kind=issue&amp;newer={second.context['page'].newer}" in html
    assert 'href="?kind=issue">⇤ Newest</a>' in html and " of " not in html.split('aria-label="Pages"')[1]


@pytest.mark.parametrize("tamper", TAMPERINGS)
@pytest.mark.parametrize("direction", ["older", "newer"])
def test_a_tampered_cursor_shows_the_newest_page_in_words(ledger, finance_supervisor, client_for, tamper, direction):
    client = client_for(finance_supervisor)
    cursor = page_of(client, URL, {"kind": "issue"}).context["page"].older
    response = page_of(client, URL, {"kind": "issue", direction: tamper(cursor)})
    assert stale_link_words("entries") in response.content.decode()
    assert response.context["page"].at_newest and response.context["page"].object_list[0]["id"] == ledger[0]


def test_an_audit_cursor_is_no_ledger_cursor(ledger, finance_supervisor, client_for):
    from compliance.keyset import write_cursor
    from compliance.views import AUDIT_CURSOR

    cursor = write_cursor(timezone.now(), ledger[5], purpose=AUDIT_CURSOR)
    response = page_of(client_for(finance_supervisor), URL, {"older": cursor})
    assert stale_link_words("entries") in response.content.decode()


def test_the_page_counts_nothing(ledger, finance_supervisor, client_for):
    client = client_for(finance_supervisor)
    cursor = page_of(client, URL, {}).context["page"].older
    assert_no_count(client, URL, [{}, {"older": cursor}, {"newer": cursor}, {"kind": "issue"},
                                  {"kind": "void", "older": cursor}])


def test_the_exports_still_stream_every_filtered_row(ledger, finance_supervisor, client_for):
    response = client_for(finance_supervisor).get(reverse("coupons:ledger-csv"), {"kind": "issue"})
    lines = b"".join(response.streaming_content).decode().strip().splitlines()
    assert len(lines) == 1 + 130  # the header and every issue line, not a page of them
