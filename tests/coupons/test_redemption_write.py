"""The scan's write (``compliance.raw_writes.audited_insert``): in one statement, exactly the rows ``save()`` writes —
the redemption, its history row naming the acting account, its audit event, each sealed — and ``save()`` itself
wherever one statement would skip something (a receiver the write does not know)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext

from compliance.actors import acting_as
from compliance.models import AuditEvent
from compliance.raw_writes import audited_insert, history_model_of, takes_one_statement
from coupons.models import Redemption, RedemptionAnswer
from tests.coupons.conftest import TODAY
from tests.vendors import postgresql_only

pytestmark = [pytest.mark.django_db, postgresql_only("the one-statement write is PostgreSQL's (SQLite saves each row)")]

# What differs between two redemptions of two coupons written a moment apart.
_OWN = {"id", "serial", "wager", "seal", "redeemed_at", "history_id", "history_date", "occurred_at", "object_id", "object_repr"}


def _columns(row: Any) -> dict[str, Any]:
    return {f.attname: getattr(row, f.attname) for f in row._meta.concrete_fields if f.attname not in _OWN}


def _redemption(program: Any, table: Any, user: Any, serial: int) -> Redemption:
    return Redemption(facility=program.facility, series=program.series, serial=serial, denomination_cents=2500,
                      gaming_date=TODAY, table=table, game=table.game, position="pass_line", chips_cents=4000,
                      wager=f"R1-S{serial}", redeemed_by=user)


def _written(redemption: Redemption) -> tuple[Redemption, Any, AuditEvent]:
    row = Redemption.objects.get(pk=redemption.pk)
    history = history_model_of(Redemption).objects.get(id=redemption.pk)
    event = AuditEvent.objects.get(model_label="coupons.Redemption", object_id=str(redemption.pk))
    return row, history, event


def test_one_statement_writes_the_rows_save_writes(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    assert takes_one_statement(Redemption)
    fast, saved = _redemption(program, craps_table, dealer, 3), _redemption(program, craps_table, dealer, 4)
    with acting_as(dealer):
        with CaptureQueriesContext(connection) as captured:
            audited_insert(fast)
        saved.save(force_insert=True)
    assert [q["sql"].split()[0] for q in captured.captured_queries if "INSERT" in q["sql"]] == ["WITH"]
    (row, history, event), (row_saved, history_saved, event_saved) = _written(fast), _written(saved)
    assert _columns(row) == _columns(row_saved) and row.seal_intact() and row.seal == fast.seal
    assert _columns(history) == _columns(history_saved)
    assert history.history_user_id == dealer.pk and history.history_type == "+" and history.seal == row.seal
    assert _columns(event) | {"changes": None} == _columns(event_saved) | {"changes": None}
    assert event.changes == event_saved.changes | {"serial": 3, "wager": "R1-S3", "redeemed_at": str(fast.redeemed_at)}
    assert event.history_id == history.history_id and event.actor_id == dealer.pk and event.seal_intact()
    assert event.object_repr == "MP-0000003 redeemed at table CR-1"
    assert not fast._state.adding and fast.pk == row.pk


def test_the_rows_that_follow_get_the_redemptions_id_in_the_same_statement(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    redemption = _redemption(program, craps_table, dealer, 5)

    def answer(row: Redemption) -> list[RedemptionAnswer]:
        return [RedemptionAnswer(account=dealer, key="k-5", request_sha256="f", status=201,
                                 body={"redemption": {"id": row.pk}}, redemption=row)]

    with acting_as(dealer), CaptureQueriesContext(connection) as captured:
        audited_insert(redemption, then=answer)
    stored = RedemptionAnswer.objects.get(key="k-5")
    assert stored.redemption_id == redemption.pk and stored.body == {"redemption": {"id": redemption.pk}}
    assert [q["sql"].split()[0] for q in captured.captured_queries if "INSERT" in q["sql"]] == ["WITH"]


def test_a_refused_insert_writes_nothing(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    with acting_as(dealer):
        audited_insert(_redemption(program, craps_table, dealer, 6))
        before = AuditEvent.objects.count(), history_model_of(Redemption).objects.count()
        from django.db import IntegrityError

        with pytest.raises(IntegrityError, match="coupon_redeemed_once"):
            audited_insert(_redemption(program, craps_table, dealer, 6))
    assert (AuditEvent.objects.count(), history_model_of(Redemption).objects.count()) == before
    assert Redemption.objects.filter(serial=6).count() == 1


def test_a_receiver_the_write_does_not_know_gets_the_row_through_save(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    heard: list[Any] = []

    def listener(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
        heard.append(instance.pk)

    post_save.connect(listener, sender=Redemption, weak=False, dispatch_uid="test-raw-writes")
    try:
        assert not takes_one_statement(Redemption)
        redemption = _redemption(program, craps_table, dealer, 7)
        with acting_as(dealer):
            audited_insert(redemption)
    finally:
        post_save.disconnect(sender=Redemption, dispatch_uid="test-raw-writes")
    assert heard == [redemption.pk] and takes_one_statement(Redemption)
    row, history, event = _written(redemption)
    assert history.history_user_id == dealer.pk and event.history_id == history.history_id and row.seal_intact()


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_write_is_its_own_transaction(program, handed_out, craps_table, dealer):
    """A scan (autocommit, as the API serves it) writes with no BEGIN, SAVEPOINT or COMMIT of its own: the one
    statement is its transaction, committed when it ends, seen at once from another session."""
    handed_out(1, 10)
    redemption = _redemption(program, craps_table, dealer, 8)
    assert connection.get_autocommit() and not connection.in_atomic_block
    from unittest import mock

    with acting_as(dealer), CaptureQueriesContext(connection) as captured, \
            mock.patch.object(connection, "set_autocommit", wraps=connection.set_autocommit) as switched, \
            mock.patch.object(connection, "commit", wraps=connection.commit) as committed:
        audited_insert(redemption)
    assert [q["sql"].split()[0].upper() for q in captured.captured_queries] == ["SELECT", "WITH"]
    assert not switched.called and not committed.called  # no transaction opened around the two statements
    import psycopg

    settings = connection.settings_dict
    with psycopg.connect(dbname=settings["NAME"], user=settings["USER"], host=settings["HOST"],
                         port=settings["PORT"] or 5432, password=settings["PASSWORD"] or None) as other:
        seen = other.execute("SELECT count(*) FROM coupons_redemption WHERE id = %s", [redemption.pk]).fetchone()
    assert seen == (1,)


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_a_statement_refused_in_its_last_part_writes_nothing(program, handed_out, craps_table,
                                                                                   dealer):
    """The attacker's case for the write without BEGIN: the stored answer (the statement's last part) clashes with
    an answer already kept under the same Idempotency-Key, after the redemption, its history row and audit event
    were inserted by the parts before it. The statement is refused whole: none of them stays."""
    from django.db import IntegrityError

    handed_out(1, 10)

    def answer(key: str) -> Any:
        return lambda row: [RedemptionAnswer(account=dealer, key=key, request_sha256="f", status=201,
                                             body={"redemption": {"id": row.pk}}, redemption=row)]

    with acting_as(dealer):
        audited_insert(_redemption(program, craps_table, dealer, 1), then=answer("same-key"))
        counts = (Redemption.objects.count(), history_model_of(Redemption).objects.count(), AuditEvent.objects.count())
        with pytest.raises(IntegrityError, match="coupon_answer_key_once"):
            audited_insert(_redemption(program, craps_table, dealer, 2), then=answer("same-key"))
    assert (Redemption.objects.count(), history_model_of(Redemption).objects.count(),
            AuditEvent.objects.count()) == counts
    assert not Redemption.objects.filter(serial=2).exists()


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_ids_held_too_long_are_left_and_new_ones_taken(program, handed_out, craps_table, dealer,
                                                                             monkeypatch):
    """The attacker's (or the scheduler's) case for the write without BEGIN: the process stops between taking its
    ids and inserting. No transaction of its own holds the chain's linker back meanwhile, so ids held longer than a
    third of the linker's margin are not used: new ones are taken inside a transaction (whose start holds the linker
    back), and the row, its history row, its event and the stored answer are built and sealed with those; the first
    ids stay unused, as a refused insert leaves them."""
    from compliance import raw_writes
    from compliance.chain.link import MARGIN

    assert MARGIN.total_seconds() / 3 >= raw_writes.IDS_FRESH_FOR
    handed_out(1, 10)
    clock = iter([0.0, raw_writes.IDS_FRESH_FOR + 1])  # the ids taken; the insert about to be sent: stale
    monkeypatch.setattr(raw_writes, "_clock", lambda: next(clock))
    sent: list[tuple[str, bool, tuple[Any, ...]]] = []
    real_fetch = raw_writes.fetch

    def fetch(statement: str, params: Any) -> Any:
        rows = real_fetch(statement, params)
        sent.append((statement.split()[0], connection.in_atomic_block, tuple(rows[0])))
        return rows

    monkeypatch.setattr(raw_writes, "fetch", fetch)
    redemption = _redemption(program, craps_table, dealer, 3)

    def answer(row: Any) -> list[RedemptionAnswer]:
        return [RedemptionAnswer(account=dealer, key="k-3", request_sha256="f", status=201,
                                 body={"redemption": {"id": row.pk}}, redemption=row)]

    with acting_as(dealer):
        audited_insert(redemption, then=answer)
    assert [(kind, inside) for kind, inside, _ in sent] == [("SELECT", False), ("SELECT", True), ("WITH", True)]
    first, second = sent[0][2], sent[1][2]
    stored = Redemption.objects.get(serial=3)
    assert stored.pk == redemption.pk == second[0] != first[0]
    assert stored.seal == stored.compute_seal()
    history = history_model_of(Redemption).objects.get(pk=second[1])
    assert history.id == stored.pk
    event = AuditEvent.objects.get(pk=second[2])
    assert event.seal == event.compute_seal() and event.object_id == str(stored.pk)
    kept = RedemptionAnswer.objects.get(key="k-3")
    assert kept.redemption_id == stored.pk and kept.body == {"redemption": {"id": stored.pk}}
    assert not Redemption.objects.filter(pk=first[0]).exists()
    assert not history_model_of(Redemption).objects.filter(pk=first[1]).exists()
    assert not AuditEvent.objects.filter(pk=first[2]).exists()
    with pytest.raises(StopIteration):
        next(clock)  # the clock read twice: when the ids were taken, and before the insert
