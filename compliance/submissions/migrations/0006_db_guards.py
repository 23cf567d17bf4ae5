"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "submissions_historicalsignapproval_append_only" BEFORE UPDATE OR DELETE ON public."submissions_historicalsignapproval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "submissions_signapproval_append_only" BEFORE UPDATE OR DELETE ON public."submissions_signapproval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "submissions_signapproval_append_only" ON public."submissions_signapproval"
""",
    """DROP TRIGGER IF EXISTS "submissions_historicalsignapproval_append_only" ON public."submissions_historicalsignapproval"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('submissions', '0005_sign_approvals'),
        ('compliance', '0015_second_factor_reset_final'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
