"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "providers_historicalproviderfiling_append_only" BEFORE UPDATE OR DELETE ON public."providers_historicalproviderfiling" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "providers_providerfiling_append_only" BEFORE UPDATE OR DELETE ON public."providers_providerfiling" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "providers_providerfilingdocument_append_only" BEFORE UPDATE OR DELETE ON public."providers_providerfilingdocument" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "providers_providerfilingdocument_append_only" ON public."providers_providerfilingdocument"
""",
    """DROP TRIGGER IF EXISTS "providers_providerfiling_append_only" ON public."providers_providerfiling"
""",
    """DROP TRIGGER IF EXISTS "providers_historicalproviderfiling_append_only" ON public."providers_historicalproviderfiling"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('providers', '0003_provider_filings'),
        ('compliance', '0014_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
