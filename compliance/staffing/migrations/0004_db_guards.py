"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "staffing_historicalassignment_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalassignment" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_historicalcamera_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalcamera" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_historicalcameracoverage_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalcameracoverage" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_historicalcameraoutage_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalcameraoutage" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_historicalcamerarule_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalcamerarule" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_historicalroster_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalroster" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_historicalshift_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalshift" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_historicalspanrule_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalspanrule" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_historicalstaffingoverride_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalstaffingoverride" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_historicalstaffingrule_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalstaffingrule" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_historicalviolationperiod_append_only" BEFORE UPDATE OR DELETE ON public."staffing_historicalviolationperiod" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "staffing_staffingoverride_signed_frozen" BEFORE UPDATE OR DELETE ON public."staffing_staffingoverride" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('staffing', 'staffingoverride', 'id', 'used_at')
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "staffing_staffingoverride_signed_frozen" ON public."staffing_staffingoverride"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalviolationperiod_append_only" ON public."staffing_historicalviolationperiod"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalstaffingrule_append_only" ON public."staffing_historicalstaffingrule"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalstaffingoverride_append_only" ON public."staffing_historicalstaffingoverride"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalspanrule_append_only" ON public."staffing_historicalspanrule"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalshift_append_only" ON public."staffing_historicalshift"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalroster_append_only" ON public."staffing_historicalroster"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalcamerarule_append_only" ON public."staffing_historicalcamerarule"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalcameraoutage_append_only" ON public."staffing_historicalcameraoutage"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalcameracoverage_append_only" ON public."staffing_historicalcameracoverage"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalcamera_append_only" ON public."staffing_historicalcamera"
""",
    """DROP TRIGGER IF EXISTS "staffing_historicalassignment_append_only" ON public."staffing_historicalassignment"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('staffing', '0003_table_end_labels'),
        ('compliance', '0010_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
