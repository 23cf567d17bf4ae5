"""A real Celery worker on Redis: the task's history row carries the user who enqueued it."""

from __future__ import annotations

import uuid

import pytest
from celery.contrib.testing.worker import start_worker

from compliance.actors import acting_as
from compliance.celery import app
from compliance.testing import forget_celery_connections, redis_up
from tests.testapp.models import TwoPersonForm
from tests.testapp.tasks import renote_form

pytestmark = [
    pytest.mark.worker,
    pytest.mark.xdist_group("redis-worker"),  # one worker at a time on the shared Redis database
    pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379 (make test / CI start it)"),
    # serialized_rollback restores the roles and accounts that migrations create after the flush.
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]



QUEUE = f"test-{uuid.uuid4().hex}"


@pytest.fixture
def redis_worker():
    broker = "redis://127.0.0.1:6379/15"
    saved = {k: app.conf[k] for k in ("broker_url", "result_backend", "task_always_eager")}
    app.conf.update(broker_url=broker, result_backend=broker, task_always_eager=False)
    forget_celery_connections()
    try:
        # A queue of this run's own: another test run on the same Redis must not take our tasks.
        with start_worker(
            app, perform_ping_check=False, pool="solo", loglevel="WARNING", shutdown_timeout=10, queues=[QUEUE]
        ):
            yield app
    finally:
        app.conf.update(saved)
        forget_celery_connections()


def test_history_from_a_task_on_a_real_worker_names_the_user_who_enqueued_it(
    redis_worker, facility, marketing_supervisor
):
    with acting_as(marketing_supervisor):
        form = TwoPersonForm.objects.create(facility=facility, note="before", quantity=1)
        result = renote_form.apply_async((form.pk, "after the worker"), queue=QUEUE)
    assert result.get(timeout=30) == "ok"
    latest = TwoPersonForm.history.filter(id=form.pk).latest("history_date")
    assert latest.note == "after the worker"
    assert latest.history_user_id == marketing_supervisor.pk


def test_a_task_with_no_user_behind_it_acts_as_the_system_account(redis_worker, facility):
    form = TwoPersonForm.objects.create(facility=facility, note="before", quantity=1)
    assert renote_form.apply_async((form.pk, "scheduled"), queue=QUEUE).get(timeout=30) == "ok"
    latest = TwoPersonForm.history.filter(id=form.pk).latest("history_date")
    assert latest.history_user.username == "system"
