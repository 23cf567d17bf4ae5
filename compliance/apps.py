from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "compliance"
    verbose_name = "Compliance foundation"

    def ready(self) -> None:
        from compliance import actors, signals  # noqa: F401  (connect receivers)
