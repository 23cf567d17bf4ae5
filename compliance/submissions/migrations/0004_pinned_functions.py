"""The closed wager limit change guard of migration 0002, recreated with its search_path pinned (issue 21)."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

BODY = """
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'wager limit changes are never deleted' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.state <> 'scheduled' THEN
        RAISE EXCEPTION 'wager limit change % is %: it can no longer change', OLD.id, OLD.state
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
"""

PINNED = ("CREATE OR REPLACE FUNCTION public.submissions_refuse_closed_limit_change() RETURNS trigger LANGUAGE plpgsql "
          f"SET search_path = pg_catalog, public, pg_temp AS $${BODY}$$")
UNPINNED = f"CREATE OR REPLACE FUNCTION submissions_refuse_closed_limit_change() RETURNS trigger AS $${BODY}$$ LANGUAGE plpgsql"


class Migration(migrations.Migration):
    dependencies = [("submissions", "0003_db_guards")]

    operations = [PostgresSQL(sql=[PINNED], reverse_sql=[UNPINNED])]
