from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "compliance"
    verbose_name = "Compliance foundation"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from compliance import actors, db_guarantees, signals  # noqa: F401  (connect receivers)

        post_migrate.connect(signals.grant_administrator_permissions, sender=self)
        post_migrate.connect(signals.protect_history_tables, sender=self)
        post_migrate.connect(db_guarantees.install_signed_record_triggers, sender=self)
