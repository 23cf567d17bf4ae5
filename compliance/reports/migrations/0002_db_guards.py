"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "reports_historicalreportfiling_append_only" BEFORE UPDATE OR DELETE ON public."reports_historicalreportfiling" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "reports_historicalreportrun_append_only" BEFORE UPDATE OR DELETE ON public."reports_historicalreportrun" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "reports_historicalreportsignoff_append_only" BEFORE UPDATE OR DELETE ON public."reports_historicalreportsignoff" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "reports_reportfile_append_only" BEFORE UPDATE OR DELETE ON public."reports_reportfile" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE FUNCTION public.reports_reportfile_signed_part() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NOT (NEW.format = 'signed.pdf') AND public.compliance_is_signed('reports', 'reportsignoff', (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = NEW.run_id LIMIT 1)) THEN
            RAISE EXCEPTION 'report signoff #% is signed: nothing is added to it (INSERT refused)', (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = NEW.run_id LIMIT 1)
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF public.compliance_is_signed('reports', 'reportsignoff', (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = OLD.run_id LIMIT 1)) THEN
            RAISE EXCEPTION 'report file #% is part of signed report signoff #%: DELETE refused', OLD.id, (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = OLD.run_id LIMIT 1)
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF to_jsonb(NEW) IS DISTINCT FROM to_jsonb(OLD) AND (public.compliance_is_signed('reports', 'reportsignoff', (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = OLD.run_id LIMIT 1)) OR public.compliance_is_signed('reports', 'reportsignoff', (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = NEW.run_id LIMIT 1))) THEN
        RAISE EXCEPTION 'report file #% is part of signed report signoff #%: UPDATE refused (record a correction instead)',
            OLD.id, (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = OLD.run_id LIMIT 1) USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$
""",
    """CREATE OR REPLACE TRIGGER "reports_reportfile_signed_part" BEFORE INSERT OR UPDATE OR DELETE ON public."reports_reportfile" FOR EACH ROW EXECUTE FUNCTION public.reports_reportfile_signed_part()
""",
    """CREATE OR REPLACE TRIGGER "reports_reportfilecontent_append_only" BEFORE UPDATE OR DELETE ON public."reports_reportfilecontent" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "reports_reportfiling_append_only" BEFORE UPDATE OR DELETE ON public."reports_reportfiling" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE FUNCTION public.reports_reportrun_signed_part() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF public.compliance_is_signed('reports', 'reportsignoff', (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = NEW.id LIMIT 1)) THEN
            RAISE EXCEPTION 'report signoff #% is signed: nothing is added to it (INSERT refused)', (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = NEW.id LIMIT 1)
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF public.compliance_is_signed('reports', 'reportsignoff', (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = OLD.id LIMIT 1)) THEN
            RAISE EXCEPTION 'report run #% is part of signed report signoff #%: DELETE refused', OLD.id, (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = OLD.id LIMIT 1)
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF ROW(NEW.kind, NEW.period_start, NEW.period_end, NEW.version, NEW.chain_digest) IS DISTINCT FROM ROW(OLD.kind, OLD.period_start, OLD.period_end, OLD.version, OLD.chain_digest) AND (public.compliance_is_signed('reports', 'reportsignoff', (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = OLD.id LIMIT 1)) OR public.compliance_is_signed('reports', 'reportsignoff', (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = NEW.id LIMIT 1))) THEN
        RAISE EXCEPTION 'report run #% is part of signed report signoff #%: UPDATE refused (record a correction instead)',
            OLD.id, (SELECT x.id FROM public.reports_reportsignoff x WHERE x.run_id = OLD.id LIMIT 1) USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$
""",
    """CREATE OR REPLACE TRIGGER "reports_reportrun_signed_part" BEFORE INSERT OR UPDATE OR DELETE ON public."reports_reportrun" FOR EACH ROW EXECUTE FUNCTION public.reports_reportrun_signed_part()
""",
    """CREATE OR REPLACE TRIGGER "reports_reportsignoff_signed_frozen" BEFORE UPDATE OR DELETE ON public."reports_reportsignoff" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('reports', 'reportsignoff', 'id')
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "reports_reportsignoff_signed_frozen" ON public."reports_reportsignoff"
""",
    """DROP TRIGGER IF EXISTS "reports_reportrun_signed_part" ON public."reports_reportrun"
""",
    """DROP FUNCTION IF EXISTS public.reports_reportrun_signed_part()
""",
    """DROP TRIGGER IF EXISTS "reports_reportfiling_append_only" ON public."reports_reportfiling"
""",
    """DROP TRIGGER IF EXISTS "reports_reportfilecontent_append_only" ON public."reports_reportfilecontent"
""",
    """DROP TRIGGER IF EXISTS "reports_reportfile_signed_part" ON public."reports_reportfile"
""",
    """DROP FUNCTION IF EXISTS public.reports_reportfile_signed_part()
""",
    """DROP TRIGGER IF EXISTS "reports_reportfile_append_only" ON public."reports_reportfile"
""",
    """DROP TRIGGER IF EXISTS "reports_historicalreportsignoff_append_only" ON public."reports_historicalreportsignoff"
""",
    """DROP TRIGGER IF EXISTS "reports_historicalreportrun_append_only" ON public."reports_historicalreportrun"
""",
    """DROP TRIGGER IF EXISTS "reports_historicalreportfiling_append_only" ON public."reports_historicalreportfiling"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('reports', '0001_initial'),
        ('compliance', '0010_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
