"""Foundation housekeeping tasks (thin: they call services)."""

from __future__ import annotations

from celery import shared_task
from django.core.management import call_command


@shared_task
def clear_expired_sessions() -> None:
    call_command("clearsessions")
