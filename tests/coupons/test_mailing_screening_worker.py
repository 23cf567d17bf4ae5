"""The mailing's screening on a real Celery worker (Redis): the task runs the job the request recorded, as the
person who asked, and a second delivery changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from compliance.exclusion.models import ScreeningRun
from compliance.testing import redis_up
from coupons import tasks
from coupons.models import MailingScreening
from coupons.services.mailing_screening import screening_request
from tests.compliance.test_worker import QUEUE, redis_worker  # noqa: F401 (fixture)
from tests.coupons.test_mailing import lists  # noqa: F401 (fixture)
from tests.coupons.test_mailing_screening import unscreened  # noqa: F401 (fixture)

pytestmark = [
    pytest.mark.worker,
    pytest.mark.xdist_group("redis-worker"),
    pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379 (make test / CI start it)"),
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_a_worker_screens_the_mailing_once(redis_worker, unscreened, marketing_supervisor, monkeypatch):  # noqa: F811
    sent: list[Any] = []
    monkeypatch.setattr(tasks.screen_mailing, "delay", lambda *args: sent.append(args))  # this run's own queue below
    job = screening_request(campaign=unscreened, user=marketing_supervisor)
    assert sent == [(job.pk,)]
    assert tasks.screen_mailing.apply_async((job.pk,), queue=QUEUE).get(timeout=60) == "succeeded"
    assert tasks.screen_mailing.apply_async((job.pk,), queue=QUEUE).get(timeout=60) == "succeeded"  # delivered again
    job.refresh_from_db()
    assert job.status == MailingScreening.Status.SUCCEEDED and ScreeningRun.objects.count() == 1
    assert job.run.created_by == marketing_supervisor
    assert job.history.latest("history_date").history_user == marketing_supervisor
