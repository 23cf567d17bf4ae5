"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "equipment_approvalwithdrawal_append_only" BEFORE UPDATE OR DELETE ON public."equipment_approvalwithdrawal" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_equipmentapproval_append_only" BEFORE UPDATE OR DELETE ON public."equipment_equipmentapproval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicalapprovalwithdrawal_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicalapprovalwithdrawal" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicalequipmentapproval_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicalequipmentapproval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "equipment_historicalequipmentapproval_append_only" ON public."equipment_historicalequipmentapproval"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicalapprovalwithdrawal_append_only" ON public."equipment_historicalapprovalwithdrawal"
""",
    """DROP TRIGGER IF EXISTS "equipment_equipmentapproval_append_only" ON public."equipment_equipmentapproval"
""",
    """DROP TRIGGER IF EXISTS "equipment_approvalwithdrawal_append_only" ON public."equipment_approvalwithdrawal"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('equipment', '0009_equipment_approvals'),
        ('compliance', '0017_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
