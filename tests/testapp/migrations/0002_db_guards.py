"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "testapp_examinationform_signed_frozen" BEFORE UPDATE OR DELETE ON public."testapp_examinationform" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('testapp', 'examinationform', 'id')
""",
    """CREATE OR REPLACE TRIGGER "testapp_historicalexaminationform_append_only" BEFORE UPDATE OR DELETE ON public."testapp_historicalexaminationform" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "testapp_historicaltwopersonform_append_only" BEFORE UPDATE OR DELETE ON public."testapp_historicaltwopersonform" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "testapp_twopersonform_signed_frozen" BEFORE UPDATE OR DELETE ON public."testapp_twopersonform" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('testapp', 'twopersonform', 'id')
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "testapp_twopersonform_signed_frozen" ON public."testapp_twopersonform"
""",
    """DROP TRIGGER IF EXISTS "testapp_historicaltwopersonform_append_only" ON public."testapp_historicaltwopersonform"
""",
    """DROP TRIGGER IF EXISTS "testapp_historicalexaminationform_append_only" ON public."testapp_historicalexaminationform"
""",
    """DROP TRIGGER IF EXISTS "testapp_examinationform_signed_frozen" ON public."testapp_examinationform"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('testapp', '0001_initial'),
        ('compliance', '0010_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
