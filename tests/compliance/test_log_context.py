"""Logs a casino's IT department can read (issue 26, item 4): every line with time, level, logger, the request id,
the person and the facility; JSON lines in production; secrets from files; errors mailed to ADMINS."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from compliance.env import ImproperlyConfiguredEnv, env_admins, env_str
from compliance.log_context import (
    ContextFilter,
    RequestIdMiddleware,
    RequestPersonMiddleware,
    task_context,
    task_context_end,
)

ROOT = Path(__file__).resolve().parents[2]


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []
        self.addFilter(ContextFilter())

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def lines():
    handler = _Lines()
    logger = logging.getLogger("compliance.test_log_context")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)


def _serve(request, *, log: str = "served"):
    def view(req):
        logging.getLogger("compliance.test_log_context").info(log)
        return HttpResponse("ok")

    return RequestIdMiddleware(RequestPersonMiddleware(view))(request)


@pytest.mark.django_db
def test_a_requests_lines_carry_its_id_the_person_and_the_facility(lines, facility, finance_staff):
    request = RequestFactory().get("/", HTTP_X_REQUEST_ID="lb-7f3a.9")
    request.user = finance_staff
    request.facility = facility
    response = _serve(request)
    (record,) = lines.records
    assert (record.request_id, record.user, record.facility) == ("lb-7f3a.9", finance_staff.username, facility.code)
    assert response["X-Request-ID"] == "lb-7f3a.9"


@pytest.mark.django_db
def test_each_request_leaves_one_access_line_with_the_person_and_no_query_string(settings, facility, finance_staff):
    settings.ACCESS_LOG = True
    handler = _Lines()
    access = logging.getLogger("compliance.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    try:
        request = RequestFactory().get("/exclusion/screen/?name=Ann+Patron", HTTP_X_REQUEST_ID="lb-1")
        request.user = finance_staff
        request.facility = facility
        _serve(request)
    finally:
        access.removeHandler(handler)
    (line,) = handler.records
    assert line.getMessage() == "GET /exclusion/screen/ 200" and "Patron" not in str(line.__dict__)
    assert (line.request_id, line.user, line.facility, line.status) == ("lb-1", finance_staff.username, facility.code, 200)
    assert line.duration_ms >= 0


def test_no_access_line_when_it_is_off(settings):
    settings.ACCESS_LOG = False
    handler = _Lines()
    logging.getLogger("compliance.access").addHandler(handler)
    try:
        _serve(RequestFactory().get("/"))
    finally:
        logging.getLogger("compliance.access").removeHandler(handler)
    assert handler.records == []


@pytest.mark.parametrize("offered", ["two words", "x" * 65, "id\nInjected: header", "<script>"])
def test_an_id_that_is_not_a_plain_token_is_replaced(lines, offered):
    request = RequestFactory().get("/", HTTP_X_REQUEST_ID=offered)
    response = _serve(request)
    assert response["X-Request-ID"] != offered and len(response["X-Request-ID"]) == 32
    assert lines.records[0].request_id == response["X-Request-ID"]


def test_a_task_names_itself_and_hands_the_request_its_context_back(lines):
    from compliance.tasks import health_tick

    def view(req):
        log = logging.getLogger("compliance.test_log_context")
        log.info("before")
        health_tick.apply()  # a task run inline by the request (Celery eager), as the tests and a bare runserver do
        task_context("5c1d", "coupons.tasks.post_redemptions")
        log.info("posting")
        task_context_end("5c1d")
        log.info("after")
        return HttpResponse("ok")

    RequestIdMiddleware(view)(RequestFactory().get("/", HTTP_X_REQUEST_ID="req-1"))
    assert [(r.request_id, r.user) for r in lines.records] == [
        ("req-1", "-"), ("5c1d", "task:coupons.tasks.post_redemptions"), ("req-1", "-")]


def test_production_logs_json_lines_with_time_level_logger_and_context():
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DATABASE_OWNER_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env |= {"DJANGO_SETTINGS_MODULE": "compliance.settings", "DJANGO_ENV": "production",
            "SECRET_KEY": "s" * 60, "ALLOWED_HOSTS": "compliance.example.com", "AUDIT_CHAIN_KEY": "a" * 40,
            "DATABASE_URL": "sqlite:////tmp/log-check.sqlite3", "REDIS_URL": "redis://127.0.0.1:6379/15"}
    code = "import django, logging; django.setup(); logging.getLogger('compliance.x').warning('Table %s closed', 'CR-1')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    line = json.loads(done.stderr.strip().splitlines()[-1])
    assert line["level"] == "WARNING" and line["logger"] == "compliance.x" and line["message"] == "Table CR-1 closed"
    assert {"time", "request_id", "user", "facility"} <= set(line)
    assert line["time"].endswith("+00:00") and "T" in line["time"], "ISO 8601 in UTC: hosts' lines sort together"


def test_a_secret_is_read_from_the_file_its_FILE_variable_names(monkeypatch, tmp_path):
    secret = tmp_path / "audit-chain-key"
    secret.write_text("k" * 40 + "\n")
    monkeypatch.delenv("SOME_SECRET", raising=False)
    monkeypatch.setenv("SOME_SECRET_FILE", str(secret))
    assert env_str("SOME_SECRET") == "k" * 40
    monkeypatch.setenv("SOME_SECRET", "also here")
    with pytest.raises(ImproperlyConfiguredEnv, match="both set"):
        env_str("SOME_SECRET")
    monkeypatch.delenv("SOME_SECRET")
    monkeypatch.setenv("SOME_SECRET_FILE", str(tmp_path / "missing"))
    with pytest.raises(ImproperlyConfiguredEnv, match="cannot be read"):
        env_str("SOME_SECRET")


def test_admins_are_read_as_names_and_addresses(monkeypatch):
    monkeypatch.setenv("ADMINS", "Ann Lee <ann@casino.example>, it-oncall@casino.example")
    assert env_admins("ADMINS") == [("Ann Lee", "ann@casino.example"), ("it-oncall@casino.example",) * 2]
    monkeypatch.setenv("ADMINS", "Ann Lee")
    with pytest.raises(ImproperlyConfiguredEnv, match="not an e-mail address"):
        env_admins("ADMINS")
