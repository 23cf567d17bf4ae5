"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "exclusion_exclusionentry_append_only" BEFORE UPDATE OR DELETE ON public."exclusion_exclusionentry" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "exclusion_exclusionlist_signed_frozen" BEFORE UPDATE OR DELETE ON public."exclusion_exclusionlist" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('exclusion', 'exclusionlist', 'id')
""",
    """CREATE OR REPLACE TRIGGER "exclusion_historicalexclusionlist_append_only" BEFORE UPDATE OR DELETE ON public."exclusion_historicalexclusionlist" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "exclusion_historicalmatchdecision_append_only" BEFORE UPDATE OR DELETE ON public."exclusion_historicalmatchdecision" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "exclusion_historicalscreeningrun_append_only" BEFORE UPDATE OR DELETE ON public."exclusion_historicalscreeningrun" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "exclusion_matchdecision_signed_frozen" BEFORE UPDATE OR DELETE ON public."exclusion_matchdecision" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('exclusion', 'matchdecision', 'id')
""",
    """CREATE OR REPLACE TRIGGER "exclusion_screeningmatch_append_only" BEFORE UPDATE OR DELETE ON public."exclusion_screeningmatch" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "exclusion_screeningrun_append_only" BEFORE UPDATE OR DELETE ON public."exclusion_screeningrun" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "exclusion_screeningrun_append_only" ON public."exclusion_screeningrun"
""",
    """DROP TRIGGER IF EXISTS "exclusion_screeningmatch_append_only" ON public."exclusion_screeningmatch"
""",
    """DROP TRIGGER IF EXISTS "exclusion_matchdecision_signed_frozen" ON public."exclusion_matchdecision"
""",
    """DROP TRIGGER IF EXISTS "exclusion_historicalscreeningrun_append_only" ON public."exclusion_historicalscreeningrun"
""",
    """DROP TRIGGER IF EXISTS "exclusion_historicalmatchdecision_append_only" ON public."exclusion_historicalmatchdecision"
""",
    """DROP TRIGGER IF EXISTS "exclusion_historicalexclusionlist_append_only" ON public."exclusion_historicalexclusionlist"
""",
    """DROP TRIGGER IF EXISTS "exclusion_exclusionlist_signed_frozen" ON public."exclusion_exclusionlist"
""",
    """DROP TRIGGER IF EXISTS "exclusion_exclusionentry_append_only" ON public."exclusion_exclusionentry"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('exclusion', '0001_initial'),
        ('compliance', '0010_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
