"""Walking a list page read by keyset (issue 27, Deliver 3), shared by the tests of each such page."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext


def page_of(client: Any, url: str, query: dict[str, Any]) -> Any:
    response = client.get(url, query)
    assert response.status_code == 200
    return response


def walk(client: Any, url: str, query: dict[str, Any], key: Any) -> list[list[Any]]:
    """Every page by its "Older" links from the newest, then back by the "Newer" links, which must give the same
    pages; the rows of each page (``key`` of each, in the page's order newest first)."""
    pages = [page_of(client, url, query).context["page"]]
    assert pages[0].at_newest and pages[0].newer is None
    while pages[-1].older:
        assert len(pages) < 1000 and pages[-1].older not in {p.older for p in pages[:-1]}, "Older leads back"
        pages.append(page_of(client, url, {**query, "older": pages[-1].older}).context["page"])
    back = [pages[-1]]
    while not back[-1].at_newest:
        assert len(back) <= len(pages), "Newer never reaches the newest page"
        back.append(page_of(client, url, {**query, "newer": back[-1].newer}).context["page"])
    walked = [[key(row) for row in page.object_list] for page in pages]
    assert [[key(row) for row in page.object_list] for page in back] == walked[::-1]
    return walked


def assert_no_count(client: Any, url: str, queries: list[dict[str, Any]]) -> None:
    for query in queries:
        with CaptureQueriesContext(connection) as captured:
            page_of(client, url, query)
        sql = [q["sql"] for q in captured.captured_queries]
        assert not [s for s in sql if "COUNT(" in s.upper() or "OFFSET" in s.upper()], query


TAMPERINGS = [
    lambda c: c[:-1] + ("A" if c[-1] != "A" else "B"),  # the signature edited
    lambda c: "MjAyNi0xMS0yOHwx",  # unsigned
    lambda c: "x" * 300,
    lambda c: "Zm9v.bar",
]
