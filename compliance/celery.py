"""The Celery application. Tasks carry the acting user across the broker (see compliance.actors).

Beat's schedule is the union of the entries each app declares in its ``apps.py`` (``compliance.registry``): it is put
in the configuration when a Celery process (beat alone, ``celery beat``, or a worker with ``-B``) imports its modules,
after Django is set up and before beat builds its scheduler.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import import_modules, task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")

app = Celery("compliance")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def declared_beat_schedule(celery_app: Celery = app) -> dict[str, dict[str, Any]]:
    """Put every app's declared beat entries in ``celery_app``'s configuration and return them."""
    import django
    from django.apps import apps

    if not apps.ready:  # beat started by the celery command has usually set Django up already
        django.setup()
    from compliance.registry import beat_schedule

    celery_app.conf.beat_schedule = beat_schedule()
    return dict(celery_app.conf.beat_schedule)


@import_modules.connect
def _schedule_on_start(sender: Any = None, **kwargs: Any) -> None:
    declared_beat_schedule(sender if isinstance(sender, Celery) else app)


@task_prerun.connect
def _log_context_of_task(task_id: str = "", task: Any = None, **kwargs: Any) -> None:
    """Each log line of a task names the task and its id (compliance.log_context)."""
    from compliance.log_context import task_context

    task_context(task_id, getattr(task, "name", "") or "")


@task_postrun.connect
def _log_context_of_task_ends(task_id: str = "", **kwargs: Any) -> None:
    from compliance.log_context import task_context_end

    task_context_end(task_id)
