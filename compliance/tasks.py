"""Foundation housekeeping tasks (thin: they call services)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.management import call_command

from compliance.notifications import notification_task

_VERIFY_LIMIT = settings.AUDIT_VERIFY_TIME_LIMIT_SECONDS


@shared_task(bind=True, ignore_result=True, expires=60)
def health_tick(self: Any) -> None:
    """Beat, every 30 seconds: a worker running this proves to /readyz that beat and a worker are alive
    (compliance.health)."""
    from compliance.health import record_tick

    record_tick(str(getattr(self.request, "hostname", "") or "a worker"))


@shared_task
def clear_expired_sessions() -> None:
    call_command("clearsessions")


@shared_task
def link_audit_chain() -> int:
    """Beat, every minute (and on demand): join newly sealed rows to their chains."""
    from compliance.chain import chain_link_all

    return chain_link_all()


# Acknowledged when a worker takes it (acks_late off, unlike every other task): a full verification of tens of
# millions of rows may outlast the broker's visibility timeout (CELERY_BROKER_TRANSPORT_OPTIONS, 35 minutes), after
# which Redis would hand the unacknowledged message to a second worker while the first still verifies. A run whose
# worker dies is not redelivered: the next beat runs it again (daily the increment, weekly everything), and the
# advisory lock (compliance.chain.verify) still turns away a second run started by hand or by an overlapping beat.
@shared_task(acks_late=False, soft_time_limit=_VERIFY_LIMIT + 120, time_limit=_VERIFY_LIMIT + 300)
def verify_audit_chain(incremental: bool = False) -> bool | None:
    """Beat: daily the increment since the last intact verification, weekly everything. The result is kept;
    on a finding (or a run cut short by its time limit) compliance is alerted. ``None``: another was running."""
    from compliance.chain import VerificationBusy, chain_verify, verification_record

    try:
        report = chain_verify(incremental=incremental, time_limit=float(_VERIFY_LIMIT))
    except VerificationBusy:
        return None
    verification_record(report)
    if not report.intact:
        send_audit_chain_alert.delay(report.lines())
    return report.intact


@shared_task
def anchor_chain_heads() -> int:
    """Beat, hourly: each facility's chain heads anchored once its gaming day has ended."""
    from compliance.chain import anchors_for_ended_days

    return anchors_for_ended_days()


@notification_task
def send_chain_anchor(anchor_id: int) -> bool:
    from compliance.chain import anchor_send

    return anchor_send(anchor_id)


@notification_task
def send_audit_chain_alert(lines: list[str]) -> bool:
    from compliance.chain import audit_chain_alert_send

    return audit_chain_alert_send(lines=lines)


@shared_task
def anchor_facility(facility_id: int, reason: str, subject: str = "", user_id: int | None = None) -> int | None:
    """Anchor one facility's chain heads now (a report filed); the anchor's id."""
    from django.contrib.auth import get_user_model

    from compliance.chain import anchor_record
    from compliance.models import Facility

    facility = Facility.objects.filter(pk=facility_id).first()
    if facility is None:
        return None
    user = get_user_model()._default_manager.filter(pk=user_id).first() if user_id else None
    return anchor_record(facility, reason=reason, subject=subject, user=user).pk


@notification_task
def set_password_link_send(user_id: int, base_url: str, address: str = "") -> bool:
    """A set-password link, made here and e-mailed to the person alone (compliance.password_links)."""
    from compliance.notifications import notification_send
    from compliance.password_links import set_password_link_mail

    mail = set_password_link_mail(user_id, base_url, address)
    return mail is not None and notification_send(mail)


@notification_task
def second_factor_reset_tell(reset_id: int) -> bool:
    """The person told of a reset of their second factor asked, approved or refused (compliance.second_factor)."""
    from compliance.notifications import notification_send
    from compliance.second_factor import second_factor_reset_mail

    mail = second_factor_reset_mail(reset_id)
    return mail is not None and notification_send(mail)


@notification_task
def email_change_tell(user_id: int, old: str, actor_id: int) -> bool:
    """The old address told that someone else changed the person's e-mail (compliance.password_links)."""
    from compliance.notifications import notification_send
    from compliance.password_links import email_change_mail

    mail = email_change_mail(user_id, old, actor_id)
    return mail is not None and notification_send(mail)



@shared_task
def sync_table_breaches() -> int:
    """Beat, every minute: open and close breach periods for what time alone changes (dice overdue, a
    certification's last day, a wager-limit change applied)."""
    from compliance.breaches import breaches_sync_all

    return breaches_sync_all()


@notification_task
def notify_table_breaches(breach_ids: list[int]) -> bool:
    """E-mail the breaches that began; who was told is kept on each period once the mail went."""
    from compliance.breaches import breach_told

    return breach_told(breach_ids)
