"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "newgames_historicalnewgamerequest_append_only" BEFORE UPDATE OR DELETE ON public."newgames_historicalnewgamerequest" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "newgames_historicalrequestpicture_append_only" BEFORE UPDATE OR DELETE ON public."newgames_historicalrequestpicture" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "newgames_newgamerequest_signed_frozen" BEFORE UPDATE OR DELETE ON public."newgames_newgamerequest" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('newgames', 'newgamerequest', 'id')
""",
    """CREATE OR REPLACE TRIGGER "newgames_requestpicture_append_only" BEFORE UPDATE OR DELETE ON public."newgames_requestpicture" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE FUNCTION public.newgames_requestpicture_signed_part() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF public.compliance_is_signed('newgames', 'newgamerequest', NEW.request_id) THEN
            RAISE EXCEPTION 'new game request #% is signed: nothing is added to it (INSERT refused)', NEW.request_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF public.compliance_is_signed('newgames', 'newgamerequest', OLD.request_id) THEN
            RAISE EXCEPTION 'request picture #% is part of signed new game request #%: DELETE refused', OLD.id, OLD.request_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF to_jsonb(NEW) IS DISTINCT FROM to_jsonb(OLD) AND (public.compliance_is_signed('newgames', 'newgamerequest', OLD.request_id) OR public.compliance_is_signed('newgames', 'newgamerequest', NEW.request_id)) THEN
        RAISE EXCEPTION 'request picture #% is part of signed new game request #%: UPDATE refused (record a correction instead)',
            OLD.id, OLD.request_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$
""",
    """CREATE OR REPLACE TRIGGER "newgames_requestpicture_signed_part" BEFORE INSERT OR UPDATE OR DELETE ON public."newgames_requestpicture" FOR EACH ROW EXECUTE FUNCTION public.newgames_requestpicture_signed_part()
""",
    """CREATE OR REPLACE TRIGGER "newgames_requestpicturecontent_append_only" BEFORE UPDATE OR DELETE ON public."newgames_requestpicturecontent" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "newgames_requestpicturecontent_append_only" ON public."newgames_requestpicturecontent"
""",
    """DROP TRIGGER IF EXISTS "newgames_requestpicture_signed_part" ON public."newgames_requestpicture"
""",
    """DROP FUNCTION IF EXISTS public.newgames_requestpicture_signed_part()
""",
    """DROP TRIGGER IF EXISTS "newgames_requestpicture_append_only" ON public."newgames_requestpicture"
""",
    """DROP TRIGGER IF EXISTS "newgames_newgamerequest_signed_frozen" ON public."newgames_newgamerequest"
""",
    """DROP TRIGGER IF EXISTS "newgames_historicalrequestpicture_append_only" ON public."newgames_historicalrequestpicture"
""",
    """DROP TRIGGER IF EXISTS "newgames_historicalnewgamerequest_append_only" ON public."newgames_historicalnewgamerequest"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('newgames', '0001_initial'),
        ('compliance', '0010_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
