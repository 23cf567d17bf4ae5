"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE FUNCTION public.coupons_financedayfigure_signed_part() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF public.compliance_is_signed('coupons', 'financedayprocessing', NEW.processing_id) THEN
            RAISE EXCEPTION 'finance day processing #% is signed: nothing is added to it (INSERT refused)', NEW.processing_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF public.compliance_is_signed('coupons', 'financedayprocessing', OLD.processing_id) THEN
            RAISE EXCEPTION 'finance day figure #% is part of signed finance day processing #%: DELETE refused', OLD.id, OLD.processing_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF to_jsonb(NEW) IS DISTINCT FROM to_jsonb(OLD) AND (public.compliance_is_signed('coupons', 'financedayprocessing', OLD.processing_id) OR public.compliance_is_signed('coupons', 'financedayprocessing', NEW.processing_id)) THEN
        RAISE EXCEPTION 'finance day figure #% is part of signed finance day processing #%: UPDATE refused (record a correction instead)',
            OLD.id, OLD.processing_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$
""",
    """CREATE OR REPLACE TRIGGER "coupons_financedayfigure_signed_part" BEFORE INSERT OR UPDATE OR DELETE ON public."coupons_financedayfigure" FOR EACH ROW EXECUTE FUNCTION public.coupons_financedayfigure_signed_part()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalfinancedayfigure_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalfinancedayfigure" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalrequisitioncancellation_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalrequisitioncancellation" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_requisitioncancellation_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_requisitioncancellation" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'requisitioncancellation', 'id')
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "coupons_requisitioncancellation_signed_frozen" ON public."coupons_requisitioncancellation"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalrequisitioncancellation_append_only" ON public."coupons_historicalrequisitioncancellation"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalfinancedayfigure_append_only" ON public."coupons_historicalfinancedayfigure"
""",
    """DROP TRIGGER IF EXISTS "coupons_financedayfigure_signed_part" ON public."coupons_financedayfigure"
""",
    """DROP FUNCTION IF EXISTS public.coupons_financedayfigure_signed_part()
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('coupons', '0029_requisition_cancellation_finance_figures'),
        ('compliance', '0017_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
