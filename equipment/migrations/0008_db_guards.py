"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "equipment_deckremoval_signed_frozen" BEFORE UPDATE OR DELETE ON public."equipment_deckremoval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('equipment', 'deckremoval', 'id')
""",
    """CREATE OR REPLACE TRIGGER "equipment_deckset_signed_frozen" BEFORE UPDATE OR DELETE ON public."equipment_deckset" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('equipment', 'deckset', 'id', 'removed_at')
""",
    """CREATE OR REPLACE TRIGGER "equipment_devicebackinservice_signed_frozen" BEFORE UPDATE OR DELETE ON public."equipment_devicebackinservice" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('equipment', 'devicebackinservice', 'id')
""",
    """CREATE OR REPLACE TRIGGER "equipment_diceremoval_signed_frozen" BEFORE UPDATE OR DELETE ON public."equipment_diceremoval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('equipment', 'diceremoval', 'id')
""",
    """CREATE OR REPLACE TRIGGER "equipment_diceset_signed_frozen" BEFORE UPDATE OR DELETE ON public."equipment_diceset" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('equipment', 'diceset', 'id', 'removed_at')
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicaldeckremoval_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicaldeckremoval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicaldeckset_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicaldeckset" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicaldevicebackinservice_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicaldevicebackinservice" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicaldiceregisterentry_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicaldiceregisterentry" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicaldiceremoval_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicaldiceremoval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicaldiceset_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicaldiceset" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicalequipmentalert_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicalequipmentalert" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicalequipmentrequirement_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicalequipmentrequirement" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicalmalfunction_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicalmalfunction" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicalopeninginspection_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicalopeninginspection" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicaltabledicemethod_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicaltabledicemethod" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_historicaltablesession_append_only" BEFORE UPDATE OR DELETE ON public."equipment_historicaltablesession" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "equipment_malfunction_signed_frozen" BEFORE UPDATE OR DELETE ON public."equipment_malfunction" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('equipment', 'malfunction', 'id')
""",
    """CREATE OR REPLACE TRIGGER "equipment_openinginspection_signed_frozen" BEFORE UPDATE OR DELETE ON public."equipment_openinginspection" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('equipment', 'openinginspection', 'id')
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "equipment_openinginspection_signed_frozen" ON public."equipment_openinginspection"
""",
    """DROP TRIGGER IF EXISTS "equipment_malfunction_signed_frozen" ON public."equipment_malfunction"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicaltablesession_append_only" ON public."equipment_historicaltablesession"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicaltabledicemethod_append_only" ON public."equipment_historicaltabledicemethod"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicalopeninginspection_append_only" ON public."equipment_historicalopeninginspection"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicalmalfunction_append_only" ON public."equipment_historicalmalfunction"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicalequipmentrequirement_append_only" ON public."equipment_historicalequipmentrequirement"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicalequipmentalert_append_only" ON public."equipment_historicalequipmentalert"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicaldiceset_append_only" ON public."equipment_historicaldiceset"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicaldiceremoval_append_only" ON public."equipment_historicaldiceremoval"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicaldiceregisterentry_append_only" ON public."equipment_historicaldiceregisterentry"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicaldevicebackinservice_append_only" ON public."equipment_historicaldevicebackinservice"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicaldeckset_append_only" ON public."equipment_historicaldeckset"
""",
    """DROP TRIGGER IF EXISTS "equipment_historicaldeckremoval_append_only" ON public."equipment_historicaldeckremoval"
""",
    """DROP TRIGGER IF EXISTS "equipment_diceset_signed_frozen" ON public."equipment_diceset"
""",
    """DROP TRIGGER IF EXISTS "equipment_diceremoval_signed_frozen" ON public."equipment_diceremoval"
""",
    """DROP TRIGGER IF EXISTS "equipment_devicebackinservice_signed_frozen" ON public."equipment_devicebackinservice"
""",
    """DROP TRIGGER IF EXISTS "equipment_deckset_signed_frozen" ON public."equipment_deckset"
""",
    """DROP TRIGGER IF EXISTS "equipment_deckremoval_signed_frozen" ON public."equipment_deckremoval"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('equipment', '0007_integer_bounds'),
        ('compliance', '0010_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
