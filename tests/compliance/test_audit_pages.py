"""The audit trail a page at a time by keyset (issue 27, Deliver 3): no count, no gap, no duplicate, signed cursors."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from compliance.keyset import CursorError, read_cursor, write_cursor
from compliance.models import AuditEvent
from compliance.views import AUDIT_CURSOR, STALE_PAGE_LINK
from coupons.api.cursor import write_cursor as api_cursor

pytestmark = pytest.mark.django_db
LABEL = "testapp.TwoPersonForm"
BUSY = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _events(facility: Any, count: int, *, at: datetime, action: str = "changed") -> list[int]:
    return [AuditEvent.objects.create(occurred_at=at, facility=facility, action=action, model_label=LABEL,
                                      model_name="two person form", object_id=str(n), object_repr=f"Form {n}").pk
            for n in range(count)]


@pytest.fixture
def trail(facility: Any, other_facility: Any) -> list[int]:
    """130 changes of one record type here at three instants (60 and 50 sharing one each), others around them; their
    ids newest first."""
    ours = [*_events(facility, 60, at=BUSY), *_events(facility, 50, at=BUSY - timedelta(seconds=1)),
            *_events(facility, 20, at=BUSY + timedelta(days=1))]
    _events(other_facility, 30, at=BUSY)  # another facility's: never shown here
    _events(facility, 5, at=BUSY, action="signed")  # another kind of change: filtered out
    return [pk for _, pk in sorted(((AuditEvent.objects.get(pk=pk).occurred_at, pk) for pk in ours), reverse=True)]


def _page(client: Any, query: dict[str, str]) -> Any:
    response = client.get("/audit/", query)
    assert response.status_code == 200
    return response


def test_older_links_walk_the_filtered_trail_without_gap_or_duplicate_and_newer_links_walk_back(
        trail, compliance_officer, client_for):
    client, filters = client_for(compliance_officer), {"model": LABEL, "action": "changed"}
    pages = [_page(client, filters).context["page"]]
    assert pages[0].at_newest and pages[0].newer is None
    while pages[-1].older:
        pages.append(_page(client, {**filters, "older": pages[-1].older}).context["page"])
    assert [len(p) for p in pages] == [50, 50, 30]
    assert [e.pk for p in pages for e in p] == trail
    back = [_page(client, {**filters, "newer": pages[-1].newer}).context["page"]]
    while not back[-1].at_newest:
        back.append(_page(client, {**filters, "newer": back[-1].newer}).context["page"])
    assert [[e.pk for e in p] for p in back] == [[e.pk for e in p] for p in pages[-2::-1]]


def test_the_page_links_keep_the_filters_and_say_no_count(trail, compliance_officer, client_for):
    client = client_for(compliance_officer)
    first = _page(client, {"model": LABEL, "action": "changed"})
    html = first.content.decode()
    older = first.context["page"].older
    assert f"?model=testapp.TwoPersonForm&amp;action=changed&amp;older={older}" in html
    assert "50 changes shown" in html and " of " not in html.split('aria-label="Pages"')[1].split("</nav>")[0]
    second = _page(client, {"model": LABEL, "action": "changed", "older": older})
    html = second.content.decode()
    assert f"?model=testapp.TwoPersonForm&amp;action=changed&amp;newer={second.context['page'].newer}" in html
    assert 'href="?model=testapp.TwoPersonForm&amp;action=changed">⇤ Newest</a>' in html


@pytest.mark.parametrize("tamper", [
    lambda c: c[:-1] + ("A" if c[-1] != "A" else "B"),  # the signature edited
    lambda c: write_cursor(BUSY, 1, purpose="another list"),  # made for another list
    lambda c: api_cursor(BUSY, 1),  # the API's
    lambda c: "MjAyNi0xMS0yOHwx",  # the old unsigned form
    lambda c: "x" * 300,
    lambda c: "Zm9v.bar",
])
@pytest.mark.parametrize("direction", ["older", "newer"])
def test_a_tampered_or_foreign_cursor_shows_the_newest_page_in_words(
        trail, compliance_officer, client_for, tamper, direction):
    client = client_for(compliance_officer)
    cursor = _page(client, {"model": LABEL}).context["page"].older
    response = _page(client, {"model": LABEL, direction: tamper(cursor)})
    assert STALE_PAGE_LINK in response.content.decode()
    page = response.context["page"]
    assert page.at_newest and page.object_list[0].pk == trail[0]


def test_the_page_counts_nothing(trail, compliance_officer, client_for):
    client = client_for(compliance_officer)
    cursor = _page(client, {}).context["page"].older
    for query in ({}, {"older": cursor}, {"newer": cursor}, {"model": LABEL}, {"model": "compliance.Profile"},
                  {"action": "signed", "older": cursor}):
        with CaptureQueriesContext(connection) as captured:
            _page(client, query)
        assert not [q["sql"] for q in captured.captured_queries if "COUNT(" in q["sql"].upper()], query


def test_a_filter_typed_wrong_shows_nothing_with_its_cursor(trail, compliance_officer, client_for):
    client = client_for(compliance_officer)
    cursor = _page(client, {}).context["page"].older
    response = _page(client, {"date_from": "2026-11-10", "date_to": "2026-11-01", "older": cursor})
    assert "swap them" in response.content.decode() and len(response.context["page"]) == 0


def test_a_cursor_names_its_row_exactly_and_refuses_every_edit():
    at = datetime(2026, 7, 4, 23, 59, 59, 999_999, tzinfo=UTC)
    cursor = write_cursor(at, 2**62, purpose=AUDIT_CURSOR)
    assert read_cursor(cursor, purpose=AUDIT_CURSOR) == (at, 2**62) and len(cursor) < 100
    early = datetime(1969, 12, 31, 23, 0, tzinfo=UTC)
    assert read_cursor(write_cursor(early, 7, purpose="p"), purpose="p") == (early, 7)
    for n in range(len(cursor)):
        edited = cursor[:n] + ("B" if cursor[n] == "A" else "A") + cursor[n + 1:]
        with pytest.raises(CursorError):
            read_cursor(edited, purpose=AUDIT_CURSOR)


def test_the_whole_trail_pages_alike_whether_the_database_or_python_merges_its_parts(
        trail, compliance_officer, client_for, monkeypatch):
    """Unfiltered, the page reads each part of the trail on its own and merges their keys: in one UNION where the
    database allows a LIMIT inside one, in Python where it does not (SQLite, the embedded default, refused with a
    500 on /audit/). Both walk the same pages, older and back."""
    client = client_for(compliance_officer)

    def walk() -> list[list[int]]:
        pages = [_page(client, {}).context["page"]]
        while pages[-1].older:
            pages.append(_page(client, {"older": pages[-1].older}).context["page"])
        back = [_page(client, {"newer": pages[-1].newer}).context["page"]] if pages[-1].newer else []
        return [[e.pk for e in p] for p in pages + back]

    by_union = walk() if connection.features.supports_slicing_ordering_in_compound else None
    monkeypatch.setattr(connection.features, "supports_slicing_ordering_in_compound", False)
    with CaptureQueriesContext(connection) as read:
        by_python = walk()
    assert not [q for q in read.captured_queries if " UNION " in q["sql"]]  # what SQLite refuses is not asked
    assert sum(len(p) for p in by_python[:-1]) >= len(trail)  # every change of ours, and the others of the page
    assert [pk for p in by_python for pk in p if pk in set(trail)][:len(trail)] == trail
    if by_union is not None:
        assert by_python == by_union
