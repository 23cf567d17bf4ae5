from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "compliance.reports"
    label = "reports"
    verbose_name = "Reports"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.reports import kinds  # noqa: F401  (each kind registers itself)
        from compliance.reports.models import ReportSignoff
        from compliance.reports.panels import reports_panel
        from compliance.reports.services import signoff_signed
        from compliance.services import record_signed

        register_panel(reports_panel)
        record_signed.connect(signoff_signed, sender=ReportSignoff, dispatch_uid="reports-signoff-signed")
