"""The hash chain (issues 9 and 21): rows sealed in their own INSERT, linked per facility, verified, anchored.

Rows are altered "behind the application's back" as the tables' owner would: raw SQL with the
append-only and signed-frozen triggers switched off, in the test's transaction
(``compliance.testing.behind_the_applications_back``); the suite itself connects as the application role.
The attacks with the key (someone who has the casino's secret too) are found only against the heads the
Board holds: ``tests/compliance/test_chain_anchors.py``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import threading
from datetime import timedelta
from typing import Any

import psycopg
import pytest
import time_machine
from django.contrib.contenttypes.models import ContentType
from django.core import mail
from django.core.management import CommandError, call_command
from django.db import connection, connections, transaction
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from compliance.actors import acting_as
from compliance.chain import chain_head, chain_link, chain_link_all, chain_verify
from compliance.documents import signature_block
from compliance.models import AuditEvent, ChainLink, ChainVerification, Signature
from compliance.models.chain import decode_ids
from compliance.tasks import verify_audit_chain
from compliance.testing import behind_the_applications_back
from coupons.models import LedgerLine
from tests.compliance.attack import refused
from tests.factories import FacilityFactory

# The coupon fixtures (a program, fully signed receipts) on the coupons' frozen gaming day.

pytestmark = [pytest.mark.usefixtures("coupon_clock"), pytest.mark.skipif(
    connection.vendor != "postgresql", reason="tampering as the owner needs PostgreSQL's session_replication_role"
)]


def _behind_the_apps_back(sql: str, params: list[Any]) -> None:
    behind_the_applications_back(sql, params)


def _verify(*args: str) -> tuple[bool, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_audit_chain", *args, stdout=out, stderr=err)
    except CommandError as error:
        return False, err.getvalue() + out.getvalue() + str(error)
    return True, out.getvalue()


def _csv(client: Any, url: str) -> list[dict[str, str]]:
    response = client.get(url)
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


@pytest.mark.django_db
def test_every_sealed_row_is_linked_in_its_facilitys_chains_and_an_untouched_chain_verifies(program, receive):
    receive(1, 100)
    assert LedgerLine.objects.exists() and all(line.seal.startswith("1:") for line in LedgerLine.objects.all())
    assert all(s.seal for s in Signature.objects.all()) and all(e.seal for e in AuditEvent.objects.all())
    chain_link_all()
    ok, out = _verify()
    assert ok, out
    assert "intact" in out and "chain head" in out
    facility = program.facility.pk
    head = chain_head(facility=program.facility)
    assert {f"compliance.AuditEvent@{facility}", f"compliance.Signature@{facility}",
            f"coupons.LedgerLine@{facility}"} <= set(head.links)
    assert all(chain.endswith((f"@{facility}", "@-")) for chain in head.links)
    assert len(head.digest) == 64
    assert ChainVerification.objects.get().intact  # the command keeps its result


@pytest.mark.django_db
def test_each_facility_has_chains_of_its_own_and_rows_with_none_a_chain_apart(facility, compliance_officer):
    other = FacilityFactory(code="erie")
    with acting_as(compliance_officer):
        AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer)
        AuditEvent.log(other, action=AuditEvent.Action.CHANGED, actor=compliance_officer)
        AuditEvent.objects.create(model_label="x.Y", model_name="y", object_id="1", object_repr="y",
                                  action=AuditEvent.Action.CHANGED)
    chain_link_all()
    chains = set(ChainLink.objects.filter(model="compliance.AuditEvent").values_list("chain", flat=True))
    assert {f"compliance.AuditEvent@{facility.pk}", f"compliance.AuditEvent@{other.pk}",
            "compliance.AuditEvent@-"} <= chains
    link = ChainLink.objects.filter(chain=f"compliance.AuditEvent@{other.pk}").get()
    assert link.facility_id == other.pk and link.scheme == 2 and len(bytes(link.digests)) == 32 * link.row_count
    assert chain_verify().intact


@pytest.mark.django_db
def test_a_ledger_line_altered_behind_the_apps_back_is_named_with_its_document_and_flagged(
    program, receive, finance_supervisor, client_for
):
    receipt = receive(1, 100)
    chain_link_all()
    line = LedgerLine.objects.order_by("pk").first()
    _behind_the_apps_back("UPDATE coupons_ledgerline SET quantity = 90 WHERE id = %s", [line.pk])

    ok, out = _verify()
    assert not ok
    assert f"coupons.LedgerLine #{line.pk} — coupons.CouponReceipt #{receipt.pk}" in out
    client = client_for(finance_supervisor)
    assert "Altered since signed" in client.get(reverse("coupons:ledger")).content.decode()
    rows = _csv(client, reverse("coupons:ledger-csv"))
    assert rows[0]["integrity"] == "altered since signed"


@pytest.mark.django_db
def test_a_recomputed_plain_sha256_is_named_as_the_record_whose_signature_was_forged(
    program, receive, finance_supervisor, client_for
):
    receipt = receive(1, 100)
    chain_link_all()
    assert not receipt.altered_since_signed
    # The owner rewrites the receipt, then recomputes the content hash the signatures carry.
    _behind_the_apps_back("UPDATE coupons_couponreceipt SET supplier = 'Someone Else' WHERE id = %s", [receipt.pk])
    receipt.refresh_from_db()
    rehashed = receipt.content_hash()
    assert rehashed == hashlib.sha256(
        json.dumps(receipt.signable_content(), sort_keys=True, separators=(",", ":"), default=str).encode()
    ).hexdigest()
    content_type = ContentType.objects.get_for_model(receipt)
    _behind_the_apps_back(
        "UPDATE compliance_signature SET content_hash = %s WHERE content_type_id = %s AND object_id = %s",
        [rehashed, content_type.pk, receipt.pk],
    )

    ok, out = _verify()
    assert not ok
    signature = Signature.objects.filter(content_type=content_type, object_id=receipt.pk).first()
    assert f"compliance.Signature #{signature.pk} — coupons.CouponReceipt #{receipt.pk} (its '" in out
    assert not signature.matches_record()
    page = client_for(finance_supervisor).get(receipt.get_absolute_url()).content.decode()
    assert "Altered since signed" in page


@pytest.mark.django_db
def test_a_signed_record_altered_without_touching_its_signatures_is_named_and_marked_in_every_export(
    program, receive, finance_supervisor, client_for
):
    receipt = receive(1, 100)
    receive(101, 200)
    chain_link_all()
    _behind_the_apps_back("UPDATE coupons_couponreceipt SET invoice_number = 'INV-9' WHERE id = %s", [receipt.pk])

    ok, out = _verify()
    assert not ok
    assert f"coupons.CouponReceipt #{receipt.pk}" in out and "altered since signed" in out
    receipt.refresh_from_db()
    texts = [str(cell.text) for row in signature_block(receipt)._cellvalues for cell in row]
    assert any("ALTERED SINCE SIGNED" in text for text in texts)
    # Its ledger lines, in the ledger's CSV and PDF, are marked with it; the other receipt's are not.
    client = client_for(finance_supervisor)
    rows = _csv(client, reverse("coupons:ledger-csv"))
    marked = {row["document"] for row in rows if row["integrity"]}
    assert marked == {f"Receipt #{receipt.pk}"}, marked
    pdf = client.get(reverse("coupons:ledger-pdf"), {"date_from": "2026-11-01", "date_to": "2026-11-30"}).content
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    assert "ALTERED SINCE SIGNED" in text and "marked ALTERED SINCE SIGNED" in text


@pytest.mark.django_db
def test_an_altered_audit_event_is_flagged_in_the_audit_csv(facility, compliance_officer, client_for):
    with acting_as(compliance_officer):
        event = AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer, reason="r")
    chain_link_all()
    _behind_the_apps_back("UPDATE compliance_auditevent SET reason = 'nothing happened' WHERE id = %s", [event.pk])

    ok, out = _verify()
    assert not ok and f"compliance.AuditEvent #{event.pk} — the audit trail of compliance.Facility #{facility.pk}" in out
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
    assert not ok and "BROKEN LINK: compliance.AuditEvent@" in out and f"row #{events[1].pk} it covers is gone" in out


@pytest.mark.django_db
def test_a_row_inserted_behind_the_chain_among_linked_rows_is_found(facility, compliance_officer):
    with acting_as(compliance_officer):
        first = AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer)
    chain_link_all()
    with time_machine.travel(timezone.now() + timedelta(minutes=2), tick=True):
        with acting_as(compliance_officer):
            AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer)
        chain_link_all()  # the first run's links are settled now: the floor passes them
    assert ChainLink.objects.filter(model="compliance.AuditEvent").order_by("-pk").first().floor >= first.pk
    # The owner slips a row in under an id the linker already passed: copied from a real one, seal and all.
    _behind_the_apps_back(
        "INSERT INTO compliance_auditevent (id, occurred_at, facility_id, actor_id, action, model_label, model_name, "
        "object_id, object_repr, history_id, changes, reason, seal) SELECT 0, occurred_at, facility_id, actor_id, "
        "action, model_label, model_name, object_id, object_repr, history_id, changes, reason, seal "
        "FROM compliance_auditevent WHERE id = %s", [first.pk])
    report = chain_verify()
    assert any(line.startswith("BROKEN LINK: compliance.AuditEvent #0 — the audit trail of") and
               "without a link" in line for line in report.findings), report.findings


@pytest.mark.django_db
def test_the_daily_job_keeps_its_result_and_mails_compliance_on_a_break(facility, compliance_officer,
                                                                        finance_supervisor):
    with acting_as(compliance_officer):
        event = AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer)
    chain_link_all()
    assert verify_audit_chain.delay().get() is True
    assert not mail.outbox and ChainVerification.objects.get().intact

    _behind_the_apps_back("UPDATE compliance_auditevent SET reason = 'x' WHERE id = %s", [event.pk])
    assert verify_audit_chain.delay().get() is False
    (message,) = mail.outbox
    assert message.to == [compliance_officer.email]
    assert "Audit chain broken" in message.subject and f"compliance.AuditEvent #{event.pk}" in message.body
    latest = ChainVerification.objects.order_by("-pk").first()
    assert not latest.intact and latest.finding_count == 1 and latest.seal_intact()


# --- sealed in its own INSERT ------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_row_inserted_without_a_seal_is_refused_by_the_database(facility):
    for seal in ("NULL", "''"):
        statement = ("INSERT INTO compliance_auditevent (occurred_at, facility_id, action, model_label, model_name, "  # noqa: S608 - a literal of the test
                     "object_id, object_repr, changes, reason, seal) VALUES (now(), %s, 'changed', 'x.Y', 'y', '1', "
                     "'y', '{}', '', " + seal + ")")
        refused(statement, [facility.pk], error=psycopg.errors.IntegrityError)


@pytest.mark.django_db
def test_a_signature_forged_with_a_made_up_seal_is_named_as_forged_with_the_record_it_claims_to_sign(
    program, receive
):
    receipt = receive(1, 100)
    chain_link_all()
    genuine = Signature.objects.filter(content_type=ContentType.objects.get_for_model(receipt), object_id=receipt.pk).order_by("pk").first()
    with connection.cursor() as cursor:  # as the application's own login, which holds no key
        cursor.execute(
            "INSERT INTO compliance_signature (facility_id, content_type_id, object_id, slot, meaning, signer_id, "
            "printed_name, credential_number, department, role, signed_at, content_hash, distinct_person, citation, "
            "seal) SELECT facility_id, content_type_id, object_id, 'approved', 'approved', signer_id, 'Mallory', "
            "'PGCB-000', department, role, now(), content_hash, false, citation, '1:' || repeat('0', 64) "
            "FROM compliance_signature WHERE id = %s RETURNING id", [genuine.pk])
        (forged,) = cursor.fetchone()
    chain_link_all()  # the linker links it like any row: no late seal makes it look genuine
    ok, out = _verify()
    assert not ok
    assert (f"FORGED: compliance.Signature #{forged} — coupons.CouponReceipt #{receipt.pk} (its 'approved' "
            "signature, by Mallory): its seal does not match its content") in out


@pytest.mark.django_db
def test_a_seal_moved_into_the_links_late_seals_no_longer_hides_a_rewritten_record(program, receive):
    """The owner's attack of the review: clear a signature's seal, keep the old one in the link's late seals,
    rewrite the record and the signature's content hash."""
    receipt = receive(1, 100)
    chain_link_all()
    signature = Signature.objects.filter(content_type=ContentType.objects.get_for_model(receipt), object_id=receipt.pk, slot="recorded").get()
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the test's own pending checks, before the owner's DDL
    _behind_the_apps_back("ALTER TABLE compliance_signature ALTER COLUMN seal DROP NOT NULL", [])
    _behind_the_apps_back("ALTER TABLE compliance_signature DROP CONSTRAINT compliance_signature_sealed", [])
    _behind_the_apps_back("UPDATE coupons_couponreceipt SET supplier = 'Forged' WHERE id = %s", [receipt.pk])
    receipt.refresh_from_db()
    _behind_the_apps_back("UPDATE compliance_signature SET seal = NULL, content_hash = %s WHERE id = %s",
                          [receipt.content_hash(), signature.pk])
    _behind_the_apps_back("UPDATE compliance_chainlink SET late_seals = %s WHERE model = 'compliance.Signature'",
                          [json.dumps({str(signature.pk): "1:" + "0" * 64})])
    ok, out = _verify()
    assert not ok
    assert (f"FORGED: compliance.Signature #{signature.pk} — coupons.CouponReceipt #{receipt.pk} (its 'recorded' "
            "signature") in out and "it has no seal" in out


