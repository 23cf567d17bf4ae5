"""Regulated notifications, the one shared way (compliance/notifications.py)."""

from __future__ import annotations

import smtplib
from unittest import mock

import pytest
from django.core import mail

from compliance.notifications import RETRY, Notification, notification_send, notification_task


def test_nothing_is_sent_and_false_is_answered_when_no_one_could_receive_it():
    assert notification_send(Notification.to(["", "  "], subject="s", body="b")) is False
    assert mail.outbox == []


def test_recipients_are_cleaned_and_the_mail_goes_once_to_each():
    notification = Notification.to([" a@example.com", "b@example.com", "a@example.com", ""], subject="S", body="B")
    assert notification.recipients == ("a@example.com", "b@example.com")
    assert notification_send(notification) is True
    (message,) = mail.outbox
    assert message.to == ["a@example.com", "b@example.com"] and message.subject == "S"


def test_a_failed_delivery_raises_so_the_task_retries_it():
    failing = mock.patch("compliance.notifications.send_mail", side_effect=smtplib.SMTPConnectError(421, "busy"))
    with failing, pytest.raises(smtplib.SMTPException):
        notification_send(Notification.to(["a@example.com"], subject="S", body="B"))


def test_a_notification_task_retries_with_back_off_and_mail_has_a_timeout(settings):
    @notification_task
    def deliver() -> None:  # pragma: no cover - only its options are read
        pass

    assert deliver.autoretry_for == RETRY["autoretry_for"]
    assert deliver.retry_backoff == 30 and deliver.retry_backoff_max == 1800 and deliver.retry_jitter
    assert deliver.max_retries == RETRY["max_retries"]
    assert settings.EMAIL_TIMEOUT == 10
