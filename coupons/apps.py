from django.apps import AppConfig


class CouponsConfig(AppConfig):
    name = "coupons"
    verbose_name = "Match Play Coupons"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.reference import REFERENCE_SEEDERS
        from coupons.panels import coupon_panel
        from coupons.reference import seed_coupon_programs

        register_panel(coupon_panel)
        from compliance.services import record_signed
        from coupons.models import CouponReceipt
        from coupons.services.receipts import receipt_signed

        record_signed.connect(receipt_signed, sender=CouponReceipt, dispatch_uid="coupons-receipt-examined")
        from coupons.models import FormCorrection
        from coupons.services.corrections import form_correction_signed

        record_signed.connect(form_correction_signed, sender=FormCorrection, dispatch_uid="coupons-form-correction")
        if seed_coupon_programs not in REFERENCE_SEEDERS:
            REFERENCE_SEEDERS.append(seed_coupon_programs)
        from compliance.chain import VERIFY_CHECKS
        from coupons.selectors.ledger_replay import ledger_replay_check

        if ledger_replay_check not in VERIFY_CHECKS:  # the verification replays the ledger against the state
            VERIFY_CHECKS.append(ledger_replay_check)