@pytest.mark.django_db
def test_a_row_swapped_with_another_seal_and_all_is_named_as_changed_since_linked(facility, compliance_officer):
    """Reordering without the key: two sealed rows trade places (contents and seals), each still matching its
    seal; the link's digests, in id order, name both."""
    with acting_as(compliance_officer):
        one = AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer, reason="first")
        two = AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer, reason="second")
    chain_link_all()
    _behind_the_apps_back(
        "UPDATE compliance_auditevent a SET reason = b.reason, seal = b.seal, occurred_at = b.occurred_at "
        "FROM compliance_auditevent b WHERE (a.id, b.id) IN ((%s, %s), (%s, %s))", [one.pk, two.pk, two.pk, one.pk])
    report = chain_verify()
    assert not report.intact
    named = "\n".join(report.findings)
    assert f"compliance.AuditEvent #{one.pk}" in named and f"compliance.AuditEvent #{two.pk}" in named
    assert "changed since it was linked" in named


# --- keys ---------------------------------------------------------------------------------------------


def test_seals_need_the_key_and_carry_its_id(settings: Any) -> None:
    line = AuditEvent(model_label="x.Y", model_name="y", object_id="1", object_repr="y", action="changed")
    first = line.compute_seal()
    assert first.startswith("1:")
    settings.AUDIT_CHAIN_KEY = "another key"
    assert line.compute_seal() != first


