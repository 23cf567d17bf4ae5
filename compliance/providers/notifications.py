"""Regulated mail of the provider register: reminders to renew a certification (§ 528.4(b))."""

from __future__ import annotations

from compliance.notifications import Notification
from compliance.providers.models import RenewalReminder
from compliance.providers.rules import last_day_to_renew
from compliance.roles import Role
from compliance.selectors import people_emails

__all__ = ["REMINDER_RECIPIENT_ROLES", "renewal_reminder_notification"]

REMINDER_RECIPIENT_ROLES = (Role.COMPLIANCE_OFFICER,)


def renewal_reminder_notification(reminder: RenewalReminder) -> Notification:
    term = reminder.certification
    facility = reminder.facility
    renew_by = last_day_to_renew(term.expires_on)
    if reminder.stage == "late":
        lead = (f"The renewal of {term.provider.name}'s certification is now late: it was due by {renew_by:%-d %b %Y} "
                f"(§ 528.4(b)). A completed renewal application and fee received by the Board on or before the "
                f"expiry on {term.expires_on:%-d %b %Y} still keeps the certification in effect until the Board "
                f"decides (§ 528.4(c)), flagged as late; with none received by then the certification lapses and "
                f"its games and wagers may not be used at any table.")
    else:
        lead = (f"{term.provider.name}'s certification expires on {term.expires_on:%-d %b %Y} (4 years from the "
                f"Board's approval of {term.approved_on:%-d %b %Y}, § 528.4(a)). The completed renewal application "
                f"and fee are due at the Board by {renew_by:%-d %b %Y}, at least 60 days before (§ 528.4(b)); "
                f"received by the Board, the certification stays in effect until the Board decides (§ 528.4(c)).")
    return Notification.to(
        [*people_emails(facility, REMINDER_RECIPIENT_ROLES), facility.notification_email],
        subject=f"[{facility.name}] Renew {term.provider.name}'s certification by {renew_by:%-d %b %Y}",
        body=lead + "\n\nRecord the filing on the provider's page once it is made.\n",
    )
