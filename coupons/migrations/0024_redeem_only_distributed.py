"""A redemption is recorded only for a coupon in a patron's hands, on a day finance has not processed (issue 24).

The redemption row is the electronic cancellation (§ 525.21(q)(6)); the ledger's move of its serial from
*distributed* to *redeemed* is posted later, in batches (``coupons.services.redemption_posting``). The scan
reads the coupon's state before its transaction; this trigger checks it again inside the insert, after the
facility's share lock was granted, so a movement committed meanwhile (a distribution taken back, finance's
processing of the day) is seen and the redemption refused:

* the open range holding the serial, if any, is *distributed*, and was last moved on or before the
  redemption's gaming day (the ledger runs forward in gaming days);
* finance has not processed the redemption's gaming day (§ 525.21(m)).

"Never twice" stays ``coupon_redeemed_once``. A serial held by no open range is left to the service (it
refuses an unknown coupon) and to ``verify_audit_chain``, which names a redemption the ledger contradicts.
The refusals name themselves (``coupon_not_distributed``, ``coupon_day_closed``, ``coupon_moved_later``) for
the service to say in words. SQLite, one writer at a time, has the same checks as triggers.
"""

from django.db import migrations

from compliance.migration_ops import PostgresSQL, SqliteSQL

PIN = "SET search_path = pg_catalog, public, pg_temp"

PG_FUNCTION = f"""
CREATE OR REPLACE FUNCTION public.coupons_redeem_only_distributed() RETURNS trigger LANGUAGE plpgsql {PIN} AS $$
DECLARE
    through date;
    held record;
BEGIN
    SELECT max(p.gaming_date) INTO through FROM public.coupons_financedayprocessing p
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

PG_FORWARD = [
    PG_FUNCTION,
    "CREATE OR REPLACE TRIGGER coupons_redeem_only_distributed BEFORE INSERT ON public.coupons_redemption "
    "FOR EACH ROW EXECUTE FUNCTION public.coupons_redeem_only_distributed()",
]
PG_BACKWARD = [
    "DROP TRIGGER IF EXISTS coupons_redeem_only_distributed ON public.coupons_redemption",
    "DROP FUNCTION IF EXISTS public.coupons_redeem_only_distributed()",
]

_HELD = ("FROM coupons_couponrange r WHERE r.series_id = NEW.series_id AND r.closed_by_id IS NULL "
         "AND r.first_serial <= NEW.serial AND r.last_serial >= NEW.serial")
SQLITE_FORWARD = [
    "CREATE TRIGGER coupons_redeem_day_open BEFORE INSERT ON coupons_redemption WHEN EXISTS (SELECT 1 FROM "
    "coupons_financedayprocessing p WHERE p.facility_id = NEW.facility_id AND p.gaming_date >= NEW.gaming_date) "
    "BEGIN SELECT RAISE(ABORT, 'coupon_day_closed'); END",
    f"CREATE TRIGGER coupons_redeem_only_distributed BEFORE INSERT ON coupons_redemption WHEN EXISTS (SELECT 1 "
    f"{_HELD} AND r.state <> 'distributed') BEGIN SELECT RAISE(ABORT, 'coupon_not_distributed'); END",
    f"CREATE TRIGGER coupons_redeem_moved_later BEFORE INSERT ON coupons_redemption WHEN EXISTS (SELECT 1 "
    f"{_HELD} AND (SELECT l.gaming_date FROM coupons_ledgerline l WHERE l.id = r.opened_by_id) > NEW.gaming_date) "
    f"BEGIN SELECT RAISE(ABORT, 'coupon_moved_later'); END",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS coupons_redeem_day_open",
    "DROP TRIGGER IF EXISTS coupons_redeem_only_distributed",
    "DROP TRIGGER IF EXISTS coupons_redeem_moved_later",
]


class Migration(migrations.Migration):
    dependencies = [("coupons", "0023_db_guards")]

    operations = [
        PostgresSQL(sql=PG_FORWARD, reverse_sql=PG_BACKWARD),
        SqliteSQL(sql=SQLITE_FORWARD, reverse_sql=SQLITE_BACKWARD),
    ]
