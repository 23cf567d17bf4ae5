"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE FUNCTION public.testapp_formline_signed_part() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF public.compliance_is_signed('testapp', 'twopersonform', NEW.form_id) THEN
            RAISE EXCEPTION 'two person form #% is signed: nothing is added to it (INSERT refused)', NEW.form_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF public.compliance_is_signed('testapp', 'twopersonform', OLD.form_id) THEN
            RAISE EXCEPTION 'form line #% is part of signed two person form #%: DELETE refused', OLD.id, OLD.form_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF to_jsonb(NEW) IS DISTINCT FROM to_jsonb(OLD) AND (public.compliance_is_signed('testapp', 'twopersonform', OLD.form_id) OR public.compliance_is_signed('testapp', 'twopersonform', NEW.form_id)) THEN
        RAISE EXCEPTION 'form line #% is part of signed two person form #%: UPDATE refused (record a correction instead)',
            OLD.id, OLD.form_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$
""",
    """CREATE OR REPLACE TRIGGER "testapp_formline_signed_part" BEFORE INSERT OR UPDATE OR DELETE ON public."testapp_formline" FOR EACH ROW EXECUTE FUNCTION public.testapp_formline_signed_part()
""",
    """CREATE OR REPLACE TRIGGER "testapp_historicalformline_append_only" BEFORE UPDATE OR DELETE ON public."testapp_historicalformline" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "testapp_historicalformline_append_only" ON public."testapp_historicalformline"
""",
    """DROP TRIGGER IF EXISTS "testapp_formline_signed_part" ON public."testapp_formline"
""",
    """DROP FUNCTION IF EXISTS public.testapp_formline_signed_part()
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('testapp', '0003_form_line'),
        ('compliance', '0010_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
