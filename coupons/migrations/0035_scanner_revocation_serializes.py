"""A revoked scanner redeems nothing, whenever its revocation commits (issue 27's "noticed": a revocation committed
after a scan read its token was not seen by that scan).

A scan reads its scanner when it reads the token, some milliseconds before its redemption is inserted. A
revocation committed in between was not seen: the redemption committed after the scanner was revoked. Now the
database decides, as it decides "never twice":

* **Revoking takes the facility's lock.** ``coupons_scanner_revocation``, ``BEFORE UPDATE OR DELETE`` on the
  scanners, takes the facility's row ``FOR NO KEY UPDATE`` (``compliance.locks.lock_facility``'s mode) when a
  scanner's ``revoked_at`` is first set, however it is set (the service, the administrator, a person's own SQL).
  Every redemption's statement trigger holds the same row ``FOR SHARE`` (migration 0031), so a revocation waits for
  the scans already committing and the scans after it wait for the revocation's commit.
* **The redemption's guard reads the scanner after that lock.** The statement trigger (and its callable twin of
  migration 0034) refuses rows whose scanner is revoked (``scanner_revoked <when>``), read after the facility's
  share lock, in a snapshot of its own (READ COMMITTED): a revocation that committed while the lock was awaited is
  seen. ``coupons.services.redemption._refusal`` says it in words (``token_revoked``, 401 on the API).
* **A revocation is final and a scanner keeps what it was registered with.** The same trigger refuses taking a
  revocation back or rewording it, deleting a scanner (the register keeps every scanner ever registered), and
  changing its facility, table, account or token digest (a scanner moved to another table is revoked and a new
  one registered).

Lock order: a scan takes the scanner's row ``FOR KEY SHARE`` (its foreign key's check) and then the facility's
``FOR SHARE``; the revocation holds the scanner ``FOR NO KEY UPDATE`` (which a key share does not wait for:
``coupons.services.scanners.scanner_revoke``) and then the facility's. Neither waits for a lock the other holds
while holding one the other wants, so the two cannot deadlock. SQLite runs one writer at a time: its row trigger
refuses a revoked scanner's redemption and the same changes of a scanner.
"""

from importlib import import_module

from django.db import migrations

from compliance.migration_ops import PostgresSQL, SqliteSQL

PIN = "SET search_path = pg_catalog, public, pg_temp"

_BEFORE = import_module("coupons.migrations.0031_redemption_check_by_statement").FUNCTION
_LOCK = "ORDER BY f.id FOR SHARE;\n"
_REVOKED = """ORDER BY f.id FOR SHARE;
    SELECT d.revoked_at INTO bad
      FROM public.coupons_scannerdevice d
     WHERE d.id IN (SELECT n.device_id FROM new_redemptions n) AND d.revoked_at IS NOT NULL
     ORDER BY d.id
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'scanner_revoked %', bad.revoked_at USING ERRCODE = 'integrity_constraint_violation';
    END IF;
"""


def _with_scanner_check(function: str) -> str:
    if function.count(_LOCK) != 1:
        raise RuntimeError("migration 0035: the guard's share lock is not where migration 0031 put it")
    return function.replace(_LOCK, _REVOKED)


FUNCTION = _with_scanner_check(_BEFORE)
_0034 = import_module("coupons.migrations.0034_redemption_check_callable")
CHECK = _0034._callable(FUNCTION, rows=4)  # the twin made the same way, from the new text: one more read of the rows
CHECK_BEFORE = _0034.CHECK

