"""Anchored heads (issue 21, item 2): the Board holds the truth, not the casino's database.

The attacks here are the owner's, some with the key too (someone who has the casino's secret): a rewrite with
the seals and links made anew, a deleted tail, a reordered pair, a forged signature. Without the Board's
anchors, such a database can look intact; against them, each is found. Also: the anchors themselves (once a
day, mailed), the incremental verification, one verification at a time, the time limit, and the scan shared
by processes.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.contrib.contenttypes.models import ContentType
from django.core import mail
from django.core.management import CommandError, call_command
from django.db import connection, connections

from compliance.actors import acting_as
from compliance.chain import (
    VerificationBusy,
    anchor_record,
    anchors_for_ended_days,
    chain_link_all,
    chain_verify,
    read_anchors,
    verification_record,
)
from compliance.models import AuditEvent, ChainAnchor, ChainAnchorDelivery, ChainVerification, Signature
from compliance.models.chain import canonical
from compliance.seal_keys import seal_of
from compliance.testing import behind_the_applications_back

pytestmark = [pytest.mark.usefixtures("coupon_clock"), pytest.mark.django_db,
              pytest.mark.skipif(connection.vendor != "postgresql", reason="the owner's tampering needs PostgreSQL")]


def _events(facility: Any, person: Any, count: int) -> list[AuditEvent]:
    with acting_as(person):
        return [AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=person, reason=f"event {n}")
                for n in range(count)]


@pytest.fixture
def boards_copy(facility: Any, compliance_officer: Any, tmp_path: Path) -> tuple[Path, list[AuditEvent]]:
    """Events of the facility, linked and anchored: the anchor file as the Board received it."""
    events = _events(facility, compliance_officer, 6)
    anchor = anchor_record(facility, reason=ChainAnchor.Reason.ON_DEMAND)
    path = tmp_path / "anchor.json"
    path.write_text(anchor.as_json())
    return path, events


def _reseal(table: str, pk: int, model: Any) -> None:
    """What someone holding the key does after rewriting a row: a seal made anew for its new content."""
    row = model._base_manager.get(pk=pk)
    behind_the_applications_back(f"UPDATE {table} SET seal = %s WHERE id = %s",  # noqa: S608 - our table
                                 [seal_of(canonical(row.sealed_content())), pk])


def _chain_made_anew() -> None:
    """...and the chain made anew over the rewritten rows: every link dropped, the database's anchors too, and
    everything linked again with the key."""
    behind_the_applications_back("DELETE FROM compliance_chainlink", [])
    behind_the_applications_back("DELETE FROM compliance_chainanchordelivery", [])
    behind_the_applications_back("DELETE FROM compliance_chainanchor", [])
    chain_link_all()


def _verify(*args: str) -> tuple[bool, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_audit_chain", *args, stdout=out, stderr=err)
    except CommandError as error:
        return False, err.getvalue() + out.getvalue() + str(error)
    return True, out.getvalue()


def test_a_rewrite_with_the_key_looks_intact_to_the_casino_but_not_against_the_boards_anchor(boards_copy, facility):
    path, events = boards_copy
    behind_the_applications_back("UPDATE compliance_auditevent SET reason = 'nothing happened' WHERE id = %s",
                                 [events[2].pk])
    _reseal("compliance_auditevent", events[2].pk, AuditEvent)
    _chain_made_anew()
    assert _verify()[0]  # with the key, a whole new chain: nothing inside the casino can tell
    ok, out = _verify("--anchors", str(path))
    assert not ok
    assert f"ANCHOR: compliance.AuditEvent@{facility.pk} link 1: the Board holds hash" in out


def test_a_deleted_tail_is_found_against_the_boards_anchor(boards_copy, facility, compliance_officer):
    path, _ = boards_copy
    later = _events(facility, compliance_officer, 3)
    newest = anchor_record(facility, reason=ChainAnchor.Reason.ON_DEMAND)
    path.write_text(json.dumps([json.loads(path.read_text()), newest.as_document()]))
    chain = f"compliance.AuditEvent@{facility.pk}"
    last = max(sequence for name, sequence, _ in newest.heads if name == chain)
    # The owner, without the key: the newest rows and their link deleted, and the anchor that named them.
    behind_the_applications_back("DELETE FROM compliance_chainlink WHERE chain = %s AND sequence = %s", [chain, last])
    behind_the_applications_back("DELETE FROM compliance_auditevent WHERE id >= %s", [later[0].pk])
    behind_the_applications_back("DELETE FROM compliance_chainanchordelivery WHERE anchor_id = %s", [newest.pk])
    behind_the_applications_back("DELETE FROM compliance_chainanchor WHERE id = %s", [newest.pk])
    ok, out = _verify("--anchors", str(path))
    assert not ok
    assert f"ANCHOR: {chain}: the Board holds link {last}" in out and "cut short" in out


def test_a_reordered_pair_resealed_with_the_key_is_found_against_the_boards_anchor(boards_copy, facility):
    path, events = boards_copy
    one, two = events[1], events[3]
    behind_the_applications_back(
        "UPDATE compliance_auditevent a SET reason = b.reason FROM compliance_auditevent b "
        "WHERE (a.id, b.id) IN ((%s, %s), (%s, %s))", [one.pk, two.pk, two.pk, one.pk])
    _reseal("compliance_auditevent", one.pk, AuditEvent)
    _reseal("compliance_auditevent", two.pk, AuditEvent)
    _chain_made_anew()
    ok, out = _verify("--anchors", str(path))
    assert not ok and f"ANCHOR: compliance.AuditEvent@{facility.pk} link 1" in out


def test_a_signature_forged_with_the_key_is_found_against_the_boards_anchor(program, receive, tmp_path):
    receipt = receive(1, 100)
    anchor = anchor_record(program.facility, reason=ChainAnchor.Reason.ON_DEMAND)
    path = tmp_path / "anchor.json"
    path.write_text(anchor.as_json())
    genuine = Signature.objects.filter(content_type=ContentType.objects.get_for_model(receipt), object_id=receipt.pk).order_by("pk").first()
    behind_the_applications_back(
        "INSERT INTO compliance_signature (facility_id, content_type_id, object_id, slot, meaning, signer_id, "
        "printed_name, credential_number, department, role, signed_at, content_hash, distinct_person, citation, seal) "
        "SELECT facility_id, content_type_id, object_id, 'approved', 'approved', signer_id, 'Mallory', "
        "'PGCB-000', department, role, signed_at, content_hash, false, citation, 'x' FROM compliance_signature "
        "WHERE id = %s", [genuine.pk])
    forged = Signature.objects.filter(printed_name="Mallory").get()
    _reseal("compliance_signature", forged.pk, Signature)
    _chain_made_anew()
    ok, out = _verify()
    assert ok, out
    ok, out = _verify("--anchors", str(path))
    assert not ok and f"ANCHOR: compliance.Signature@{program.facility.pk} link 1" in out


def test_an_anchor_file_that_is_not_one_is_refused_in_words(tmp_path):
    path = tmp_path / "anchor.json"
    path.write_text("these are my heads")
    ok, out = _verify("--anchors", str(path))
    assert not ok and "not the heads of an anchor" in out
    ok, out = _verify("--anchors", str(tmp_path / "missing.json"))
    assert not ok and "cannot be read" in out


def test_each_ended_gaming_day_is_anchored_once_and_mailed_to_the_board_and_compliance(
    facility, compliance_officer, django_capture_on_commit_callbacks
):
    facility.board_recipients = "bcc-anchors@pgcb.example\nsecond@pgcb.example"
    facility.save()
    _events(facility, compliance_officer, 2)
    with time_machine.travel("2026-11-04 12:00:00+00:00", tick=True), \
            django_capture_on_commit_callbacks(execute=True):
        assert anchors_for_ended_days() >= 1
        assert anchors_for_ended_days() == 0
    anchor = ChainAnchor.objects.get(facility=facility, reason=ChainAnchor.Reason.GAMING_DAY)
    assert str(anchor.gaming_date) == "2026-11-03"
    (message,) = [m for m in mail.outbox if facility.name in m.subject]
    assert set(message.to) == {"bcc-anchors@pgcb.example", "second@pgcb.example", compliance_officer.email}
    assert read_anchors(message.attachments[0][1])  # the file the verifiers read
    assert ChainAnchorDelivery.objects.get(anchor=anchor).recipients.count("@") == 3


def test_the_increment_reads_only_what_came_since_and_still_finds_a_change_there(facility, compliance_officer):
    _events(facility, compliance_officer, 20)
    chain_link_all()
    first = chain_verify()
    verification_record(first)
    assert first.intact
    newer = _events(facility, compliance_officer, 3)
    chain_link_all()
    daily = chain_verify(incremental=True)
    assert daily.mode == ChainVerification.Mode.INCREMENTAL and daily.intact
    assert daily.rows < first.rows
    verification_record(daily)
    behind_the_applications_back("UPDATE compliance_auditevent SET reason = 'x' WHERE id = %s", [newer[0].pk])
    more = _events(facility, compliance_officer, 1)
    chain_link_all()
    assert more and chain_verify(incremental=True).intact  # the changed row was verified already, yesterday
    assert not chain_verify().intact  # the weekly full verification finds it


def test_the_increment_finds_a_verified_link_changed_since(facility, compliance_officer):
    _events(facility, compliance_officer, 5)
    chain_link_all()
    verification_record(chain_verify())
    chain = f"compliance.AuditEvent@{facility.pk}"
    behind_the_applications_back("UPDATE compliance_chainlink SET link_hash = repeat('0', 64) WHERE chain = %s", [chain])
    report = chain_verify(incremental=True)
    assert not report.intact and any("changed since it was last verified" in line for line in report.findings)


def test_two_verifications_never_run_at_once(facility):
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [_verify_lock_key()])
        with pytest.raises(VerificationBusy):
            chain_verify()
        with pytest.raises(CommandError) as refused:
            call_command("verify_audit_chain")
        assert refused.value.returncode == 3
    finally:
        with other.cursor() as cursor:  # unlocked before the close: the next test must not find it still held
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_verify_lock_key()])
        other.close()


def test_the_verification_task_is_never_handed_to_a_second_worker_and_a_second_copy_verifies_nothing(facility):
    """Issue 27: a full verification of 20 million rows and more outlives the broker's visibility timeout; an
    unacknowledged task would then be handed to a second worker while the first still runs."""
    from django.conf import settings

    from compliance.tasks import verify_audit_chain

    assert settings.CELERY_TASK_ACKS_LATE and verify_audit_chain.acks_late is False  # acknowledged when taken
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] < verify_audit_chain.time_limit
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [_verify_lock_key()])
        before = ChainVerification.objects.count()
        assert verify_audit_chain.apply(kwargs={"incremental": False}).get() is None  # one is running: turned away
        assert ChainVerification.objects.count() == before
    finally:
        # Unlocked in so many words: closing the connection ends the server's backend a moment later, and the
        # verification below could otherwise still find the lock held (the CI of stop 34 did).
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_verify_lock_key()])
        other.close()
    assert verify_audit_chain.apply().get() is True  # the lock released: it runs


def _verify_lock_key() -> int:
    import hashlib

    return int.from_bytes(hashlib.sha256(b"audit-chain:verify").digest()[:8], "big", signed=True)


def test_a_verification_cut_short_by_its_time_limit_says_so(facility, compliance_officer, monkeypatch):
    from compliance.chain import report as report_module

    _events(facility, compliance_officer, 3)
    chain_link_all()
    monkeypatch.setattr(report_module.Clock, "tick", lambda self: (_ for _ in ()).throw(report_module.OutOfTime()))
    report = chain_verify(time_limit=1)
    assert not report.complete and not report.intact
    assert report.findings[-1].startswith("INCOMPLETE: stopped at the time limit")
    assert not verification_record(report).complete


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_large_table_is_scanned_by_several_processes_in_one_snapshot(facility, compliance_officer, monkeypatch):
    from compliance.chain import parallel

    events = _events(facility, compliance_officer, 40)
    chain_link_all()
    monkeypatch.setattr(parallel, "PARALLEL_ABOVE", 1)
    monkeypatch.setattr(parallel, "_workers", lambda: 2)
    calls: list[int] = []
    real = parallel.scan_in_parallel
    monkeypatch.setattr("compliance.chain.scan.scan_in_parallel",
                        lambda *args: (calls.append(1), real(*args))[1])
    report = chain_verify()
    assert calls and report.intact and report.rows >= 40
    behind_the_applications_back("UPDATE compliance_auditevent SET reason = 'x' WHERE id = %s", [events[25].pk])
    report = chain_verify()
    assert [line for line in report.findings if f"compliance.AuditEvent #{events[25].pk} " in line]
