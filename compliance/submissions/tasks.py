"""The Rules Submission's Celery tasks: thin, ids in, a service out."""

from __future__ import annotations

from celery import shared_task

from compliance.submissions import limits

__all__ = ["apply_wager_limit_changes"]


@shared_task
def apply_wager_limit_changes() -> int:
    """Each minute (beat), and at each change's own time: apply the scheduled changes whose time has come
    (§ 521.8(c)(2)); idempotent, a change is applied once."""
    return len(limits.limit_changes_apply())
