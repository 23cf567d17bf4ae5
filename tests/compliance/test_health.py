"""Liveness and readiness (compliance/health.py, issue 26 item 3): answered before the host check and the HTTPS
redirect, so a load balancer's probe by address over plain HTTP gets an answer; readiness fails with its reason when
the worker or beat has not been heard from within two minutes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client, override_settings
from django.utils import timezone

from compliance import health
from compliance.tasks import health_tick

pytestmark = pytest.mark.django_db

BEHIND_A_PROXY = {"ALLOWED_HOSTS": ["compliance.example.com"], "SECURE_SSL_REDIRECT": True}


@pytest.fixture(autouse=True)
def _no_tick_yet():
    cache.delete_many([health.BEAT_KEY, health.WORKER_KEY])
    yield
    cache.delete_many([health.BEAT_KEY, health.WORKER_KEY])


@override_settings(**BEHIND_A_PROXY)
def test_liveness_answers_plain_http_to_any_host_without_the_database(django_assert_num_queries):
    with django_assert_num_queries(0):
        response = Client().get("/healthz", HTTP_HOST="10.0.0.5:8000")
    assert response.status_code == 200 and response.content == b"ok\n"


@override_settings(**BEHIND_A_PROXY)
def test_the_rest_of_the_site_still_refuses_an_unknown_host_and_redirects_to_https():
    assert Client().get("/accounts/login/", HTTP_HOST="10.0.0.5:8000").status_code == 400
    assert Client().get("/accounts/login/", HTTP_HOST="compliance.example.com").status_code == 301


@override_settings(**BEHIND_A_PROXY)
def test_readiness_with_tasks_in_the_web_process_checks_the_database_and_the_cache():
    response = Client().get("/readyz", HTTP_HOST="10.0.0.5")
    assert response.status_code == 200, response.content
    text = response.content.decode()
    assert "database ok" in text and "cache ok" in text and "no worker to wait for" in text
    assert response["Cache-Control"] == "no-store"


@override_settings(CELERY_TASK_ALWAYS_EAGER=False)
def test_readiness_fails_until_a_worker_ran_beats_tick_and_again_when_it_is_stale():
    response = Client().get("/readyz")
    assert response.status_code == 503
    assert "worker FAIL never heard from" in response.content.decode()
    assert "beat FAIL never heard from" in response.content.decode()

    health_tick.apply()  # what a worker does with beat's tick every 30 seconds
    assert Client().get("/readyz").status_code == 200

    health.record_tick("celery@web-2", at=timezone.now() - health.FRESH - timedelta(seconds=5))
    stale = Client().get("/readyz")
    assert stale.status_code == 503 and "worker FAIL celery@web-2 125 s ago" in stale.content.decode()


def test_a_failing_check_is_reported_in_its_own_words_and_never_raises(monkeypatch):
    def broken() -> tuple[bool, str]:
        raise ConnectionError("Redis refused the connection")

    monkeypatch.setattr(health, "_cache", broken)
    response = Client().get("/readyz")
    assert response.status_code == 503
    assert "cache FAIL ConnectionError: Redis refused the connection" in response.content.decode()


def test_the_probes_answer_only_reads():
    response = Client().post("/readyz")
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"


def test_beat_sends_the_tick_every_thirty_seconds():
    from compliance.registry import beat_schedule

    assert beat_schedule()["health-tick"] == {"task": "compliance.tasks.health_tick", "schedule": 30.0}


@override_settings(ADMINS=[("IT", "it@casino.example")], CELERY_TASK_ALWAYS_EAGER=False)
def test_a_probe_of_a_stack_not_ready_mails_no_one_and_logs_one_warning(caplog, mailoutbox):
    with caplog.at_level("WARNING"):
        assert Client().get("/readyz").status_code == 503
    assert mailoutbox == [], "a load balancer asks every few seconds: no error mail per probe"
    warnings = [r for r in caplog.records if r.name == "compliance.health"]
    assert len(warnings) == 1 and "worker never heard from" in warnings[0].getMessage()
    assert not [r for r in caplog.records if r.name == "django.request"]
