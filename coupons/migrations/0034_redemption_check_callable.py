"""The redemption guard's checks, callable on rows already inserted (issue 27).

Migration 0031 runs the guard once a statement, ``AFTER INSERT … FOR EACH STATEMENT`` over the statement's new rows.
Its checks now live in ``public.coupons_redemptions_check(ids bigint[])``, which reads the redemptions of those ids
from the table (inserted and visible to the statement's own transaction), and the trigger calls it with the ids of
its new rows: one authority for what a redemption must satisfy, whoever asks.

The other caller is the year's generator (``compliance.scale_sql``). When it logs in as a superuser it writes its
hourly batches with ``session_replication_role = replica``, as a restore or a logical replica applies rows: the
row-by-row foreign-key triggers do not fire (ten a redemption, some 40 % of the batch's time), and neither does
this trigger. It then checks the batch itself before its transaction commits: each foreign key once a referenced
row (locked ``FOR KEY SHARE`` as the foreign key's own check locks it) and this function over the batch's ids. The
checks, the locks and the refusals' words are the trigger's (``coupons.services.redemption._refusal`` reads them).

The trigger's shape is unchanged (``tests/coupons/test_redemption_guard_statement.py``): the same name, the same
function, after each INSERT statement, with its new rows. SQLite keeps its row triggers.
"""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

PIN = "SET search_path = pg_catalog, public, pg_temp"

CHECK = """
CREATE OR REPLACE FUNCTION public.coupons_redemptions_check(ids bigint[]) RETURNS void LANGUAGE plpgsql PIN AS $$
DECLARE
    bad record;
BEGIN
    PERFORM 1 FROM public.compliance_facility f
     WHERE f.id IN (SELECT n.facility_id FROM public.coupons_redemption n WHERE n.id = ANY(ids))
     ORDER BY f.id FOR SHARE;
    SELECT d.through INTO bad
      FROM (SELECT n.facility_id, min(n.gaming_date) AS first_day FROM public.coupons_redemption n
             WHERE n.id = ANY(ids) GROUP BY n.facility_id) n
      CROSS JOIN LATERAL (SELECT max(p.gaming_date) AS through FROM public.coupons_financedayprocessing p
                           WHERE p.facility_id = n.facility_id) d
     WHERE d.through IS NOT NULL AND n.first_day <= d.through
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'coupon_day_closed %', bad.through USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    SELECT n.serial, n.series_id, held.state, held.moved_on INTO bad
      FROM public.coupons_redemption n
      CROSS JOIN LATERAL (
          SELECT r.state, r.last_serial, l.gaming_date AS moved_on
            FROM public.coupons_couponrange r JOIN public.coupons_ledgerline l ON l.id = r.opened_by_id
           WHERE r.series_id = n.series_id AND r.closed_by_id IS NULL AND r.first_serial <= n.serial
           ORDER BY r.first_serial DESC LIMIT 1) held
     WHERE n.id = ANY(ids) AND held.last_serial >= n.serial
       AND (held.state <> 'distributed' OR held.moved_on > n.gaming_date)
     ORDER BY held.state = 'distributed', n.series_id, n.serial
     LIMIT 1;
    IF FOUND THEN
        IF bad.state <> 'distributed' THEN
            RAISE EXCEPTION 'coupon_not_distributed: serial % of series # % is %', bad.serial, bad.series_id,
                bad.state USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RAISE EXCEPTION 'coupon_moved_later %', bad.moved_on USING ERRCODE = 'integrity_constraint_violation';
    END IF;
END;
$$
""".replace("PIN", PIN)

TRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION public.coupons_redeem_only_distributed_rows() RETURNS trigger LANGUAGE plpgsql PIN AS $$
BEGIN
    PERFORM public.coupons_redemptions_check(ARRAY(SELECT n.id FROM new_redemptions n ORDER BY n.id));
    RETURN NULL;
END;
$$
""".replace("PIN", PIN)


def _backward() -> list[str]:
    from importlib import import_module

    statement_function = import_module("coupons.migrations.0031_redemption_check_by_statement").FUNCTION
    return [statement_function, "DROP FUNCTION IF EXISTS public.coupons_redemptions_check(bigint[])"]


class Migration(migrations.Migration):
    dependencies = [("coupons", "0033_redemption_table_day_index")]

    operations = [PostgresSQL(sql=[CHECK, TRIGGER_FUNCTION], reverse_sql=_backward())]
