"""The e-mail compliance receives when a verification finds something (or could not finish)."""

from __future__ import annotations

from compliance.models import Facility
from compliance.notifications import Notification, notification_send

__all__ = ["audit_chain_alert_send"]


def audit_chain_alert_send(*, lines: list[str]) -> bool:
    """Tell every facility's compliance officers what the verification found. ``False`` (nothing sent) when
    no compliance officer has an address."""
    from compliance.roles import Role
    from compliance.selectors import people_emails

    recipients = [email for facility in Facility.objects.order_by("pk")
                  for email in people_emails(facility, [Role.COMPLIANCE_OFFICER])]
    shown = lines[:200]
    body = (
        "The verification of the audit chain found records changed outside the application, or could not finish.\n"
        "Each line names the record concerned. Run `python manage.py verify_audit_chain` for the full list,\n"
        "check against the heads the Board holds (`--anchors`), and preserve the database as evidence.\n\n"
        + "\n".join(shown)
        + (f"\n… and {len(lines) - len(shown)} more" if len(lines) > len(shown) else "")
    )
    return notification_send(Notification.to(recipients, subject="Audit chain broken: records altered", body=body))
