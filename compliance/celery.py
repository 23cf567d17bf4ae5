"""The Celery application. Tasks carry the acting user across the broker (see compliance.actors)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")

app = Celery("compliance")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
