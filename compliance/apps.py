from typing import Any, ClassVar

from celery.schedules import crontab

from compliance import registry
from compliance.registry import NavItem
from compliance.roles import OVERSIGHT, Role


class ComplianceConfig(registry.PluggableApp):
    """The foundation. Like every app it declares what it adds (compliance/registry.py); it names no other app."""

    name = "compliance"
    verbose_name = "Compliance foundation"

    navigation = (
        NavItem("Dashboard", "dashboard"),
        NavItem("Tables", "table-list", "Floor", frozenset({Role.SHIFT_MANAGER, Role.ADMINISTRATOR}) | OVERSIGHT),
        NavItem("Audit trail", "audit-list", "Records",
                frozenset({Role.ADMINISTRATOR, Role.FINANCE_SUPERVISOR}) | OVERSIGHT),
        NavItem("Signatures", "signature-list", "Records", OVERSIGHT),
        NavItem("Audit chain", "chain-status", "Records", frozenset({Role.ADMINISTRATOR}) | OVERSIGHT),
        NavItem("Evidence bundle", "evidence", "Records", OVERSIGHT),
        NavItem("People", "people-list", "Records", frozenset({Role.ADMINISTRATOR}) | OVERSIGHT),
        NavItem("Regulations", "regulation-list", "Records", OVERSIGHT),
    )
    # Breach periods of open tables (compliance.breaches): on opening and closing, after any write to a record a
    # readiness source reads, and every minute for what time alone changes (issue 23).
    table_listeners = ("compliance.breaches.breaches_table_changed",)
    beat: ClassVar[dict[str, dict[str, Any]]] = {
        # Readiness (compliance.health): beat's tick, run by a worker, read by /readyz.
        "health-tick": {"task": "compliance.tasks.health_tick", "schedule": 30.0},
        "purge-expired-sessions": {"task": "compliance.tasks.clear_expired_sessions", "schedule": crontab(minute=17)},
        "table-breaches-sync": {"task": "compliance.tasks.sync_table_breaches", "schedule": crontab(minute="*")},
        # The audit chain (issues 9, 21): sealed rows linked every minute; the increment since the last intact
        # verification verified daily, everything weekly (one at a time: an advisory lock); each facility's heads
        # anchored (and e-mailed to the Board) once each gaming day ends.
        "compliance-audit-chain-link": {"task": "compliance.tasks.link_audit_chain", "schedule": crontab(minute="*")},
        "compliance-audit-chain-verify": {"task": "compliance.tasks.verify_audit_chain",
                                          "schedule": crontab(minute=40, hour=5), "kwargs": {"incremental": True}},
        "compliance-audit-chain-verify-full": {"task": "compliance.tasks.verify_audit_chain",
                                               "schedule": crontab(minute=10, hour=4, day_of_week=0)},
        "compliance-audit-chain-anchor": {"task": "compliance.tasks.anchor_chain_heads",
                                          "schedule": crontab(minute=7)},
    }
    administered = True

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from compliance import actors, signals  # noqa: F401  (connect receivers)
        from compliance.breaches import connect_breach_receiver
        from compliance.history_managers import install as history_managers_once

        super().ready()
        # Triggers and functions are schema: migrations install them (compliance.db_guards), never a receiver.
        # After every app's post_migrate, not only this one's: the apps after it in INSTALLED_APPS have no
        # permissions yet when this app's signal is sent, so the first migrate of a new database granted the
        # administrator only the accounts' and the foundation's, and the next migrate (an upgrade, a restore's
        # db_roles --migrate) the rest — the restore drill found the two counts of auth_group_permissions apart.
        post_migrate.connect(signals.grant_administrator_permissions, dispatch_uid="compliance.administrator-permissions")
        connect_breach_receiver()
        history_managers_once()  # Model.history's manager class built once, not on every save
