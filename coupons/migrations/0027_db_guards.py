"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "coupons_historicalmailingprovider_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalmailingprovider" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalserviceprovider_append_only" ON public."coupons_historicalmailingprovider"
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "coupons_historicalmailingprovider_append_only" ON public."coupons_historicalmailingprovider"
""",
    # The trigger as it was, under its old name, so 0026 reversed takes it back with the table.
    """CREATE OR REPLACE TRIGGER "coupons_historicalserviceprovider_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalmailingprovider" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('coupons', '0026_mailing_provider'),
        ('compliance', '0017_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
