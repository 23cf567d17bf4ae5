"""Each serial's current state follows from the sealed ledger (issue 21), and every function pins its search_path.

A coupon range row (the current state of a run of serials) is opened or closed only in the transaction that
writes the ledger line explaining it. A constraint trigger, deferred to commit, checks:

* a row opened (INSERT) is open, and either its ``opened_by`` line moved exactly its serials into its state
  and place (a moved piece, a receipt), or it is the untouched remainder of a row closed by that same line,
  in the same state, place and ``since``;
* a row closed (UPDATE of ``closed_by``) is closed by a line of its series that moves serials of it out of
  its state;
* in both cases the line was written by this very transaction (``compliance_written_in_this_transaction``):
  an old line cannot explain a new state.

So the current state can change only together with a new ledger line; a line the application's role
inserts without the key carries no valid seal, and ``verify_audit_chain`` names it, then replays the ledger
and names every serial whose current state differs from it.

The functions of migrations 0004 and 0010 are recreated with their tables named by schema and
``search_path`` pinned, so a session's temporary table cannot stand in for a real one.
"""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

PIN = "SET search_path = pg_catalog, public, pg_temp"

RANGE_ONLY_CLOSE = f"""
CREATE OR REPLACE FUNCTION public.coupons_range_only_close() RETURNS trigger LANGUAGE plpgsql {PIN} AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'coupon ranges are never deleted: close them' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.closed_by_id IS NOT NULL OR NEW.closed_by_id IS NULL
       OR NEW.first_serial <> OLD.first_serial OR NEW.last_serial <> OLD.last_serial
       OR NEW.state <> OLD.state OR NEW.series_id <> OLD.series_id OR NEW.opened_by_id <> OLD.opened_by_id
       OR NEW.since_id <> OLD.since_id OR NEW.location_id IS DISTINCT FROM OLD.location_id
       OR NEW.facility_id <> OLD.facility_id THEN
        RAISE EXCEPTION 'a coupon range can only be closed, once' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$
"""

CLOSED_RANGE_IS_REPLACED = f"""
CREATE OR REPLACE FUNCTION public.coupons_closed_range_is_replaced() RETURNS trigger LANGUAGE plpgsql {PIN} AS $$
DECLARE
    covered bigint;
BEGIN
    IF NEW.closed_by_id IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(sum(least(r.last_serial, NEW.last_serial) - greatest(r.first_serial, NEW.first_serial) + 1), 0)
      INTO covered
      FROM public.coupons_couponrange r
     WHERE r.series_id = NEW.series_id AND r.closed_by_id IS NULL
       AND int8range(r.first_serial, r.last_serial, '[]') && int8range(NEW.first_serial, NEW.last_serial, '[]');
    IF covered <> NEW.last_serial - NEW.first_serial + 1 THEN
        RAISE EXCEPTION 'coupon range #% (serials % to %) was closed without rows replacing it',
            NEW.id, NEW.first_serial, NEW.last_serial
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$
"""

FOLLOWS_THE_LEDGER = f"""
CREATE OR REPLACE FUNCTION public.coupons_range_follows_the_ledger() RETURNS trigger LANGUAGE plpgsql {PIN} AS $$
DECLARE
    line record;
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT l.xmin AS written, l.* INTO line FROM public.coupons_ledgerline l WHERE l.id = NEW.opened_by_id;
        IF NEW.closed_by_id IS NULL AND line.id IS NOT NULL
           AND public.compliance_written_in_this_transaction(line.written)
           AND line.series_id = NEW.series_id
           AND (
               (NEW.since_id = line.id AND line.first_serial = NEW.first_serial AND line.last_serial = NEW.last_serial
                AND line.to_state = NEW.state AND line.location_id IS NOT DISTINCT FROM NEW.location_id)
               OR EXISTS (
                   SELECT 1 FROM public.coupons_couponrange c
                    WHERE c.closed_by_id = line.id AND c.series_id = NEW.series_id AND c.state = NEW.state
                      AND c.since_id = NEW.since_id AND c.location_id IS NOT DISTINCT FROM NEW.location_id
                      AND c.first_serial <= NEW.first_serial AND NEW.last_serial <= c.last_serial)
           ) THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'coupon range #% (serials % to %, %) was opened without the ledger line that explains it',
            NEW.id, NEW.first_serial, NEW.last_serial, NEW.state
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    SELECT l.xmin AS written, l.* INTO line FROM public.coupons_ledgerline l WHERE l.id = NEW.closed_by_id;
    IF line.id IS NOT NULL AND public.compliance_written_in_this_transaction(line.written)
       AND line.series_id = NEW.series_id AND line.from_state = NEW.state
       AND line.first_serial <= NEW.last_serial AND NEW.first_serial <= line.last_serial THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'coupon range #% (serials % to %, %) was closed without the ledger line that explains it',
        NEW.id, NEW.first_serial, NEW.last_serial, NEW.state
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$
"""

FOLLOWS_THE_LEDGER_TRIGGER = """
CREATE CONSTRAINT TRIGGER coupons_range_follows_the_ledger
    AFTER INSERT OR UPDATE OF closed_by_id ON public.coupons_couponrange
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION public.coupons_range_follows_the_ledger()
"""

# The functions as migrations 0004 and 0010 left them (unpinned), for the reverse.
OLD_RANGE_ONLY_CLOSE = RANGE_ONLY_CLOSE.replace(PIN, "").replace("public.", "")
OLD_CLOSED_RANGE_IS_REPLACED = CLOSED_RANGE_IS_REPLACED.replace(PIN, "").replace("public.", "")


class Migration(migrations.Migration):
    dependencies = [("coupons", "0016_db_guards"), ("compliance", "0010_db_guards")]

    operations = [
        PostgresSQL(
            sql=[RANGE_ONLY_CLOSE, CLOSED_RANGE_IS_REPLACED, FOLLOWS_THE_LEDGER, FOLLOWS_THE_LEDGER_TRIGGER],
            reverse_sql=[
                "DROP TRIGGER IF EXISTS coupons_range_follows_the_ledger ON public.coupons_couponrange",
                "DROP FUNCTION IF EXISTS public.coupons_range_follows_the_ledger()",
                OLD_CLOSED_RANGE_IS_REPLACED,
                OLD_RANGE_ONLY_CLOSE,
            ],
        ),
    ]
