"""The Bureau's approval of the signs (§ 521.8(d)): recorded per kind, append-only, the newer superseding; a sign
not approved prints only as a preview and a change of limits whose notice is that sign is refused; an approved sign
prints at its size with the approval. The sign of the limits in force (§ 521.7(b))."""

from __future__ import annotations

import re
from datetime import timedelta
from io import BytesIO
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import DatabaseError, connection, transaction
from django.urls import reverse
from pypdf import PdfReader

from compliance.models import RegulatedWriteError
from compliance.submissions import documents, limits, selectors, signs
from compliance.submissions.models import SignApproval
from tests.submissions.conftest import NOW, TODAY

pytestmark = pytest.mark.django_db

FOR = re.compile(r"\bfor\b", re.IGNORECASE)


def _text(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text() for page in PdfReader(BytesIO(pdf)).pages).split())


def _record(facility: Any, officer: Any, **changes: Any) -> SignApproval:
    values: dict[str, Any] = {"kind": "limits", "location": "On the sign stand at the dealer's right",
                              "size": "letter", "language": "English", "approved_on": TODAY,
                              "reference": "BGO-S-7"} | changes
    return signs.sign_approval_record(facility=facility, user=officer, **values)


def test_an_approval_is_recorded_and_a_newer_one_supersedes_it(clock, facility, compliance_officer):
    first = _record(facility, compliance_officer, approved_on=TODAY - timedelta(days=30), reference="BGO-1")
    assert selectors.signs_in_force(facility) == {"limits": first}
    second = _record(facility, compliance_officer, size="tabloid", reference="BGO-2")
    assert selectors.signs_in_force(facility) == {"limits": second}
    with pytest.raises(ValidationError, match=r"dated 2 Mar 2026 \(BGO-2\); an older one would not supersede it"):
        _record(facility, compliance_officer, approved_on=TODAY - timedelta(days=1))


@pytest.mark.parametrize(("changes", "words"), [
    ({"approved_on": TODAY + timedelta(days=1)}, "is still to come"),
    ({"approved_on": None}, "Give the date"),
    ({"kind": "menu"}, "Choose the kind of sign"),
    ({"size": "A4"}, "Choose the size the Bureau approved"),
    ({"language": "Spanish"}, "prints its signs in English"),
    ({"location": "  "}, "Give the location"),
    ({"location": "x" * 301}, "longer than 300"),
    ({"location": "Beside the 2 for 1 sign"}, "least of all with 'for'"),
    ({"reference": ""}, "Give the Bureau's reference"),
])
def test_an_approval_is_refused_in_words(clock, facility, compliance_officer, changes, words):
    with pytest.raises(ValidationError, match=re.escape(words)):
        _record(facility, compliance_officer, **changes)
    assert not SignApproval.objects.exists()


def test_only_the_compliance_officer_records_it(clock, facility, floorperson):
    with pytest.raises(PermissionDenied):
        _record(facility, floorperson)


def test_an_approval_is_never_changed(clock, facility, compliance_officer):
    approval = _record(facility, compliance_officer)
    approval.reference = "forged"
    with pytest.raises(RegulatedWriteError):
        approval.save()
    if connection.vendor == "postgresql":
        # The application's role may not even UPDATE an append-only table; the trigger refuses it to the owner too.
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("UPDATE submissions_signapproval SET reference = 'x' WHERE id = %s", [approval.pk])


def test_without_approval_a_change_with_patrons_playing_is_refused_and_without_patrons_allowed(approved, sic_bo,
                                                                                              floorperson):
    with pytest.raises(ValidationError, match=r"needs a sign posted at the table \(§ 521.8\(c\)\(2\)\(ii\)\)\. The "
                                              r"Bureau of Gaming Operations has not approved"):
        limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=True,
                                    effective_at=NOW + timedelta(hours=1), user=floorperson)
    assert limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False,
                                       user=floorperson).state == "applied"


def _limits_rules(sic_bo: Any, floorperson: Any) -> Any:
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    return selectors.table_rules(sic_bo)


def test_the_limits_sign_unapproved_prints_only_as_a_preview(approved, sic_bo, floorperson):
    text = _text(documents.limits_sign_pdf(_limits_rules(sic_bo, floorperson), None))
    assert "PREVIEW — not approved for use (§ 521.8(d))" in text
    assert "Minimum wager $10.00" in text and "Maximum wager $500.00" in text and "§ 521.7(c)" in text


