"""The dice and deck change logs a page at a time by keyset (issue 27, Deliver 3): no count, no gap, no duplicate,
a stale link answered in words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from compliance.keyset import stale_link_words, write_cursor
from equipment.models import DeckSet, DiceSet
from equipment.views import DeckLogView, DiceLogView
from tests.factories import GamingTableFactory
from tests.keyset_pages import TAMPERINGS, assert_no_count, page_of, walk

pytestmark = pytest.mark.django_db
BUSY = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LOGS = [(DiceSet, "/equipment/dice/", "dice sets", {"identifiers": "lot", "dice_count": 5, "container": "dice_cup"}),
        (DeckSet, "/equipment/decks/", "decks", {"deck_count": 1, "back_colours": "red", "dealt_from": "hand"})]


def _sets(model: Any, fields: dict[str, Any], facility: Any, people: tuple[Any, Any], at: datetime, count: int) -> None:
    table = GamingTableFactory(facility=facility)
    floorperson, dealer = people
    for _ in range(count):
        model.objects.create(facility=facility, table=table, placed_at=at, due_at=at + timedelta(hours=24),
                             removed_at=at + timedelta(hours=1), floorperson=floorperson, dealer=dealer, **fields)


@pytest.fixture(params=LOGS, ids=["dice", "decks"])
def log(request: Any, facility: Any, other_facility: Any, floorperson: Any, dealer: Any, as_user: Any) -> Any:
    """130 sets here put in play at three instants (60 and 50 sharing one each), 30 in another facility; the log's
    URL, its words for a set, and our sets' ids newest first."""
    model, url, noun, fields = request.param
    with as_user(dealer):
        for place, at, count in ((facility, BUSY, 60), (facility, BUSY - timedelta(seconds=1), 50),
                                 (facility, BUSY + timedelta(days=1), 20), (other_facility, BUSY, 30)):
            _sets(model, fields, place, (floorperson, dealer), at, count)
    ids = model.objects.filter(facility=facility).order_by("-placed_at", "-pk").values_list("pk", flat=True)
    return url, noun, list(ids)


def test_older_links_walk_the_log_without_gap_or_duplicate_and_newer_links_walk_back(log, floorperson, client_for):
    url, _, ids = log
    pages = walk(client_for(floorperson), url, {}, lambda s: s.pk)
    assert [len(p) for p in pages] == [50, 50, 30]
    assert [pk for p in pages for pk in p] == ids


def test_the_pager_names_no_count(log, floorperson, client_for):
    url, noun, _ = log
    client = client_for(floorperson)
    first = page_of(client, url, {})
    assert f'href="?older={first.context["page"].older}"' in first.content.decode()
    assert f"50 {noun} shown" in first.content.decode()
    html = page_of(client, url, {"older": first.context["page"].older}).content.decode()
    assert 'href="?">⇤ Newest</a>' in html and " of " not in html.split('aria-label="Pages"')[1]


@pytest.mark.parametrize("tamper", TAMPERINGS)
def test_a_tampered_cursor_shows_the_newest_page_in_words(log, floorperson, client_for, tamper):
    url, noun, ids = log
    client = client_for(floorperson)
    cursor = page_of(client, url, {}).context["page"].older
    response = page_of(client, url, {"older": tamper(cursor)})
    assert stale_link_words(noun) in response.content.decode()
    assert response.context["page"].at_newest and response.context["page"].object_list[0].pk == ids[0]


def test_a_dice_cursor_is_no_deck_cursor(log, floorperson, client_for):
    url, noun, ids = log
    other = DeckLogView.cursor if url == "/equipment/dice/" else DiceLogView.cursor
    cursor = write_cursor(BUSY, ids[5], purpose=other)
    assert stale_link_words(noun) in page_of(client_for(floorperson), url, {"older": cursor}).content.decode()


def test_the_page_counts_nothing(log, floorperson, client_for):
    url, _, _ = log
    client = client_for(floorperson)
    cursor = page_of(client, url, {}).context["page"].older
    assert_no_count(client, url, [{}, {"older": cursor}, {"newer": cursor}, {"page": "2"}])
