"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE FUNCTION public.compliance_refuse_change() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    RAISE EXCEPTION '% rows are append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$
""",
    """CREATE OR REPLACE FUNCTION public.compliance_is_signed(p_app_label text, p_model text, p_record_id bigint) RETURNS boolean LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    RETURN EXISTS (
        SELECT 1 FROM public.compliance_signature s
        JOIN public.django_content_type c ON c.id = s.content_type_id
        WHERE c.app_label = p_app_label AND c.model = p_model AND s.object_id = p_record_id
    );
END;
$$
""",
    """CREATE OR REPLACE FUNCTION public.compliance_refuse_signed_change() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    -- TG_ARGV: app label, model name, key column, then the unsigned marker columns.
    unsigned text[] := TG_ARGV[3:];
    record_id bigint := (to_jsonb(OLD) ->> TG_ARGV[2])::bigint;
BEGIN
    IF NOT public.compliance_is_signed(TG_ARGV[0], TG_ARGV[1], record_id) THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - unsigned) = (to_jsonb(OLD) - unsigned) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% #% is signed: % refused (record a correction instead)', TG_TABLE_NAME, record_id, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$
""",
    """CREATE OR REPLACE FUNCTION public.compliance_written_in_this_transaction(row_xmin xid) RETURNS boolean LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    top bigint := pg_current_xact_id()::text::bigint;
    low bigint := top & 4294967295;
    epoch bigint := top >> 32;
    x bigint := row_xmin::text::bigint;
    candidate bigint;
BEGIN
    IF x < 3 THEN
        RETURN false;  -- frozen or bootstrap rows
    END IF;
    IF x >= low THEN
        IF x - low >= 2147483648 THEN RETURN false; END IF;
        candidate := (epoch << 32) | x;
    ELSE
        IF low - x < 2147483648 THEN RETURN false; END IF;  -- older than this transaction
        candidate := ((epoch + 1) << 32) | x;
    END IF;
    RETURN pg_xact_status(candidate::text::xid8) = 'in progress';
END;
$$
""",
    """CREATE OR REPLACE TRIGGER "compliance_chainlink_append_only" BEFORE UPDATE OR DELETE ON public."compliance_chainlink" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "compliance_historicaldepartment_append_only" BEFORE UPDATE OR DELETE ON public."compliance_historicaldepartment" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "compliance_historicalfacility_append_only" BEFORE UPDATE OR DELETE ON public."compliance_historicalfacility" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "compliance_historicalgame_append_only" BEFORE UPDATE OR DELETE ON public."compliance_historicalgame" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "compliance_historicalgamingtable_append_only" BEFORE UPDATE OR DELETE ON public."compliance_historicalgamingtable" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "compliance_historicalprofile_append_only" BEFORE UPDATE OR DELETE ON public."compliance_historicalprofile" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "compliance_historicalprofile_append_only" ON public."compliance_historicalprofile"
""",
    """DROP TRIGGER IF EXISTS "compliance_historicalgamingtable_append_only" ON public."compliance_historicalgamingtable"
""",
    """DROP TRIGGER IF EXISTS "compliance_historicalgame_append_only" ON public."compliance_historicalgame"
""",
    """DROP TRIGGER IF EXISTS "compliance_historicalfacility_append_only" ON public."compliance_historicalfacility"
""",
    """DROP TRIGGER IF EXISTS "compliance_historicaldepartment_append_only" ON public."compliance_historicaldepartment"
""",
    """DROP TRIGGER IF EXISTS "compliance_chainlink_append_only" ON public."compliance_chainlink"
""",
    """DROP FUNCTION IF EXISTS public.compliance_written_in_this_transaction(xid)
""",
    """DROP FUNCTION IF EXISTS public.compliance_refuse_signed_change()
""",
    """DROP FUNCTION IF EXISTS public.compliance_is_signed(text, text, bigint)
""",
    """DROP FUNCTION IF EXISTS public.compliance_refuse_change()
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('compliance', '0009_integer_bounds'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
