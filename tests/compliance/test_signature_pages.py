"""The signature list a page at a time by keyset (issue 27, Deliver 3): no count, no gap, no duplicate, a stale
link answered in words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType

from compliance.keyset import stale_link_words, write_cursor
from compliance.models import Facility, Signature
from compliance.views import AUDIT_CURSOR
from tests.keyset_pages import TAMPERINGS, assert_no_count, page_of, walk

pytestmark = pytest.mark.django_db
URL = "/signatures/"
BUSY = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _signatures(facility: Any, signer: Any, at: datetime, count: int, start: int) -> None:
    kind = ContentType.objects.get_for_model(Facility)
    for n in range(start, start + count):
        Signature.objects.create(facility=facility, content_type=kind, object_id=n, slot="prepared",
                                 meaning="prepared", signer=signer, printed_name="Pat Signer", credential_number="C-1",
                                 department="Compliance", role="compliance_officer", signed_at=at,
                                 content_hash="0" * 64, distinct_person=False)


@pytest.fixture
def signed(facility: Any, other_facility: Any, compliance_officer: Any) -> list[int]:
    """130 signatures here at three instants (60 and 50 sharing one each), 30 in another facility; ours newest
    first."""
    _signatures(facility, compliance_officer, BUSY, 60, 1)
    _signatures(facility, compliance_officer, BUSY - timedelta(seconds=1), 50, 100)
    _signatures(facility, compliance_officer, BUSY + timedelta(days=1), 20, 200)
    _signatures(other_facility, compliance_officer, BUSY, 30, 300)
    return list(Signature.objects.filter(facility=facility).order_by("-signed_at", "-pk").values_list("pk", flat=True))


def test_older_links_walk_every_signature_without_gap_or_duplicate_and_newer_links_walk_back(
        signed, compliance_officer, client_for):
    pages = walk(client_for(compliance_officer), URL, {}, lambda s: s.pk)
    assert [len(p) for p in pages] == [50, 50, 30]
    assert [pk for p in pages for pk in p] == signed


def test_the_pager_names_no_count_and_links_back_to_the_newest(signed, compliance_officer, client_for):
    client = client_for(compliance_officer)
    first = page_of(client, URL, {})
    older = first.context["page"].older
    assert f'href="?older={older}"' in first.content.decode() and "50 signatures shown" in first.content.decode()
    html = page_of(client, URL, {"older": older}).content.decode()
    assert 'href="?">⇤ Newest</a>' in html and " of " not in html.split('aria-label="Pages"')[1]


@pytest.mark.parametrize("tamper", [*TAMPERINGS, lambda c: write_cursor(BUSY, 1, purpose=AUDIT_CURSOR)])
@pytest.mark.parametrize("direction", ["older", "newer"])
def test_a_tampered_cursor_shows_the_newest_page_in_words(signed, compliance_officer, client_for, tamper, direction):
    client = client_for(compliance_officer)
    cursor = page_of(client, URL, {}).context["page"].older
    response = page_of(client, URL, {direction: tamper(cursor)})
    assert stale_link_words("signatures") in response.content.decode()
    assert response.context["page"].at_newest and response.context["page"].object_list[0].pk == signed[0]


def test_the_page_counts_nothing(signed, compliance_officer, client_for):
    client = client_for(compliance_officer)
    cursor = page_of(client, URL, {}).context["page"].older
    assert_no_count(client, URL, [{}, {"older": cursor}, {"newer": cursor}, {"page": "3"}])
