"""The redemption's guard checks the rows a statement inserted, once a statement (issue 27).

Migrations 0024 and 0028 checked each redemption in a ``BEFORE INSERT … FOR EACH ROW`` trigger: the facility's
share lock, finance's last processed day, the open range holding the serial. A generated year inserts 55,000
redemptions a day in statements of thousands, and the function's per-row start cost 15 µs a row (49 ms of a
230 ms statement of 3,400 rows; ``auto_explain``, 29 Nov 2026). The same checks now run once for each statement,
``AFTER INSERT … FOR EACH STATEMENT`` over its transition table (``REFERENCING NEW TABLE``), as set-based queries:

* the share lock of every facility the statement's rows name (in id order: two statements of several facilities
  cannot deadlock on them), taken before the checks read, so each check's snapshot (READ COMMITTED: a new one each
  statement of the function) sees a processing or a take-back that committed while the lock was awaited;
* no row's gaming day on or before the last day finance processed for its facility (``coupon_day_closed``);
* no row whose serial an open range holds in another state than *distributed* (``coupon_not_distributed``), or
  holds since a move on a later gaming day (``coupon_moved_later``).

The refusals are worded as before, for ``coupons.services.redemption._refusal``. What differs: the rows are in the
table (and in its unique indexes) when the checks run, so a second redemption of a coupon is refused by
``coupon_redeemed_once`` before the guard looks at it, whatever its day; the statement's rows vanish with the
refusal as before. A statement-level trigger fires for every INSERT, COPY and ``INSERT … ON CONFLICT`` into the
table, as the row trigger did (``tests/coupons/test_redemption_guard_statement.py``). SQLite keeps its row triggers.
"""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

PIN = "SET search_path = pg_catalog, public, pg_temp"

FUNCTION = f"""
CREATE OR REPLACE FUNCTION public.coupons_redeem_only_distributed_rows() RETURNS trigger LANGUAGE plpgsql {PIN} AS $$
DECLARE
    bad record;
BEGIN
    PERFORM 1 FROM public.compliance_facility f
     WHERE f.id IN (SELECT n.facility_id FROM new_redemptions n) ORDER BY f.id FOR SHARE;
    SELECT d.through INTO bad
      FROM (SELECT n.facility_id, min(n.gaming_date) AS first_day FROM new_redemptions n GROUP BY n.facility_id) n
      CROSS JOIN LATERAL (SELECT max(p.gaming_date) AS through FROM public.coupons_financedayprocessing p
                           WHERE p.facility_id = n.facility_id) d
     WHERE d.through IS NOT NULL AND n.first_day <= d.through
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'coupon_day_closed %', bad.through USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    SELECT n.serial, n.series_id, held.state, held.moved_on INTO bad
      FROM new_redemptions n
      CROSS JOIN LATERAL (
          SELECT r.state, r.last_serial, l.gaming_date AS moved_on
            FROM public.coupons_couponrange r JOIN public.coupons_ledgerline l ON l.id = r.opened_by_id
           WHERE r.series_id = n.series_id AND r.closed_by_id IS NULL AND r.first_serial <= n.serial
           ORDER BY r.first_serial DESC LIMIT 1) held
     WHERE held.last_serial >= n.serial AND (held.state <> 'distributed' OR held.moved_on > n.gaming_date)
     ORDER BY held.state = 'distributed', n.series_id, n.serial
     LIMIT 1;
    IF FOUND THEN
        IF bad.state <> 'distributed' THEN
            RAISE EXCEPTION 'coupon_not_distributed: serial % of series # % is %', bad.serial, bad.series_id,
                bad.state USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RAISE EXCEPTION 'coupon_moved_later %', bad.moved_on USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$
"""

FORWARD = [
    FUNCTION,
    "DROP TRIGGER IF EXISTS coupons_redeem_only_distributed ON public.coupons_redemption",
    "DROP FUNCTION IF EXISTS public.coupons_redeem_only_distributed()",
    "CREATE TRIGGER coupons_redeem_only_distributed AFTER INSERT ON public.coupons_redemption "
    "REFERENCING NEW TABLE AS new_redemptions FOR EACH STATEMENT "
    "EXECUTE FUNCTION public.coupons_redeem_only_distributed_rows()",
]


def _backward() -> list[str]:
    from importlib import import_module

    row_function = import_module("coupons.migrations.0028_redemption_takes_the_share_lock")._function(lock=True)
    return [
        "DROP TRIGGER IF EXISTS coupons_redeem_only_distributed ON public.coupons_redemption",
        "DROP FUNCTION IF EXISTS public.coupons_redeem_only_distributed_rows()",
        row_function,
        "CREATE TRIGGER coupons_redeem_only_distributed BEFORE INSERT ON public.coupons_redemption "
        "FOR EACH ROW EXECUTE FUNCTION public.coupons_redeem_only_distributed()",
    ]


class Migration(migrations.Migration):
    dependencies = [("coupons", "0030_db_guards")]

    operations = [PostgresSQL(sql=FORWARD, reverse_sql=_backward())]
