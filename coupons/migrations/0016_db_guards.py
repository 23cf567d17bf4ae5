"""The database guards this app's models declare (compliance.db_guards), written by
``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a
signed record's content frozen with it. PostgreSQL only; every function pins its search_path."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

SQL = [
    """CREATE OR REPLACE TRIGGER "coupons_coupondistribution_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_coupondistribution" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'coupondistribution', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_couponexpiry_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_couponexpiry" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'couponexpiry', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_couponinventory_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_couponinventory" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'couponinventory', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_couponissuance_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_couponissuance" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'couponissuance', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_couponreceipt_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_couponreceipt" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'couponreceipt', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_couponrequisition_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_couponrequisition" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'couponrequisition', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_couponreturn_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_couponreturn" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'couponreturn', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_couponreversal_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_couponreversal" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'couponreversal', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_couponvoid_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_couponvoid" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'couponvoid', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_dropcount_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_dropcount" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'dropcount', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_dropcountitem_append_only" BEFORE UPDATE OR DELETE ON public."coupons_dropcountitem" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_financedayprocessing_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_financedayprocessing" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'financedayprocessing', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_formcorrection_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_formcorrection" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'formcorrection', 'id', 'applied_on')
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcoupondistribution_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcoupondistribution" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponexpiry_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponexpiry" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponinventory_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponinventory" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponissuance_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponissuance" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponprogram_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponprogram" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponrange_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponrange" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponreceipt_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponreceipt" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponrequisition_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponrequisition" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponreturn_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponreturn" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponreversal_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponreversal" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponseries_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponseries" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalcouponvoid_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalcouponvoid" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicaldeviationreport_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicaldeviationreport" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicaldropcount_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicaldropcount" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicaldropcountitem_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicaldropcountitem" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalexceptionreport_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalexceptionreport" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalfinancedayprocessing_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalfinancedayprocessing" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalformcorrection_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalformcorrection" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalinventorycount_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalinventorycount" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalinventoryreminder_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalinventoryreminder" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalledgerline_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalledgerline" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalmailedcoupon_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalmailedcoupon" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalmailingcampaign_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalmailingcampaign" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalmailingrecipient_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalmailingrecipient" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalmailingscreening_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalmailingscreening" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalprogramapproval_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalprogramapproval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalreconciliationfigure_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalreconciliationfigure" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalreconciliationform_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalreconciliationform" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalredemption_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalredemption" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalscannerdevice_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalscannerdevice" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalserviceprovider_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalserviceprovider" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_historicalstoragelocation_append_only" BEFORE UPDATE OR DELETE ON public."coupons_historicalstoragelocation" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE FUNCTION public.coupons_inventorycount_signed_part() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF public.compliance_is_signed('coupons', 'couponinventory', NEW.inventory_id) THEN
            RAISE EXCEPTION 'coupon inventory #% is signed: nothing is added to it (INSERT refused)', NEW.inventory_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF public.compliance_is_signed('coupons', 'couponinventory', OLD.inventory_id) THEN
            RAISE EXCEPTION 'inventory count #% is part of signed coupon inventory #%: DELETE refused', OLD.id, OLD.inventory_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF to_jsonb(NEW) IS DISTINCT FROM to_jsonb(OLD) AND (public.compliance_is_signed('coupons', 'couponinventory', OLD.inventory_id) OR public.compliance_is_signed('coupons', 'couponinventory', NEW.inventory_id)) THEN
        RAISE EXCEPTION 'inventory count #% is part of signed coupon inventory #%: UPDATE refused (record a correction instead)',
            OLD.id, OLD.inventory_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$
""",
    """CREATE OR REPLACE TRIGGER "coupons_inventorycount_signed_part" BEFORE INSERT OR UPDATE OR DELETE ON public."coupons_inventorycount" FOR EACH ROW EXECUTE FUNCTION public.coupons_inventorycount_signed_part()