@pytest.mark.django_db
def test_rotating_the_key_keeps_the_old_seals_verifiable_by_their_key_id(settings, facility, compliance_officer):
    with acting_as(compliance_officer):
        old = AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer)
    chain_link_all()
    settings.AUDIT_CHAIN_RETIRED_KEYS = {"1": settings.AUDIT_CHAIN_KEY}
    settings.AUDIT_CHAIN_KEY, settings.AUDIT_CHAIN_KEY_ID = "the next key, kept elsewhere", "2"
    with acting_as(compliance_officer):
        new = AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer)
    chain_link_all()
    assert AuditEvent.objects.get(pk=old.pk).seal.startswith("1:") and new.seal.startswith("2:")
    assert chain_verify().intact
    settings.AUDIT_CHAIN_RETIRED_KEYS = {}  # the old key lost
    report = chain_verify()
    assert not report.intact
    assert any(f"compliance.AuditEvent #{old.pk}" in line and "key '1'" in line for line in report.findings)


# --- the linker ---------------------------------------------------------------------------------------


def _links_of(model: str) -> list[int]:
    ids: list[int] = []
    for link in ChainLink.objects.filter(model=model).order_by("pk"):
        ids.extend(decode_ids(link.ids))
    return ids


@pytest.mark.django_db
def test_a_backlog_is_linked_in_one_pass_in_links_of_a_batch_each(facility, compliance_officer, monkeypatch):
    from compliance.chain import link

    monkeypatch.setattr(link, "BATCH", 4)
    with acting_as(compliance_officer):
        for _ in range(10):
            AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer)
    assert chain_link(AuditEvent) >= 3
    chain = ChainLink.objects.filter(chain=f"compliance.AuditEvent@{facility.pk}").order_by("sequence")
    assert [link.row_count for link in chain][:2] == [4, 4]
    linked = _links_of("compliance.AuditEvent")
    assert sorted(linked) == sorted(AuditEvent.objects.values_list("pk", flat=True)) and len(set(linked)) == len(linked)
    assert chain_link(AuditEvent) == 0
    report = chain_verify()
    assert report.intact and report.links == ChainLink.objects.count()  # each link walked once


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
    assert chain_link(AuditEvent) >= 1  # links "fast" (and whatever else is committed)
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
    chain = f"compliance.AuditEvent@{facility.pk}"
    sequences = list(ChainLink.objects.filter(chain=chain).values_list("sequence", flat=True))
    assert sorted(sequences) == list(range(1, len(sequences) + 1))
    assert chain_verify().intact


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
