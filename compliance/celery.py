"""The Celery application. Tasks carry the acting user across the broker (see compliance.actors).

Beat's schedule is the union of the entries each app declares in its ``apps.py`` (``compliance.registry``): it is
handed to beat when beat starts (alone, ``celery beat``, or inside a worker, ``worker -B``), once Django is set up.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import beat_embedded_init, beat_init

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


@beat_init.connect
@beat_embedded_init.connect
def _schedule_on_beat_start(sender: Any, **kwargs: Any) -> None:
    declared_beat_schedule(getattr(sender, "app", app))
