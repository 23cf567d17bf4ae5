from __future__ import annotations

from celery import shared_task

from tests.testapp.models import TwoPersonForm


@shared_task
def renote_form(form_id: int, note: str) -> str:
    """Change an unsigned test form from a task, to see whose name history records."""
    form = TwoPersonForm.objects.filter(pk=form_id).first()
    if form is None:
        return "gone"
    form.note = note
    form.save()
    return "ok"
