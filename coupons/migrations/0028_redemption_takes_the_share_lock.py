"""The redemption's insert takes the facility's share lock itself (issue 24): one statement fewer per scan.

The trigger of migration 0024 now begins by locking the facility's row ``FOR SHARE`` — the lock a redemption
took in a statement of its own before its insert (``compliance.locks.lock_facility_shared``): signing a
reconciliation form or finance's processing, which lock it exclusively, wait for the scans committing, and a
scan waits for them. Each later statement of the trigger takes a new snapshot (READ COMMITTED), so its checks
see a processing or a take-back that committed while the lock was awaited. SQLite (one writer) needs no lock.
"""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

PIN = "SET search_path = pg_catalog, public, pg_temp"


def _function(lock: bool) -> str:
    take = ("    PERFORM 1 FROM public.compliance_facility f WHERE f.id = NEW.facility_id FOR SHARE;\n"
            if lock else "")
    return f"""
CREATE OR REPLACE FUNCTION public.coupons_redeem_only_distributed() RETURNS trigger LANGUAGE plpgsql {PIN} AS $$
DECLARE
    through date;
    held record;
BEGIN
{take}    SELECT max(p.gaming_date) INTO through FROM public.coupons_financedayprocessing p
     WHERE p.facility_id = NEW.facility_id;
    IF through IS NOT NULL AND NEW.gaming_date <= through THEN
        RAISE EXCEPTION 'coupon_day_closed %', through USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    SELECT r.state, r.last_serial, l.gaming_date AS moved_on INTO held
      FROM public.coupons_couponrange r JOIN public.coupons_ledgerline l ON l.id = r.opened_by_id
     WHERE r.series_id = NEW.series_id AND r.closed_by_id IS NULL AND r.first_serial <= NEW.serial
     ORDER BY r.first_serial DESC LIMIT 1;
    IF held.state IS NOT NULL AND held.last_serial >= NEW.serial THEN
        IF held.state <> 'distributed' THEN
            RAISE EXCEPTION 'coupon_not_distributed: serial % of series # % is %', NEW.serial, NEW.series_id,
                held.state USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF held.moved_on > NEW.gaming_date THEN
            RAISE EXCEPTION 'coupon_moved_later %', held.moved_on USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    END IF;
    RETURN NEW;
END;
$$
"""


class Migration(migrations.Migration):
    dependencies = [("coupons", "0027_db_guards")]

    operations = [PostgresSQL(sql=[_function(lock=True)], reverse_sql=[_function(lock=False)])]
