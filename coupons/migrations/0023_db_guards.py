"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "coupons_historicalredemptionposting_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalredemptionposting" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_redemptionposting_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_redemptionposting" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'redemptionposting', 'id')
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "coupons_redemptionposting_signed_frozen" ON public."coupons_redemptionposting"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalredemptionposting_append_only" ON public."coupons_historicalredemptionposting"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('coupons', '0022_redemption_posting'),
        ('compliance', '0017_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
