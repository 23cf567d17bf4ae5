from django.apps import AppConfig


class CouponsConfig(AppConfig):
    name = "coupons"
    verbose_name = "Match Play Coupons"
