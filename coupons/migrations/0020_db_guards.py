"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "coupons_historicalmailinglistimport_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalmailinglistimport" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_mailinglistfile_append_only" BEFORE UPDATE OR DELETE ON public."coupons_mailinglistfile" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "coupons_mailinglistfile_append_only" ON public."coupons_mailinglistfile"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalmailinglistimport_append_only" ON public."coupons_historicalmailinglistimport"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('coupons', '0019_mailing_list_import'),
        ('compliance', '0015_second_factor_reset_final'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
