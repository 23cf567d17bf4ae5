"""The yearly archive (issue 27, item 3): a closed year's audit events and history moved into the archive schema,
still read by the pages, the verification and the evidence bundle, and no way opened to change or delete them.

The suite runs as the application's role; the archive step runs as the owner (``connected_as_owner``), as
``manage.py archive_year`` does. The owner's own tampering goes through ``behind_the_applications_back``.
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import psycopg
import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, connections, transaction
from django.utils import timezone

from compliance.actors import acting_as
from compliance.archive import ARCHIVE_SCHEMA, ArchiveRefused, archived_tables, year_archive
from compliance.chain import anchor_record, chain_link_all, chain_verify
from compliance.db_guards import ARCHIVE_SETTING, SHARED_FUNCTIONS
from compliance.evidence import verify_bundle
from compliance.evidence.bundle import bundle_plan, bundle_stream
from compliance.management.commands.db_roles import connected_as_owner
from compliance.models import AuditEvent, ChainAnchor, GamingTable
from compliance.testing import behind_the_applications_back
from tests.factories import GamingTableFactory

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="the archive is PostgreSQL's")

LAST_YEAR = timezone.localtime().year - 1
EVENTS_AT = datetime(LAST_YEAR, 6, 1, 12, 0, tzinfo=UTC)  # 8:00 in Pennsylvania: the gaming day of 1 June
ARCHIVED = f"{ARCHIVE_SCHEMA}.compliance_auditevent_{LAST_YEAR}"


def _events(facility: Any, person: Any, count: int) -> list[AuditEvent]:
    with acting_as(person):
        return [AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=person, reason=f"event {n}")
                for n in range(count)]


def _as_app(sql: str, params: list[Any] | None = None) -> list[Any]:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _refused(sql: str, params: list[Any] | None = None,
             error: type[Exception] = psycopg.errors.InsufficientPrivilege) -> str:
    with pytest.raises(DatabaseError) as refusal:
        _as_app(sql, params)
    assert isinstance(refusal.value.__cause__, error), refusal.value
    return str(refusal.value)


def _drop_archive() -> None:
    with connected_as_owner() as owner, owner.cursor() as cursor:
        cursor.execute(f"DROP SCHEMA IF EXISTS {ARCHIVE_SCHEMA} CASCADE")


@pytest.mark.django_db
def test_the_trigger_lets_only_the_owner_move_a_live_row_under_the_archive_setting(facility, compliance_officer):
    assert ARCHIVE_SETTING in SHARED_FUNCTIONS["compliance_refuse_change"][2]
    event = _events(facility, compliance_officer, 1)[0]
    delete = "DELETE FROM compliance_auditevent WHERE id = %s"
    # The application's role has no DELETE privilege: the setting changes nothing for it...
    _as_app("SELECT set_config(%s, 'compliance_auditevent', false)", [ARCHIVE_SETTING])
    _refused(delete, [event.pk])
    _refused("UPDATE compliance_auditevent SET reason = 'x' WHERE id = %s", [event.pk])
    # ...and were it granted DELETE by mistake, the trigger still refuses it: it is not the table's owner.
    behind_the_applications_back(f'GRANT DELETE ON compliance_auditevent TO "{connection.settings_dict["USER"]}"',
                                 triggers_off=False)
    assert "append-only: DELETE refused" in _refused(delete, [event.pk], psycopg.errors.IntegrityConstraintViolation)
    _as_app("SELECT set_config(%s, '', false)", [ARCHIVE_SETTING])
    # The owner: refused without the setting, refused an UPDATE with it, refused with the setting of another table.
    for statement, setting in ((delete, ""), ("UPDATE compliance_auditevent SET reason = 'x' WHERE id = %s",
                                              "compliance_auditevent"), (delete, "compliance_signature")):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            _as_app("SELECT set_config(%s, %s, true)", [ARCHIVE_SETTING, setting])
            behind_the_applications_back(statement, [event.pk], triggers_off=False)
    assert AuditEvent.objects.filter(pk=event.pk).exists()


@pytest.mark.django_db
def test_a_year_not_ended_or_not_linked_is_refused_and_nothing_moves(facility, compliance_officer):
    with pytest.raises(ArchiveRefused, match="has not ended"):
        year_archive(year=timezone.localtime().year, role="nobody")
    with time_machine.travel(EVENTS_AT, tick=True):
        _events(facility, compliance_officer, 2)  # not linked yet
    with pytest.raises(ArchiveRefused, match="not linked into their chain yet"):
        year_archive(year=LAST_YEAR, role="nobody")
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regnamespace(%s)", [ARCHIVE_SCHEMA])
        assert cursor.fetchone()[0] is None


def test_the_embedded_sqlite_is_told_the_archive_is_postgresqls(monkeypatch):
    monkeypatch.setitem(connections["default"].settings_dict, "ENGINE", "django.db.backends.sqlite3")
    out = io.StringIO()
    call_command("archive_year", year=LAST_YEAR, stdout=out)
    assert "Embedded SQLite: every row stays in its table" in out.getvalue()
    monkeypatch.setattr(connection, "vendor", "sqlite")
    with pytest.raises(ArchiveRefused, match="archive is PostgreSQL's"):
        year_archive(year=LAST_YEAR, role="nobody")


def test_the_archived_tables_are_the_audit_events_and_every_history_table():
    tables = {archived.table: archived.column for archived in archived_tables()}
    assert tables.pop("compliance_auditevent") == "occurred_at"
    assert tables and set(tables.values()) == {"history_date"} and all("historical" in t for t in tables)
    # Left live (docs/operations.md, "Archive"): referred to by foreign keys, or unique across the table.
    assert not {"coupons_ledgerline", "coupons_redemption", "compliance_signature"} & set(tables)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # the archive step runs as the owner
def test_a_closed_year_archived_is_still_read_verified_and_bundled_and_stays_unchangeable(
        facility, compliance_officer, tmp_path: Path):
    with time_machine.travel(EVENTS_AT, tick=True):
        old = _events(facility, compliance_officer, 5)
        table = cast(GamingTable, GamingTableFactory(facility=facility))  # a history row of last year
        chain_link_all()
    with time_machine.travel(EVENTS_AT + timedelta(minutes=5), tick=True):
        chain_link_all()  # the first links settled: the floor passes last year's rows
    with time_machine.travel(EVENTS_AT + timedelta(days=1, hours=6), tick=True):
        anchor = anchor_record(facility, reason=ChainAnchor.Reason.ON_DEMAND)  # the Board's, after that day
    new = _events(facility, compliance_officer, 3)
    chain_link_all()
    before = chain_verify()
    assert before.intact, before.findings
    try:
        of_the_year = AuditEvent.objects.filter(occurred_at__lt=datetime(LAST_YEAR + 1, 1, 1, tzinfo=UTC)).count()
        assert of_the_year > len(old)  # the gaming table's own events too
        out = io.StringIO()
        call_command("archive_year", year=LAST_YEAR, stdout=out)
        assert f"compliance_auditevent: {of_the_year:,} rows of {LAST_YEAR} now in {ARCHIVED}" in out.getvalue()
        assert f"rows of {LAST_YEAR} now in {ARCHIVE_SCHEMA}.compliance_historicalgamingtable_{LAST_YEAR}" in out.getvalue()
        old_ids = [event.pk for event in old]
        # Out of the live table, into the year's archive table; read as before through the live table.
        assert _as_app("SELECT count(*) FROM ONLY compliance_auditevent WHERE id = ANY(%s)", [old_ids]) == [(0,)]
        assert _as_app(f"SELECT count(*) FROM {ARCHIVED} WHERE id = ANY(%s)", [old_ids]) == [(5,)]  # noqa: S608
        assert AuditEvent.objects.filter(pk__in=old_ids).count() == 5
        assert AuditEvent.objects.filter(pk__in=[e.pk for e in new]).count() == 3
        assert GamingTable.history.filter(id=table.pk).exists()
        assert _as_app("SELECT count(*) FROM ONLY compliance_historicalgamingtable WHERE id = %s", [table.pk]) == [(0,)]
        # The chain proves the same rows, where they are now.
        after = chain_verify()
        assert after.intact and after.rows == before.rows, after.findings
        # The evidence bundle of that day reads them and verifies against the Board's anchor.
        _bundle_verifies(facility, anchor, old_ids, tmp_path)
        # The application's role may only read the archive: directly or through the live table, nothing else.
        for statement in (f"UPDATE {ARCHIVED} SET reason = 'x' WHERE id = %s",  # noqa: S608
                          f"DELETE FROM {ARCHIVED} WHERE id = %s",  # noqa: S608
                          "UPDATE compliance_auditevent SET reason = 'x' WHERE id = %s",
                          "DELETE FROM compliance_auditevent WHERE id = %s"):
            _refused(statement, [old_ids[0]])
        _refused(f"INSERT INTO {ARCHIVED} SELECT * FROM {ARCHIVED} LIMIT 1")  # noqa: S608
        _refused(f"TRUNCATE {ARCHIVED}")
        assert "must be owner" in _refused(f"ALTER TABLE {ARCHIVED} NO INHERIT compliance_auditevent")
        # The owner, the setting set and the triggers on, is still refused a change to an archived row.
        with pytest.raises(DatabaseError, match="append-only: DELETE refused"), transaction.atomic():
            _as_app("SELECT set_config(%s, %s, true)", [ARCHIVE_SETTING, f"compliance_auditevent_{LAST_YEAR}"])
            delete = f"DELETE FROM {ARCHIVED} WHERE id = %s"  # noqa: S608 - our table
            behind_the_applications_back(delete, [old_ids[0]], triggers_off=False)
        # And an archived row rewritten by the owner with the triggers off is found, named.
        rewrite = f"UPDATE {ARCHIVED} SET reason = 'nothing happened' WHERE id = %s"  # noqa: S608 - our table
        behind_the_applications_back(rewrite, [old_ids[2]])
        found = chain_verify()
        assert not found.intact
        assert any(f"compliance.AuditEvent #{old_ids[2]}" in line for line in found.findings), found.findings
        # Run again: nothing left of that year to move.
        again = io.StringIO()
        call_command("archive_year", year=LAST_YEAR, stdout=again)
        assert f"0 rows of {LAST_YEAR} archived" in again.getvalue()
    finally:
        _drop_archive()
    with pytest.raises(CommandError, match="has not ended"):
        call_command("archive_year", year=timezone.localtime().year)


def _bundle_verifies(facility: Any, anchor: ChainAnchor, ids: list[int], tmp_path: Path) -> None:
    day = timezone.localtime(EVENTS_AT).date()
    plan = bundle_plan(facility, day, day)
    assert plan.anchor == anchor
    bundle, anchor_file = tmp_path / "bundle.zip", tmp_path / "anchor.json"
    bundle.write_bytes(b"".join(bundle_stream(plan)))
    anchor_file.write_text(anchor.as_json())
    result = verify_bundle.verify(str(bundle), [str(anchor_file)])
    assert result.problems == []
    with zipfile.ZipFile(bundle) as archive:
        rows = archive.read(f"chains/compliance.AuditEvent@{facility.pk}.rows.jsonl").decode().splitlines()
    assert set(ids) <= {json.loads(line)["id"] for line in rows}