""",
    """CREATE OR REPLACE TRIGGER "coupons_mailedcoupon_append_only" BEFORE UPDATE OR DELETE ON public."coupons_mailedcoupon" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_mailingcampaign_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_mailingcampaign" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'mailingcampaign', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_mailingrecipient_append_only" BEFORE UPDATE OR DELETE ON public."coupons_mailingrecipient" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_programapproval_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_programapproval" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'programapproval', 'id')
""",
    """CREATE OR REPLACE FUNCTION public.coupons_reconciliationfigure_signed_part() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF public.compliance_is_signed('coupons', 'reconciliationform', NEW.form_id) THEN
            RAISE EXCEPTION 'reconciliation form #% is signed: nothing is added to it (INSERT refused)', NEW.form_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF public.compliance_is_signed('coupons', 'reconciliationform', OLD.form_id) THEN
            RAISE EXCEPTION 'reconciliation figure #% is part of signed reconciliation form #%: DELETE refused', OLD.id, OLD.form_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF to_jsonb(NEW) IS DISTINCT FROM to_jsonb(OLD) AND (public.compliance_is_signed('coupons', 'reconciliationform', OLD.form_id) OR public.compliance_is_signed('coupons', 'reconciliationform', NEW.form_id)) THEN
        RAISE EXCEPTION 'reconciliation figure #% is part of signed reconciliation form #%: UPDATE refused (record a correction instead)',
            OLD.id, OLD.form_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$
""",
    """CREATE OR REPLACE TRIGGER "coupons_reconciliationfigure_signed_part" BEFORE INSERT OR UPDATE OR DELETE ON public."coupons_reconciliationfigure" FOR EACH ROW EXECUTE FUNCTION public.coupons_reconciliationfigure_signed_part()
""",
    """CREATE OR REPLACE TRIGGER "coupons_reconciliationform_signed_frozen" BEFORE UPDATE OR DELETE ON public."coupons_reconciliationform" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_signed_change('coupons', 'reconciliationform', 'id')
""",
    """CREATE OR REPLACE TRIGGER "coupons_redemption_append_only" BEFORE UPDATE OR DELETE ON public."coupons_redemption" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
    """CREATE OR REPLACE TRIGGER "coupons_redemptionanswer_append_only" BEFORE UPDATE OR DELETE ON public."coupons_redemptionanswer" FOR EACH ROW EXECUTE FUNCTION public.compliance_refuse_change()
""",
]

