"""A revoked scanner redeems nothing, whenever its revocation commits (coupons migration 0035): a revocation that
commits after a scan read its token refuses that scan; a revocation waits for the scans already committing and the
scans after it wait for it; a revocation is final and a scanner keeps what it was registered with, however the
database is reached."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import Client

from coupons.models import Redemption, ScannerDevice
from coupons.redemption_rules import Refusal
from coupons.services import redemption as redemption_service
from coupons.services.redemption import Scan, redemption_record
from coupons.services.scanners import scanner_register, scanner_revoke
from tests.compliance.attack import as_app, refused, shadow
from tests.coupons.test_redemption_api import URL, assert_error, scan
from tests.vendors import postgresql_only

pytestmark = pytest.mark.django_db

POSTGRESQL = postgresql_only("SQLite runs one writer at a time: no race")


@pytest.fixture
def scanner(program, craps_table, shift_manager) -> tuple[ScannerDevice, str]:
    return scanner_register(facility=program.facility, table=craps_table, name="CR-1 scanner", user=shift_manager)


def _scan(table: Any, serial: int = 5) -> Scan:
    return Scan(serial=f"MP-{serial:07d}", table=table, position="pass_line", chips_cents=2500)


def test_a_revocation_committed_after_the_scan_read_its_scanner_refuses_the_scan(program, handed_out, scanner,
                                                                                 craps_table, shift_manager):
    handed_out(1, 10)
    device, _ = scanner
    read_by_the_scan = ScannerDevice.objects.get(pk=device.pk)  # in service when its token was read
    scanner_revoke(device=device, reason="lost on the floor", user=shift_manager)
    with pytest.raises(Refusal) as refusal:
        redemption_record(facility=program.facility, scan=_scan(craps_table), device=read_by_the_scan)
    assert refusal.value.code == "token_revoked"
    assert "The scanner CR-1 scanner was revoked" in refusal.value.message
    assert "nothing was recorded" in refusal.value.message
    assert not Redemption.objects.exists()


@pytest.mark.parametrize("door", [True, False], ids=["front door", "whole way"])
def test_the_api_answers_a_revocation_during_the_scan_with_401_token_revoked(settings, monkeypatch, program,
                                                                            handed_out, scanner, shift_manager, door):
    """The revocation lands between the token's read and the insert: both ways to the API say so in words."""
    settings.SCANNER_FRONT_DOOR = door
    handed_out(1, 10)
    device, token = scanner
    found = redemption_service._coupon

    def revoked_meanwhile(*args: Any) -> Any:
        scanner_revoke(device=ScannerDevice.objects.get(pk=device.pk), reason="dropped", user=shift_manager)
        return found(*args)

    monkeypatch.setattr(redemption_service, "_coupon", revoked_meanwhile)
    response = Client().post(URL, data=scan(), content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}")
    error = assert_error(response, 401, "token_revoked")
    assert "CR-1 scanner was revoked" in error["message"] and "nothing was recorded" in error["message"]
    if connection.vendor == "postgresql":  # the moment, on the facility's clock (09:00 in Harrisburg)
        assert " at 09:0" in error["message"], error["message"]
    assert not Redemption.objects.exists()


def _waiting_on_a_lock(timeout: float = 20) -> bool:
    """Whether another session of this database waits for a lock, within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")
            if cursor.fetchone()[0]:
                return True
        time.sleep(0.05)
    return False


def _in_threads(first: Any, second: Any) -> tuple[list[Any], threading.Event]:
    """``first`` on a thread, then (once it signals ``ready``) ``second`` on another; each one's outcome."""
    ready, release = threading.Event(), threading.Event()
    outcomes: list[Any] = [None, None]

    def run(index: int, call: Any) -> None:
        from django.db import connections
        try:
            outcomes[index] = call(ready, release)
        except Exception as error:
            outcomes[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(0, first)), threading.Thread(target=run, args=(1, second))]
    threads[0].start()
    assert ready.wait(30), "the first transaction did not get under way"
    threads[1].start()
    waited = _waiting_on_a_lock()
    release.set()
    for thread in threads:
        thread.join(60)
    return [waited, *outcomes], release


