"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "submissions_boarddecision_append_only" BEFORE UPDATE OR DELETE ON public."submissions_boarddecision" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "submissions_gamingguide_signed_frozen" BEFORE UPDATE OR DELETE ON public."submissions_gamingguide" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('submissions', 'gamingguide', 'id')
""",
    """CREATE OR REPLACE TRIGGER "submissions_guideapproval_append_only" BEFORE UPDATE OR DELETE ON public."submissions_guideapproval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "submissions_historicalboarddecision_append_only" BEFORE UPDATE OR DELETE ON public."submissions_historicalboarddecision" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "submissions_historicalgamingguide_append_only" BEFORE UPDATE OR DELETE ON public."submissions_historicalgamingguide" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "submissions_historicalguideapproval_append_only" BEFORE UPDATE OR DELETE ON public."submissions_historicalguideapproval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "submissions_historicalrulessubmission_append_only" BEFORE UPDATE OR DELETE ON public."submissions_historicalrulessubmission" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "submissions_historicaltablesetting_append_only" BEFORE UPDATE OR DELETE ON public."submissions_historicaltablesetting" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "submissions_historicalwagerlimitchange_append_only" BEFORE UPDATE OR DELETE ON public."submissions_historicalwagerlimitchange" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "submissions_rulessubmission_signed_frozen" BEFORE UPDATE OR DELETE ON public."submissions_rulessubmission" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('submissions', 'rulessubmission', 'id')
""",
    """CREATE OR REPLACE TRIGGER "submissions_tablesetting_append_only" BEFORE UPDATE OR DELETE ON public."submissions_tablesetting" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "submissions_tablesetting_append_only" ON public."submissions_tablesetting"
""",
    """DROP TRIGGER IF EXISTS "submissions_rulessubmission_signed_frozen" ON public."submissions_rulessubmission"
""",
    """DROP TRIGGER IF EXISTS "submissions_historicalwagerlimitchange_append_only" ON public."submissions_historicalwagerlimitchange"
""",
    """DROP TRIGGER IF EXISTS "submissions_historicaltablesetting_append_only" ON public."submissions_historicaltablesetting"
""",
    """DROP TRIGGER IF EXISTS "submissions_historicalrulessubmission_append_only" ON public."submissions_historicalrulessubmission"
""",
    """DROP TRIGGER IF EXISTS "submissions_historicalguideapproval_append_only" ON public."submissions_historicalguideapproval"
""",
    """DROP TRIGGER IF EXISTS "submissions_historicalgamingguide_append_only" ON public."submissions_historicalgamingguide"
""",
    """DROP TRIGGER IF EXISTS "submissions_historicalboarddecision_append_only" ON public."submissions_historicalboarddecision"
""",
    """DROP TRIGGER IF EXISTS "submissions_guideapproval_append_only" ON public."submissions_guideapproval"
""",
    """DROP TRIGGER IF EXISTS "submissions_gamingguide_signed_frozen" ON public."submissions_gamingguide"
""",
    """DROP TRIGGER IF EXISTS "submissions_boarddecision_append_only" ON public."submissions_boarddecision"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('submissions', '0002_wager_limit_change_closed'),
        ('compliance', '0010_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
