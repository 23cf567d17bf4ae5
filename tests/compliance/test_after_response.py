"""Work a request leaves until its answer has gone (compliance.after_response), and the readiness verdicts it keeps
fresh: when the clock's bucket turns, a scan is answered with the last verdict of the same generation at once and
one process computes the facility's verdicts after its response (issue 27: every worker computed them, every five
seconds, inside a scan)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.decorators import login_not_required
from django.core.cache import cache
from django.core.signals import request_finished
from django.db import close_old_connections, connection
from django.http import HttpResponse
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import path

from compliance import log_context
from compliance.after_response import AfterResponseMiddleware, after_response
from compliance.readiness import CACHE_SECONDS, generation_bump, table_readiness_now
from tests.compliance.readiness_world import world_for
from tests.equipment.conftest import T0


def _close(response: HttpResponse) -> None:
    """What the WSGI server does once the body is sent; without closing the test's connection, as Django's test
    client closes its responses (``request_finished`` closes a connection past its age)."""
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)


@pytest.mark.django_db
def test_the_work_runs_once_the_response_is_closed_and_a_failure_is_logged_not_raised(rf, caplog):
    ran: list[str] = []

    def view(request: Any) -> HttpResponse:
        after_response(lambda: ran.append("refresh"))
        after_response(lambda: 1 / 0)
        after_response(lambda: ran.append("after the failure"))
        assert ran == []
        return HttpResponse("the answer")

    response = AfterResponseMiddleware(view)(rf.get("/"))
    assert ran == [] and response.content == b"the answer"  # the answer first
    _close(response)
    assert ran == ["refresh", "after the failure"]
    assert "work left for after the response failed" in caplog.text and "ZeroDivisionError" in caplog.text
    _close(response)
    assert ran == ["refresh", "after the failure"]  # once


def test_outside_a_request_the_work_runs_at_once():
    ran: list[int] = []
    after_response(lambda: ran.append(1))
    assert ran == [1]


_SEEN: list[tuple[str, str]] = []


@login_not_required
def _leaves_work(request: Any) -> HttpResponse:
    after_response(lambda: _SEEN.append(("after", log_context._REQUEST_ID.get())))
    _SEEN.append(("view", request.request_id))
    return HttpResponse("the answer")


urlpatterns = [path("leaves-work/", _leaves_work)]


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__)
def test_through_every_middleware_the_work_runs_after_the_view_with_the_requests_id(client):
    _SEEN.clear()
    response = client.get("/leaves-work/", HTTP_X_FORWARDED_PROTO="https", secure=True)
    assert response.status_code == 200 and response.content == b"the answer"
    request_id = response["X-Request-ID"]
    assert [("view", request_id), ("after", request_id)] == _SEEN  # after the view; its log lines carry the id


def _scan(rf: Any, table: Any) -> tuple[Any, list[dict[str, Any]], HttpResponse]:
    """``table_readiness_now`` asked inside a request, as the redemption API asks it: the answer, the queries the
    scan waited for, and the response (closing it runs what was left for after)."""
    seen: list[Any] = []

    def view(request: Any) -> HttpResponse:
        with CaptureQueriesContext(connection) as captured:
            seen.extend([table_readiness_now(table), captured.captured_queries])
        return HttpResponse()

    response = AfterResponseMiddleware(view)(rf.post("/api/v1/coupons/redemptions/"))
    return seen[0], seen[1], response


@pytest.mark.django_db
def test_a_turned_bucket_answers_at_once_and_one_process_computes_after_its_answer(rf, facility):
    table = world_for(facility).table("craps", "CR-1")
    cache.clear()
    with time_machine.travel(T0, tick=False):
        first = table_readiness_now(table)
    later = T0 + timedelta(seconds=CACHE_SECONDS)
    with time_machine.travel(later, tick=False):
        answer, waited, response = _scan(rf, table)
        assert answer == first and waited == []  # the last bucket's verdict, no query in the scan
        other, other_waited, other_response = _scan(rf, table)  # a second worker before the first has computed
        assert other == first and other_waited == []
        with CaptureQueriesContext(connection) as computed:
            _close(other_response)
        assert computed.captured_queries == []  # only one process computes
        with CaptureQueriesContext(connection) as computed:
            _close(response)
        assert computed.captured_queries  # after the answer
        fresh, fresh_waited, _ = _scan(rf, table)
        assert fresh.at == later and fresh_waited == []


@pytest.mark.django_db
def test_after_a_write_or_two_buckets_the_scan_computes_before_it_answers(rf, facility):
    table = world_for(facility).table("craps", "CR-1")
    cache.clear()
    with time_machine.travel(T0, tick=False):
        table_readiness_now(table)
    with time_machine.travel(T0 + timedelta(seconds=CACHE_SECONDS), tick=False):
        generation_bump(facility.pk)  # a write to a record a source reads: the kept verdicts are never reused
        answer, waited, _ = _scan(rf, table)
        assert waited and answer.at == T0 + timedelta(seconds=CACHE_SECONDS)
    two_on = T0 + timedelta(seconds=3 * CACHE_SECONDS)  # nothing computed in the bucket before: none is reused
    with time_machine.travel(two_on, tick=False):
        answer, waited, _ = _scan(rf, table)
        assert waited and answer.at == two_on


@pytest.mark.django_db
def test_a_generation_lost_from_the_cache_is_never_taken_for_the_one_a_kept_verdict_carries(rf, facility):
    """The cache may lose the facility's generation (evicted): the next one is fresh, so no verdict kept under the
    old one is reused — a lost generation read again as 0 (or counted again from 1) could match one."""
    from compliance.readiness import _generation_key

    table = world_for(facility).table("craps", "CR-1")
    cache.clear()
    with time_machine.travel(T0, tick=False):
        table_readiness_now(table)
    cache.delete(_generation_key(facility.pk))
    with time_machine.travel(T0 + timedelta(seconds=CACHE_SECONDS), tick=False):
        answer, waited, _ = _scan(rf, table)
        assert waited and answer.at == T0 + timedelta(seconds=CACHE_SECONDS)
    cache.delete(_generation_key(facility.pk))
    generation_bump(facility.pk)  # a write finding none sets a fresh one too
    with time_machine.travel(T0 + timedelta(seconds=2 * CACHE_SECONDS), tick=False):
        answer, waited, _ = _scan(rf, table)
        assert waited and answer.at == T0 + timedelta(seconds=2 * CACHE_SECONDS)