@POSTGRESQL
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_scan_waits_for_a_revocation_committing_and_is_refused(program, handed_out, scanner, craps_table,
                                                                shift_manager):
    handed_out(1, 10)
    device, _ = scanner
    read_by_the_scan = ScannerDevice.objects.get(pk=device.pk)

    def revoke(ready: threading.Event, release: threading.Event) -> Any:
        with transaction.atomic():
            scanner_revoke(device=device, reason="lost on the floor", user=shift_manager)
            ready.set()
            release.wait(30)
        return "revoked"

    def redeem(ready: threading.Event, release: threading.Event) -> Any:
        return redemption_record(facility=program.facility, scan=_scan(craps_table), device=read_by_the_scan)

    (waited, revoked, outcome), _ = _in_threads(revoke, redeem)
    assert waited, "the scan did not wait for the revocation's lock"
    assert revoked == "revoked"
    assert isinstance(outcome, Refusal) and outcome.code == "token_revoked", outcome
    assert not Redemption.objects.exists()


@POSTGRESQL
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_revocation_waits_for_a_scan_committing_and_the_scan_stands(program, handed_out, scanner, craps_table,
                                                                     shift_manager):
    handed_out(1, 10)
    device, _ = scanner

    def redeem(ready: threading.Event, release: threading.Event) -> Any:
        with transaction.atomic():
            accepted = redemption_record(facility=program.facility, scan=_scan(craps_table), device=device)
            ready.set()
            release.wait(30)
        return accepted

    def revoke(ready: threading.Event, release: threading.Event) -> Any:
        return scanner_revoke(device=ScannerDevice.objects.get(pk=device.pk), reason="dropped", user=shift_manager)

    (waited, accepted, revoked), _ = _in_threads(redeem, revoke)
    assert waited, "the revocation did not wait for the scan's lock"
    assert not isinstance(accepted, Exception), accepted
    assert isinstance(revoked, ScannerDevice), revoked
    redemption = Redemption.objects.get()
    assert redemption.device_id == device.pk
    assert ScannerDevice.objects.get(pk=device.pk).revoked_at > redemption.redeemed_at
    with pytest.raises(Refusal) as refusal:  # and from then on
        redemption_record(facility=program.facility, scan=_scan(craps_table, 6), device=device)
    assert refusal.value.code == "token_revoked"


@postgresql_only("the application's database role")
def test_the_application_role_cannot_take_a_revocation_back_or_reword_it(program, scanner, shift_manager, dealer):
    device, _ = scanner
    scanner_revoke(device=device, reason="lost on the floor", user=shift_manager)
    for change in ("revoked_at = NULL", "revoked_reason = 'found again'", "revoked_at = revoked_at + interval '1 hour'",
                   f"revoked_by_id = {dealer.pk}"):
        message = refused(f"UPDATE public.coupons_scannerdevice SET {change} WHERE id = %s",  # noqa: S608
                          [device.pk], error=Exception)
        assert "scanner_revocation_final" in message, (change, message)
    assert ScannerDevice.objects.get(pk=device.pk).revoked_reason == "lost on the floor"


@postgresql_only("the application's database role")
def test_the_application_role_cannot_move_rekey_or_delete_a_scanner(program, scanner, roulette_table, dealer):
    device, _ = scanner
    for change in (f"table_id = {roulette_table.pk}", f"account_id = {dealer.pk}", "token_sha256 = repeat('0', 64)"):
        message = refused(f"UPDATE public.coupons_scannerdevice SET {change} WHERE id = %s",  # noqa: S608
                          [device.pk], error=Exception)
        assert "scanner_fixed" in message, (change, message)
    assert "scanner_kept" in refused("DELETE FROM public.coupons_scannerdevice WHERE id = %s", [device.pk],
                                     error=Exception)
    assert ScannerDevice.objects.filter(pk=device.pk, table_id=device.table_id).exists()


