"""The audit chain's pages (issue 21): the Board inspector checks the heads it holds, downloads anchors, an
evidence bundle and the verifier; bad input gets words, never a 500."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import date

import pytest
import time_machine
from django.urls import reverse

from compliance.chain import anchors_for_ended_days, chain_link_all, chain_verify, verification_record
from compliance.evidence import verify_bundle
from compliance.models import ChainAnchor
from compliance.testing import behind_the_applications_back

pytestmark = [pytest.mark.usefixtures("coupon_clock"), pytest.mark.django_db]


@pytest.fixture
def anchored(program, receive) -> ChainAnchor:
    receive(1, 100)
    chain_link_all()
    with time_machine.travel("2026-11-04 12:00:00+00:00", tick=True):
        anchors_for_ended_days()
    return ChainAnchor.objects.get(facility=program.facility)


def test_the_inspector_checks_the_heads_it_holds_and_is_told_they_hold(anchored, inspector, client_for):
    client = client_for(inspector)
    page = client.get(reverse("chain-status"), {"heads": anchored.as_json()})
    assert page.status_code == 200
    text = page.content.decode()
    assert "Every head you hold is in the database as you hold it." in text
    assert f"anchor-{anchored.pk}.json" in text


def test_a_head_rewritten_before_the_boards_anchor_is_shown_as_not_held(anchored, inspector, client_for):
    chain, sequence, _ = anchored.heads[0]
    document = anchored.as_document()
    document["heads"] = [[chain, sequence, "0" * 64]]
    text = client_for(inspector).get(reverse("chain-status"), {"heads": json.dumps(document)}).content.decode()
    assert "does not hold every head as you hold it" in text and "its hash differs from the one held" in text


@pytest.mark.parametrize("pasted", ["", "not json", "[1, 2]", '{"heads": [["x", "one", "h"]]}', "{" * 5000])
def test_unreadable_heads_are_answered_in_words(anchored, inspector, client_for, pasted):
    page = client_for(inspector).get(reverse("chain-status"), {"heads": pasted})
    assert page.status_code == 200
    assert any(words in page.content.decode() for words in ("No heads were given", "not the heads of an anchor",
                                                            "has no list of heads", "is not [chain, sequence, hash]",
                                                            "This field is required"))


def test_the_anchor_file_downloads_and_another_facilitys_does_not(anchored, inspector, client_for):
    client = client_for(inspector)
    response = client.get(reverse("chain-anchor-json", args=[anchored.pk]))
    assert response.status_code == 200 and json.loads(response.content)["digest"] == anchored.digest
    assert client.get(reverse("chain-anchor-json", args=[anchored.pk + 1000])).status_code == 404


def test_a_verification_that_found_something_is_shown_with_what_it_found(anchored, compliance_officer, client_for):
    behind_the_applications_back("UPDATE compliance_auditevent SET reason = 'x' WHERE id = (SELECT min(id) FROM "
                                 "compliance_auditevent)", [])
    verification_record(chain_verify())
    text = client_for(compliance_officer).get(reverse("chain-status")).content.decode()
    assert "Not intact" in text and "FORGED: compliance.AuditEvent #" in text


def test_the_inspector_downloads_a_bundle_that_verifies_and_the_verifier(anchored, inspector, client_for, tmp_path):
    client = client_for(inspector)
    query = {"first_day": "2026-11-03", "last_day": "2026-11-03"}
    page = client.get(reverse("evidence"), query)
    assert page.status_code == 200 and "Download the bundle" in page.content.decode()
    response = client.get(reverse("evidence-bundle"), query)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    bundle = tmp_path / "bundle.zip"
    bundle.write_bytes(b"".join(response.streaming_content))
    assert zipfile.ZipFile(io.BytesIO(bundle.read_bytes())).read("manifest.json")
    anchor = tmp_path / "anchor.json"
    anchor.write_text(anchored.as_json())
    assert verify_bundle.verify(str(bundle), [str(anchor)]).problems == []
    script = client.get(reverse("evidence-verifier"))
    assert script.status_code == 200 and b"def verify(" in b"".join(script.streaming_content)


@pytest.mark.parametrize("query", [
    {"first_day": "2026-11-04", "last_day": "2026-11-03"},
    {"first_day": "0001-01-01", "last_day": "2026-11-03"},
    {"first_day": "2026-01-01", "last_day": "2026-11-03"},
    {"first_day": "2026-11-03", "last_day": "2099-11-03"},
    {"first_day": "yesterday", "last_day": "\x00"},
    {"last_day": "2026-11-03"},
])
def test_a_bad_period_is_answered_in_words_and_no_bundle_is_made(anchored, inspector, client_for, query):
    client = client_for(inspector)
    assert client.get(reverse("evidence"), query).status_code in (200, 400)  # a NUL is refused before the page
    response = client.get(reverse("evidence-bundle"), query)
    assert response.status_code == 400
    assert "field-error" in response.content.decode() or "error-box" in response.content.decode()


def test_a_period_too_large_to_download_says_how_to_get_it(anchored, inspector, client_for, monkeypatch):
    from compliance import views_chain

    monkeypatch.setattr(views_chain, "MAX_BUNDLE_ROWS", 1)
    query = {"first_day": "2026-11-03", "last_day": "2026-11-03"}
    response = client_for(inspector).get(reverse("evidence-bundle"), query)
    assert response.status_code == 400 and "manage.py evidence_bundle" in response.content.decode()


def test_the_command_writes_the_bundle(anchored, tmp_path):
    from django.core.management import call_command

    out = tmp_path / "b.zip"
    call_command("evidence_bundle", facility=anchored.facility.code, first="2026-11-03", last="2026-11-03",
                 out=str(out))
    anchor = tmp_path / "a.json"
    anchor.write_text(anchored.as_json())
    assert verify_bundle.verify(str(out), [str(anchor)]).problems == []
    assert date(2026, 11, 3) == anchored.gaming_date
