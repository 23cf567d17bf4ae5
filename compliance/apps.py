from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "compliance"
    verbose_name = "Compliance foundation"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from compliance import actors, signals  # noqa: F401  (connect receivers)

        # Triggers and functions are schema: migrations install them (compliance.db_guards), never a receiver.
        post_migrate.connect(signals.grant_administrator_permissions, sender=self)

        # Breach periods of open tables (compliance.breaches): on opening and closing, and after any write to a
        # record a readiness source reads.
        from compliance.breaches import breaches_table_changed, connect_breach_receiver
        from compliance.opening_checks import register_table_listener

        register_table_listener(breaches_table_changed)
        connect_breach_receiver()

        from compliance.dashboard import register_panel
        from compliance.readiness_panel import readiness_panel

        register_panel(readiness_panel)