SCANNER_FUNCTION = f"""
CREATE OR REPLACE FUNCTION public.coupons_scanner_revocation() RETURNS trigger LANGUAGE plpgsql {PIN} AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'scanner_kept: scanner % (%) stays on the register; revoke it instead', OLD.id, OLD.name
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.revoked_at IS NOT NULL AND (NEW.revoked_at IS DISTINCT FROM OLD.revoked_at
            OR NEW.revoked_by_id IS DISTINCT FROM OLD.revoked_by_id
            OR NEW.revoked_reason IS DISTINCT FROM OLD.revoked_reason) THEN
        RAISE EXCEPTION 'scanner_revocation_final: scanner % (%) was revoked at %', OLD.id, OLD.name, OLD.revoked_at
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.facility_id <> OLD.facility_id OR NEW.table_id <> OLD.table_id OR NEW.account_id <> OLD.account_id
            OR NEW.token_sha256 <> OLD.token_sha256 OR NEW.id <> OLD.id THEN
        RAISE EXCEPTION 'scanner_fixed: scanner % (%) keeps its facility, table, account and token; revoke it and '
            'register a new one', OLD.id, OLD.name USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL THEN
        PERFORM 1 FROM public.compliance_facility f WHERE f.id = NEW.facility_id FOR NO KEY UPDATE;
    END IF;
    RETURN NEW;
END;
$$
"""

PG_FORWARD = [
    FUNCTION,
    CHECK,
    SCANNER_FUNCTION,
    "CREATE OR REPLACE TRIGGER coupons_scanner_revocation BEFORE UPDATE OR DELETE ON public.coupons_scannerdevice "
    "FOR EACH ROW EXECUTE FUNCTION public.coupons_scanner_revocation()",
]
PG_BACKWARD = [
    "DROP TRIGGER IF EXISTS coupons_scanner_revocation ON public.coupons_scannerdevice",
    "DROP FUNCTION IF EXISTS public.coupons_scanner_revocation()",
    _BEFORE,
    CHECK_BEFORE,
]

SQLITE_FORWARD = [
    "CREATE TRIGGER coupons_redeem_scanner_in_service BEFORE INSERT ON coupons_redemption WHEN EXISTS (SELECT 1 "
    "FROM coupons_scannerdevice d WHERE d.id = NEW.device_id AND d.revoked_at IS NOT NULL) "
    "BEGIN SELECT RAISE(ABORT, 'scanner_revoked'); END",
    "CREATE TRIGGER coupons_scanner_kept BEFORE DELETE ON coupons_scannerdevice "
    "BEGIN SELECT RAISE(ABORT, 'scanner_kept: a scanner stays on the register; revoke it instead'); END",
    "CREATE TRIGGER coupons_scanner_revocation_final BEFORE UPDATE ON coupons_scannerdevice WHEN "
    "OLD.revoked_at IS NOT NULL AND (NEW.revoked_at IS NOT OLD.revoked_at OR NEW.revoked_by_id IS NOT "
    "OLD.revoked_by_id OR NEW.revoked_reason IS NOT OLD.revoked_reason) "
    "BEGIN SELECT RAISE(ABORT, 'scanner_revocation_final'); END",
    "CREATE TRIGGER coupons_scanner_fixed BEFORE UPDATE ON coupons_scannerdevice WHEN NEW.facility_id IS NOT "
    "OLD.facility_id OR NEW.table_id IS NOT OLD.table_id OR NEW.account_id IS NOT OLD.account_id OR "
    "NEW.token_sha256 IS NOT OLD.token_sha256 OR NEW.id IS NOT OLD.id "
    "BEGIN SELECT RAISE(ABORT, 'scanner_fixed'); END",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS coupons_redeem_scanner_in_service",
    "DROP TRIGGER IF EXISTS coupons_scanner_kept",
    "DROP TRIGGER IF EXISTS coupons_scanner_revocation_final",
    "DROP TRIGGER IF EXISTS coupons_scanner_fixed",
]


class Migration(migrations.Migration):
    dependencies = [("coupons", "0034_redemption_check_callable")]

    operations = [
        PostgresSQL(sql=PG_FORWARD, reverse_sql=PG_BACKWARD),
        SqliteSQL(sql=SQLITE_FORWARD, reverse_sql=SQLITE_BACKWARD),
    ]
