"""A decided second-factor reset never changes, and no reset is deleted (issue 22): PostgreSQL refuses it,
whoever connects as the application (the model refuses it in words first)."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

FUNCTION = """
CREATE FUNCTION public.compliance_refuse_decided_reset() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'second-factor resets are never deleted' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.outcome <> 'pending' THEN
        RAISE EXCEPTION 'second-factor reset % is %: it can no longer change', OLD.id, OLD.outcome
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.person_id <> OLD.person_id OR NEW.requested_by_id <> OLD.requested_by_id OR NEW.reason <> OLD.reason
            OR NEW.requested_at <> OLD.requested_at THEN
        RAISE EXCEPTION 'second-factor reset %: only its decision is recorded after it was asked', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$
"""

TRIGGER = ("CREATE TRIGGER compliance_secondfactorreset_final BEFORE UPDATE OR DELETE ON public.compliance_secondfactorreset "
           "FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_decided_reset()")


class Migration(migrations.Migration):
    dependencies = [("compliance", "0014_db_guards")]

    operations = [
        PostgresSQL(
            sql=[FUNCTION, TRIGGER],
            reverse_sql=["DROP TRIGGER IF EXISTS compliance_secondfactorreset_final ON public.compliance_secondfactorreset",
                         "DROP FUNCTION IF EXISTS public.compliance_refuse_decided_reset()"],
        )
    ]