REVERSE_SQL = [
    """DROP TRIGGER IF EXISTS "coupons_redemptionanswer_append_only" ON public."coupons_redemptionanswer"
""",
    """DROP TRIGGER IF EXISTS "coupons_redemption_append_only" ON public."coupons_redemption"
""",
    """DROP TRIGGER IF EXISTS "coupons_reconciliationform_signed_frozen" ON public."coupons_reconciliationform"
""",
    """DROP TRIGGER IF EXISTS "coupons_reconciliationfigure_signed_part" ON public."coupons_reconciliationfigure"
""",
    """DROP FUNCTION IF EXISTS public.coupons_reconciliationfigure_signed_part()
""",
    """DROP TRIGGER IF EXISTS "coupons_programapproval_signed_frozen" ON public."coupons_programapproval"
""",
    """DROP TRIGGER IF EXISTS "coupons_mailingrecipient_append_only" ON public."coupons_mailingrecipient"
""",
    """DROP TRIGGER IF EXISTS "coupons_mailingcampaign_signed_frozen" ON public."coupons_mailingcampaign"
""",
    """DROP TRIGGER IF EXISTS "coupons_mailedcoupon_append_only" ON public."coupons_mailedcoupon"
""",
    """DROP TRIGGER IF EXISTS "coupons_inventorycount_signed_part" ON public."coupons_inventorycount"
""",
    """DROP FUNCTION IF EXISTS public.coupons_inventorycount_signed_part()
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalstoragelocation_append_only" ON public."coupons_historicalstoragelocation"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalserviceprovider_append_only" ON public."coupons_historicalserviceprovider"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalscannerdevice_append_only" ON public."coupons_historicalscannerdevice"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalredemption_append_only" ON public."coupons_historicalredemption"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalreconciliationform_append_only" ON public."coupons_historicalreconciliationform"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalreconciliationfigure_append_only" ON public."coupons_historicalreconciliationfigure"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalprogramapproval_append_only" ON public."coupons_historicalprogramapproval"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalmailingscreening_append_only" ON public."coupons_historicalmailingscreening"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalmailingrecipient_append_only" ON public."coupons_historicalmailingrecipient"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalmailingcampaign_append_only" ON public."coupons_historicalmailingcampaign"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalmailedcoupon_append_only" ON public."coupons_historicalmailedcoupon"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalledgerline_append_only" ON public."coupons_historicalledgerline"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalinventoryreminder_append_only" ON public."coupons_historicalinventoryreminder"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalinventorycount_append_only" ON public."coupons_historicalinventorycount"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalformcorrection_append_only" ON public."coupons_historicalformcorrection"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalfinancedayprocessing_append_only" ON public."coupons_historicalfinancedayprocessing"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalexceptionreport_append_only" ON public."coupons_historicalexceptionreport"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicaldropcountitem_append_only" ON public."coupons_historicaldropcountitem"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicaldropcount_append_only" ON public."coupons_historicaldropcount"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicaldeviationreport_append_only" ON public."coupons_historicaldeviationreport"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponvoid_append_only" ON public."coupons_historicalcouponvoid"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponseries_append_only" ON public."coupons_historicalcouponseries"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponreversal_append_only" ON public."coupons_historicalcouponreversal"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponreturn_append_only" ON public."coupons_historicalcouponreturn"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponrequisition_append_only" ON public."coupons_historicalcouponrequisition"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponreceipt_append_only" ON public."coupons_historicalcouponreceipt"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponrange_append_only" ON public."coupons_historicalcouponrange"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponprogram_append_only" ON public."coupons_historicalcouponprogram"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponissuance_append_only" ON public."coupons_historicalcouponissuance"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponinventory_append_only" ON public."coupons_historicalcouponinventory"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcouponexpiry_append_only" ON public."coupons_historicalcouponexpiry"
""",
    """DROP TRIGGER IF EXISTS "coupons_historicalcoupondistribution_append_only" ON public."coupons_historicalcoupondistribution"
""",
    """DROP TRIGGER IF EXISTS "coupons_formcorrection_signed_frozen" ON public."coupons_formcorrection"
""",
    """DROP TRIGGER IF EXISTS "coupons_financedayprocessing_signed_frozen" ON public."coupons_financedayprocessing"
""",
    """DROP TRIGGER IF EXISTS "coupons_dropcountitem_append_only" ON public."coupons_dropcountitem"
""",
    """DROP TRIGGER IF EXISTS "coupons_dropcount_signed_frozen" ON public."coupons_dropcount"
""",
    """DROP TRIGGER IF EXISTS "coupons_couponvoid_signed_frozen" ON public."coupons_couponvoid"
""",
    """DROP TRIGGER IF EXISTS "coupons_couponreversal_signed_frozen" ON public."coupons_couponreversal"
""",
    """DROP TRIGGER IF EXISTS "coupons_couponreturn_signed_frozen" ON public."coupons_couponreturn"
""",
    """DROP TRIGGER IF EXISTS "coupons_couponrequisition_signed_frozen" ON public."coupons_couponrequisition"
""",
    """DROP TRIGGER IF EXISTS "coupons_couponreceipt_signed_frozen" ON public."coupons_couponreceipt"
""",
    """DROP TRIGGER IF EXISTS "coupons_couponissuance_signed_frozen" ON public."coupons_couponissuance"
""",
    """DROP TRIGGER IF EXISTS "coupons_couponinventory_signed_frozen" ON public."coupons_couponinventory"
""",
    """DROP TRIGGER IF EXISTS "coupons_couponexpiry_signed_frozen" ON public."coupons_couponexpiry"
""",
    """DROP TRIGGER IF EXISTS "coupons_coupondistribution_signed_frozen" ON public."coupons_coupondistribution"
""",
]


class Migration(migrations.Migration):
    dependencies = [
        ('coupons', '0015_mailing_screening_job'),
        ('compliance', '0010_db_guards'),
    ]

    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]
