"""Foundation housekeeping tasks (thin: they call services)."""

from __future__ import annotations

from celery import shared_task
from django.core.management import call_command

from compliance.notifications import notification_task


@shared_task
def clear_expired_sessions() -> None:
    call_command("clearsessions")


@shared_task
def link_audit_chain() -> int:
    """Beat, every minute (and on demand): join newly sealed rows to their chains."""
    from compliance.chain import chain_link_all

    return chain_link_all()


@shared_task
def verify_audit_chain() -> bool:
    """Beat, daily: walk every chain and signed record; on a break, alert compliance (mail retried alone)."""
    from compliance.chain import chain_verify

    report = chain_verify()
    if not report.intact:
        send_audit_chain_alert.delay(report.lines())
    return report.intact


@notification_task
def send_audit_chain_alert(lines: list[str]) -> bool:
    from compliance.chain import audit_chain_alert_send

    return audit_chain_alert_send(lines=lines)
