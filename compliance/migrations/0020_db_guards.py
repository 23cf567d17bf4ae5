"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path.

Here: the append-only trigger's one way out, for the yearly archive (compliance.archive): the table's owner may
delete a live row under the archive step's setting, which moves it into the archive schema in the same statement.
The reverse puts the function back as it was (dropping it would take every append-only trigger with it)."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE FUNCTION public.compliance_refuse_change() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'DELETE' AND TG_TABLE_SCHEMA = 'public'
            AND current_setting('compliance.archive_move', true) = TG_TABLE_NAME
            AND pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID),
                            'USAGE') THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION '% rows are append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$
""",
]

REVERSE_SQL = [
    """CREATE OR REPLACE FUNCTION public.compliance_refuse_change() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    RAISE EXCEPTION '% rows are append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('compliance', '0019_audit_action_index'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
