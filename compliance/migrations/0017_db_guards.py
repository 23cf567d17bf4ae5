"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "compliance_historicaltablebreach_append_only" BEFORE UPDATE OR DELETE ON public."compliance_historicaltablebreach" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "compliance_historicaltablebreach_append_only" ON public."compliance_historicaltablebreach"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('compliance', '0016_table_breaches'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
