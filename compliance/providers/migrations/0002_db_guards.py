"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "providers_historicalbusinesspermission_append_only" BEFORE UPDATE OR DELETE ON public."providers_historicalbusinesspermission" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "providers_historicalcertification_append_only" BEFORE UPDATE OR DELETE ON public."providers_historicalcertification" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "providers_historicalgamingprovider_append_only" BEFORE UPDATE OR DELETE ON public."providers_historicalgamingprovider" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "providers_historicalofferingapproval_append_only" BEFORE UPDATE OR DELETE ON public."providers_historicalofferingapproval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "providers_historicalprovideroffering_append_only" BEFORE UPDATE OR DELETE ON public."providers_historicalprovideroffering" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "providers_historicalrenewalreminder_append_only" BEFORE UPDATE OR DELETE ON public."providers_historicalrenewalreminder" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "providers_historicaltableoffering_append_only" BEFORE UPDATE OR DELETE ON public."providers_historicaltableoffering" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "providers_historicaltableoffering_append_only" ON public."providers_historicaltableoffering"
""",
    """DROP TRIGGER IF EXISTS "providers_historicalrenewalreminder_append_only" ON public."providers_historicalrenewalreminder"
""",
    """DROP TRIGGER IF EXISTS "providers_historicalprovideroffering_append_only" ON public."providers_historicalprovideroffering"
""",
    """DROP TRIGGER IF EXISTS "providers_historicalofferingapproval_append_only" ON public."providers_historicalofferingapproval"
""",
    """DROP TRIGGER IF EXISTS "providers_historicalgamingprovider_append_only" ON public."providers_historicalgamingprovider"
""",
    """DROP TRIGGER IF EXISTS "providers_historicalcertification_append_only" ON public."providers_historicalcertification"
""",
    """DROP TRIGGER IF EXISTS "providers_historicalbusinesspermission_append_only" ON public."providers_historicalbusinesspermission"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('providers', '0001_initial'),
        ('compliance', '0010_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
