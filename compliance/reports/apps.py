from typing import Any, ClassVar

from celery.schedules import crontab

from compliance import registry
from compliance.registry import DemoSeeder, NavItem, ScaleSeeder
from compliance.roles import OVERSIGHT, Role


class ReportsConfig(registry.PluggableApp):
    """Reports as Celery jobs: the framework (versions never overwritten, sign-offs, filings); each kind lives in
    the app that owns its data and is named in that app's apps.py (docs/reports.md)."""

    name = "compliance.reports"
    label = "reports"
    verbose_name = "Reports"

    navigation = (
        NavItem("Reports", "reports:home", "Records",
                frozenset({Role.FINANCE_SUPERVISOR, Role.SHIFT_MANAGER, Role.ADMINISTRATOR}) | OVERSIGHT),
        NavItem("Report jobs", "reports:runs", "Records", frozenset({Role.ADMINISTRATOR}) | OVERSIGHT),
    )
    panels = ("compliance.reports.panels.reports_panel",)
    report_kinds = ("compliance.reports.kinds.audit_extract",)
    demo = (DemoSeeder("compliance.reports.demo.reports_demo_seed", stage=5),)
    # The quarters' and months' reports a compliance office makes (generate_casino)
    scale = (ScaleSeeder("compliance.reports.scale.reports_scale_seed", stage=6, waits=True),)
    signed = {"reports.ReportSignoff": "compliance.reports.services.signoff_signed"}
    beat: ClassVar[dict[str, dict[str, Any]]] = {
        # Hourly: each facility's quarter is produced in the first hour after its last gaming day ends.
        "reports-quarterly": {"task": "compliance.reports.tasks.schedule_quarterly_reports",
                              "schedule": crontab(minute=25)},
        # A report that stopped beating (its worker lost) is handed to another at once; one past its time limit
        # is marked failed.
        "reports-recover-lost": {"task": "compliance.reports.tasks.recover_lost_report_runs",
                                 "schedule": crontab(minute="*")},
        "reports-fail-stuck": {"task": "compliance.reports.tasks.fail_stuck_report_runs",
                               "schedule": crontab(minute="*/5")},
    }
