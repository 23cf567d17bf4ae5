"""The Celery application. Tasks carry the acting user across the broker (see compliance.actors).

Beat's schedule is the union of the entries each app declares in its ``apps.py`` (``compliance.registry``): it is put
in the configuration when a Celery process (beat alone, ``celery beat``, or a worker with ``-B``) imports its modules,
after Django is set up and before beat builds its scheduler.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import import_modules

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