def test_the_limits_sign_approved_prints_at_its_size_with_the_approval_and_never_for(approved, sic_bo, floorperson,
                                                                                    compliance_officer):
    approval = _record(sic_bo.facility, compliance_officer, size="tabloid")
    pdf = documents.limits_sign_pdf(_limits_rules(sic_bo, floorperson), approval)
    text = _text(pdf)
    assert "PREVIEW" not in text and not FOR.search(text)
    assert "Table SB-1: Sic Bo" in text and "Minimum wager $10.00" in text and "Maximum wager $500.00" in text
    assert "reference BGO-S-7" in text and "Location: On the sign stand at the dealer's right" in text
    assert "Size: Tabloid, 11 × 17 in" in text
    page = PdfReader(BytesIO(pdf)).pages[0]
    assert (float(page.mediabox.width), float(page.mediabox.height)) == (1224.0, 792.0)  # tabloid, landscape
    asked = _text(documents.limits_sign_pdf(selectors.table_rules(sic_bo), approval, preview=True))
    assert "PREVIEW — not approved for use" in asked and "Printed as a preview on request" in asked


def test_the_payout_and_notice_signs_follow_their_own_kinds(approved, sic_bo, floorperson, compliance_officer,
                                                           signs_approved):
    rules = selectors.table_rules(sic_bo)
    assert "PREVIEW" not in _text(documents.payout_sign_pdf(rules, signs_approved["rules"]))
    assert "PREVIEW" in _text(documents.payout_sign_pdf(rules, None))
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    change = limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=True,
                                         effective_at=NOW + timedelta(minutes=40), user=floorperson)
    notice = _text(documents.limit_sign_pdf(change, selectors.current_limits(sic_bo), signs_approved["limit-change"]))
    assert "reference BGO-S-limit-change" in notice and not FOR.search(notice)


def test_the_pages_serve_previews_until_approved_and_link_the_signs(approved, sic_bo, floorperson,
                                                                    compliance_officer, client_for):
    _limits_rules(sic_bo, floorperson)
    client = client_for(floorperson)
    url = reverse("submissions:limits-sign", args=[sic_bo.pk])
    assert "PREVIEW" in _text(client.get(url).content)
    for page in ("submissions:tables", "submissions:limits"):
        body = client.get(reverse(page)).content.decode()
        assert url in body and "Limits sign — preview (PDF)" in body
    officer = client_for(compliance_officer)
    form = reverse("submissions:sign-approval-create")
    assert re.search(r'value="limits"[^>]*checked', officer.get(f"{form}?kind=limits").content.decode())
    saved = officer.post(form, {"kind": "limits", "location": "Sign stand, dealer's right", "size": "letter",
                                "language": "English", "approved_on": TODAY.isoformat(), "reference": "BGO-9"})
    assert saved.status_code == 302 and saved["Location"] == reverse("submissions:signs")
    assert "PREVIEW" not in _text(client.get(url).content)
    assert "PREVIEW" in _text(client.get(f"{url}?preview=1").content)
    listing = client.get(reverse("submissions:signs")).content.decode()
    assert "BGO-9" in listing and "Sign stand, dealer&#x27;s right" in listing
    assert reverse("submissions:signs") in client.get(reverse("submissions:list")).content.decode()
    refused = officer.post(form, {"kind": "limits", "location": "x", "size": "letter", "language": "English",
                                  "approved_on": (TODAY + timedelta(days=3)).isoformat(), "reference": "B"})
    assert refused.status_code == 422 and "is still to come" in refused.content.decode()


def test_a_table_with_no_limits_has_no_limits_sign(approved, sic_bo, client_for, floorperson):
    assert client_for(floorperson).get(reverse("submissions:limits-sign", args=[sic_bo.pk])).status_code == 404


def test_the_inspector_reads_the_sign_pages_and_records_nothing(approved, sic_bo, floorperson, inspector, client_for):
    _limits_rules(sic_bo, floorperson)
    client = client_for(inspector)
    for url in (reverse("submissions:signs"), reverse("submissions:sign-approval-create"),
                reverse("submissions:limits-sign", args=[sic_bo.pk])):
        assert client.get(url).status_code == 200
    posted = client.post(reverse("submissions:sign-approval-create"),
                         {"kind": "limits", "location": "x", "size": "letter", "language": "English",
                          "approved_on": TODAY.isoformat(), "reference": "B"})
    assert posted.status_code == 403 and not SignApproval.objects.exists()


def test_the_dashboard_says_which_signs_await_the_bureau(approved, compliance_officer, client_for):
    page = client_for(compliance_officer).get("/").content.decode()
    assert page.count("Sign not approved by the Bureau (§ 521.8(d)), prints only as a preview") == 3
    _record(approved.facility, compliance_officer)
    page = client_for(compliance_officer).get("/").content.decode()
    assert page.count("Sign not approved by the Bureau (§ 521.8(d)), prints only as a preview") == 2
