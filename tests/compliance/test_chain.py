"""The keyed hash chain (issue 9, item 3): rows sealed at insert, linked in batches, verified.

Rows are altered "behind the application's back" as the tables' owner would: raw SQL with the
append-only and signed-frozen triggers switched off, in the test's transaction
(``compliance.testing.behind_the_applications_back``); the suite itself connects as the application role.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import threading
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core import mail
from django.core.management import CommandError, call_command
from django.db import connection, connections, transaction
from django.urls import reverse

from compliance.actors import acting_as
from compliance.chain import chain_head, chain_link, chain_link_all, chain_verify
from compliance.documents import signature_block
from compliance.models import AuditEvent, ChainLink, Signature
from compliance.models.chain import decode_ids
from compliance.tasks import verify_audit_chain
from compliance.testing import behind_the_applications_back
from coupons.models import LedgerLine
from tests.coupons import conftest as coupon_fixtures

# The coupon fixtures (a program, fully signed receipts) on the coupons' frozen gaming day.
_frozen_day = coupon_fixtures._frozen_day
program = coupon_fixtures.program
receive = coupon_fixtures.receive
series_expires_on = coupon_fixtures.series_expires_on

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="tampering as the owner needs PostgreSQL's session_replication_role"
)


def _behind_the_apps_back(sql: str, params: list[Any]) -> None:
    behind_the_applications_back(sql, params)


def _verify() -> tuple[bool, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_audit_chain", stdout=out, stderr=err)
    except CommandError as error:
        return False, err.getvalue() + out.getvalue() + str(error)
    return True, out.getvalue()


def _csv(client: Any, url: str) -> list[dict[str, str]]:
    response = client.get(url)
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


@pytest.mark.django_db
def test_every_sealed_row_is_linked_and_an_untouched_chain_verifies(program, receive):
    receive(1, 100)
    assert LedgerLine.objects.exists() and all(line.seal for line in LedgerLine.objects.all())
    assert all(s.seal for s in Signature.objects.all()) and all(e.seal for e in AuditEvent.objects.all())
    chain_link_all()
    ok, out = _verify()
    assert ok, out
    assert "intact" in out and "chain head" in out
    head = chain_head()
    # Every sealed kind has its chain (redemptions too, empty here); those with rows are linked.
    assert set(head.links) == {"compliance.AuditEvent", "compliance.Signature", "coupons.LedgerLine",
                               "coupons.Redemption", "reports.ReportFile"}
    assert len(head.digest) == 64
    assert all(head.links[label][0] >= 1 for label in ("compliance.AuditEvent", "compliance.Signature",
                                                       "coupons.LedgerLine"))


@pytest.mark.django_db
def test_a_ledger_line_altered_behind_the_apps_back_is_named_and_flagged_on_the_page_and_csv(
    program, receive, finance_supervisor, client_for
):
    receive(1, 100)
    chain_link_all()
    line = LedgerLine.objects.order_by("pk").first()
    _behind_the_apps_back("UPDATE coupons_ledgerline SET quantity = 90 WHERE id = %s", [line.pk])

    ok, out = _verify()
    assert not ok
    assert f"coupons.LedgerLine #{line.pk}" in out
    client = client_for(finance_supervisor)
    assert "Altered since signed" in client.get(reverse("coupons:ledger")).content.decode()
    rows = _csv(client, reverse("coupons:ledger-csv"))
    assert [r["integrity"] for r in rows] == ["altered since signed"] + [""] * (len(rows) - 1)


@pytest.mark.django_db
def test_a_recomputed_plain_sha256_no_longer_hides_a_changed_record(
    program, receive, finance_supervisor, client_for
):
    receipt = receive(1, 100)
    chain_link_all()
    assert not receipt.altered_since_signed
    # The owner rewrites the receipt, then recomputes the content hash the signatures carry — the
    # plain SHA-256 that used to make the signature page say "matches".
    _behind_the_apps_back("UPDATE coupons_couponreceipt SET supplier = 'Someone Else' WHERE id = %s", [receipt.pk])
    receipt.refresh_from_db()
    rehashed = receipt.content_hash()
    assert rehashed == hashlib.sha256(
        json.dumps(receipt.signable_content(), sort_keys=True, separators=(",", ":"),
                                 default=str).encode()
    ).hexdigest()
    content_type = ContentType.objects.get_for_model(receipt)
    _behind_the_apps_back(
        "UPDATE compliance_signature SET content_hash = %s WHERE content_type_id = %s AND object_id = %s",
        [rehashed, content_type.pk, receipt.pk],
    )

    ok, out = _verify()
    assert not ok
    signature = Signature.objects.filter(content_type=content_type, object_id=receipt.pk).first()
    assert f"compliance.Signature #{signature.pk}" in out
    assert not signature.matches_record()
    page = client_for(finance_supervisor).get(receipt.get_absolute_url()).content.decode()
    assert "Altered since signed" in page


@pytest.mark.django_db
def test_a_signed_record_altered_without_touching_its_signatures_is_named(program, receive):
    receipt = receive(1, 100)
    chain_link_all()
    _behind_the_apps_back("UPDATE coupons_couponreceipt SET invoice_number = 'INV-9' WHERE id = %s", [receipt.pk])

    ok, out = _verify()
    assert not ok
    assert f"coupons.CouponReceipt #{receipt.pk}" in out and "altered since signed" in out
    receipt.refresh_from_db()
    texts = [str(cell.text) for row in signature_block(receipt)._cellvalues for cell in row]
    assert any("ALTERED SINCE SIGNED" in text for text in texts)


@pytest.mark.django_db
def test_an_altered_audit_event_is_flagged_in_the_audit_csv(facility, compliance_officer, client_for):
    with acting_as(compliance_officer):
        event = AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer, reason="r")
    chain_link_all()
    _behind_the_apps_back("UPDATE compliance_auditevent SET reason = 'nothing happened' WHERE id = %s", [event.pk])

    ok, out = _verify()
    assert not ok and f"compliance.AuditEvent #{event.pk}" in out
    rows = _csv(client_for(compliance_officer), "/audit/export.csv")
    flagged = [r for r in rows if r["integrity"]]
    assert [r["reason"] for r in flagged] == ["nothing happened"]


@pytest.mark.django_db
def test_a_deleted_row_breaks_its_link(facility, compliance_officer):
    with acting_as(compliance_officer):
        events = [AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer) for _ in range(3)]
    chain_link_all()
    _behind_the_apps_back("DELETE FROM compliance_auditevent WHERE id = %s", [events[1].pk])
    ok, out = _verify()
    assert not ok and "BROKEN LINK: compliance.AuditEvent" in out and f"#{events[1].pk}" in out


@pytest.mark.django_db
def test_the_daily_job_mails_compliance_on_a_break(facility, compliance_officer, finance_supervisor):
    with acting_as(compliance_officer):
        event = AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer)
    chain_link_all()
    assert verify_audit_chain.delay().get() is True
    assert not mail.outbox

    _behind_the_apps_back("UPDATE compliance_auditevent SET reason = 'x' WHERE id = %s", [event.pk])
    assert verify_audit_chain.delay().get() is False
    (message,) = mail.outbox
    assert message.to == [compliance_officer.email]
    assert "Audit chain broken" in message.subject and f"compliance.AuditEvent #{event.pk}" in message.body


def _links_of(chain: str) -> list[int]:
    ids: list[int] = []
    for link in ChainLink.objects.filter(chain=chain).order_by("sequence"):
        ids.extend(decode_ids(link.ids))
    return ids


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # restores what flush loses, for later tests
def test_a_row_committed_after_a_later_one_was_linked_is_linked_once(facility, compliance_officer):
    """An insert still in flight while the linker runs gets the lower id; it must be linked by the
    next run, once — not skipped because a higher id was already linked."""
    started, release = threading.Event(), threading.Event()

    def slow_insert() -> None:
        try:
            with transaction.atomic():
                AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=None, reason="slow")
                started.set()
                release.wait(10)
        finally:
            connections.close_all()

    thread = threading.Thread(target=slow_insert)
    thread.start()
    assert started.wait(10)
    AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=None, reason="fast")
    assert chain_link(AuditEvent) is not None  # links "fast" (and whatever else is committed)
    release.set()
    thread.join()
    chain_link_all()

    all_ids = sorted(AuditEvent.objects.values_list("pk", flat=True))
    linked = _links_of("compliance.AuditEvent")
    assert sorted(linked) == all_ids and len(linked) == len(set(linked))
    assert chain_verify().intact


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # restores what flush loses, for later tests
def test_concurrent_inserts_and_linkers_lose_and_duplicate_no_link(facility):
    errors: list[BaseException] = []

    def insert(n: int) -> None:
        try:
            for i in range(25):
                with transaction.atomic():
                    AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=None, reason=f"{n}-{i}")
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    def link() -> None:
        try:
            for _ in range(10):
                chain_link_all()
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=insert, args=(n,)) for n in range(4)]
    threads += [threading.Thread(target=link) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    chain_link_all()

    all_ids = sorted(AuditEvent.objects.values_list("pk", flat=True))
    linked = _links_of("compliance.AuditEvent")
    assert len(all_ids) >= 100
    assert sorted(linked) == all_ids and len(linked) == len(set(linked))
    sequences = list(ChainLink.objects.filter(chain="compliance.AuditEvent").values_list("sequence", flat=True))
    assert sorted(sequences) == list(range(1, len(sequences) + 1))
    assert chain_verify().intact


def test_seals_need_the_key(settings: Any) -> None:
    line = AuditEvent(model_label="x.Y", model_name="y", object_id="1", object_repr="y", action="changed")
    first = line.compute_seal()
    settings.AUDIT_CHAIN_KEY = "another key"
    assert line.compute_seal() != first


@pytest.mark.django_db
def test_the_application_role_links_and_verifies_with_only_select_and_insert(facility, compliance_officer):
    """Chain links are append-only: the application's role may only read and add them (no UPDATE, so
    no ``SELECT … FOR UPDATE``); linking and verifying must work as that role."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False,)  # the suite's login: the application role
    with acting_as(compliance_officer):
        AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer)
    assert chain_link_all() >= 1
    assert chain_verify().intact
