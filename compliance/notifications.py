"""Regulated notifications: the one way every app sends the e-mail a clause asks for.

A clause that says a report "shall be sent" (a coupon shipment's deviation, § 525.21(e); a
variance found by finance, § 525.21(m)) or an overdue equipment change the floor must act on is
sent the same way:

* the app's service builds a :class:`Notification` (subject, body, recipients) and calls
  :func:`notification_send` from a Celery task declared with :func:`notification_task`;
* :func:`notification_send` answers ``False`` and sends nothing when no one could receive it (no
  address), so the caller leaves the record unsent rather than marking it sent to no one;
* a failed delivery raises, and the task retries with exponential back-off; the caller records
  the sending only after :func:`notification_send` returned ``True``;
* ``EMAIL_TIMEOUT`` (settings) bounds every connection, so a hung mail server cannot hold a worker.
"""

from __future__ import annotations

import smtplib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMessage, send_mail

__all__ = ["RETRY", "Notification", "notification_send", "notification_task"]

# Back-off of a failed delivery: 30 s, 60 s, 120 s, ... capped at 30 minutes, with jitter, for about
# a day's worth of attempts before the task gives up (the record stays unsent and on the dashboard).
RETRY: dict[str, Any] = {
    "autoretry_for": (smtplib.SMTPException, OSError),
    "retry_backoff": 30,
    "retry_backoff_max": 30 * 60,
    "retry_jitter": True,
    "max_retries": 50,
}


@dataclass(frozen=True)
class Notification:
    subject: str
    body: str
    recipients: tuple[str, ...]
    attachments: tuple[tuple[str, str, str], ...] = ()  # (file name, content, MIME type)

    @classmethod
    def to(cls, recipients: Iterable[str], *, subject: str, body: str,
           attachments: tuple[tuple[str, str, str], ...] = ()) -> Notification:
        """Addresses cleaned: blanks dropped, each once, in a stable order."""
        return cls(subject=subject, body=body, recipients=tuple(sorted({r.strip() for r in recipients if r.strip()})),
                   attachments=attachments)


def notification_send(notification: Notification) -> bool:
    """Send it; ``True`` once the mail server took it, ``False`` when there was no one to send it to.

    A delivery failure raises (``SMTPException`` / ``OSError``): the task retries it."""
    if not notification.recipients:
        return False
    if notification.attachments:
        message = EmailMessage(notification.subject, notification.body, settings.DEFAULT_FROM_EMAIL,
                               list(notification.recipients))
        for name, content, mimetype in notification.attachments:
            message.attach(name, content, mimetype)
        message.send(fail_silently=False)
        return True
    send_mail(
        subject=notification.subject,
        message=notification.body,
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=list(notification.recipients),
        fail_silently=False,
    )
    return True


def notification_task(function: Callable[..., Any]) -> Any:
    """A Celery task that delivers a regulated notification, retried with back-off on failure."""
    return shared_task(**RETRY)(function)