COLUMNS = ("facility_id", "series_id", "serial", "denomination_cents", "gaming_date", "redeemed_at", "table_id",
           "game_id", "position", "chips_cents", "wager", "channel", "redeemed_by_id", "device_id", "seal")


def _raw_insert(done: Redemption, serial: int) -> None:
    """The attacker's own INSERT of ``done``'s row for another serial (and wager)."""
    values = [getattr(done, column) for column in COLUMNS]
    values[COLUMNS.index("serial")], values[COLUMNS.index("wager")] = serial, f"w{serial}"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO coupons_redemption ({', '.join(COLUMNS)}) "  # noqa: S608 - our column names
                       f"VALUES ({', '.join(['%s'] * len(COLUMNS))})", values)


def test_a_row_naming_a_revoked_scanner_is_refused_by_the_database(program, handed_out, scanner, craps_table,
                                                                    shift_manager):
    """Whichever database (PostgreSQL's statement trigger, SQLite's row trigger): the row itself is refused, and a
    revocation cannot be taken back nor a scanner deleted, through any way of writing."""
    handed_out(1, 10)
    device, _ = scanner
    done = redemption_record(facility=program.facility, scan=_scan(craps_table, 2), device=device).redemption
    _raw_insert(done, 3)  # in service: a coupon with a patron, recorded
    scanner_revoke(device=device, reason="lost on the floor", user=shift_manager)
    with pytest.raises(DatabaseError, match="scanner_revoked"):
        _raw_insert(done, 4)
    assert sorted(Redemption.objects.values_list("serial", flat=True)) == [2, 3]
    for statement, said in (("UPDATE coupons_scannerdevice SET revoked_at = NULL WHERE id = %s", "scanner_revocation_final"),
                            ("UPDATE coupons_scannerdevice SET table_id = table_id + 1 WHERE id = %s", "scanner_fixed"),
                            ("DELETE FROM coupons_scannerdevice WHERE id = %s", "scanner_kept")):
        with pytest.raises(DatabaseError, match=said), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement, [device.pk])
    assert not ScannerDevice.objects.get(pk=device.pk).is_active


@postgresql_only("a session's temporary table is PostgreSQL's attack")
def test_a_shadowed_scanner_table_still_refuses_a_revoked_scanners_row(program, handed_out, scanner, craps_table,
                                                                      shift_manager):
    """The guard names the scanners' table with its schema: an empty temporary table of the same name in the
    session (a guard reading it by bare name would find no scanner revoked) switches nothing off."""
    handed_out(1, 10)
    device, _ = scanner
    done = redemption_record(facility=program.facility, scan=_scan(craps_table, 2), device=device).redemption
    scanner_revoke(device=device, reason="lost on the floor", user=shift_manager)
    with pytest.raises(DatabaseError, match="scanner_revoked"), transaction.atomic():
        shadow("coupons_scannerdevice")
        _raw_insert(done, 4)
    assert list(Redemption.objects.values_list("serial", flat=True)) == [2]


@postgresql_only("the generator's check is a PostgreSQL function")
def test_the_generators_check_of_a_replica_batch_refuses_a_revoked_scanners_rows(program, handed_out, scanner,
                                                                                   craps_table, shift_manager):
    """``coupons_redemptions_check`` (migration 0034's twin, made again by 0035 from the trigger's own text)."""
    handed_out(1, 10)
    device, _ = scanner
    done = redemption_record(facility=program.facility, scan=_scan(craps_table, 2), device=device).redemption
    assert as_app("SELECT public.coupons_redemptions_check(%s::bigint[])", [[done.pk]]) == [("",)]
    scanner_revoke(device=device, reason="lost on the floor", user=shift_manager)
    assert "scanner_revoked" in refused("SELECT public.coupons_redemptions_check(%s::bigint[])", [[done.pk]],
                                        error=Exception)
