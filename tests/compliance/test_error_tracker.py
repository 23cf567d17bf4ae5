"""Errors to a Sentry-protocol tracker when ERROR_TRACKER_DSN is set (compliance/error_tracker.py): delivered, and
nothing a person typed leaves with them."""

from __future__ import annotations

import gzip
import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path

from compliance.error_tracker import scrub

ROOT = Path(__file__).resolve().parents[2]


def test_an_event_leaves_with_the_method_and_path_only_and_the_username_only():
    event = {
        "request": {"method": "POST", "url": "https://compliance.example.com/exclusion/screen/?name=Ann+Patron",
                    "data": {"password": "hunter2", "patrons": "Ann Patron"}, "cookies": {"sessionid": "s"},
                    "headers": {"Cookie": "sessionid=s"}, "query_string": "name=Ann+Patron", "env": {"REMOTE_ADDR": "1"}},
        "user": {"username": "finance", "email": "ann@casino.example", "ip_address": "10.0.0.7"},
        "exception": {"values": [{"type": "ValueError"}]},
    }
    sent = scrub(event)
    assert sent["request"] == {"method": "POST", "url": "https://compliance.example.com/exclusion/screen/"}
    assert sent["user"] == {"username": "finance"}
    assert "Patron" not in repr(sent) and "hunter2" not in repr(sent) and "ann@" not in repr(sent)
    assert sent["exception"] == {"values": [{"type": "ValueError"}]}


class _Tracker(http.server.BaseHTTPRequestHandler):
    received: list[bytes] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        _Tracker.received.append(self.path.encode() + b" " + body)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        return


def test_a_dsn_in_the_environment_sends_a_process_errors_to_the_tracker():
    server = http.server.HTTPServer(("127.0.0.1", 0), _Tracker)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DATABASE_OWNER_URL"}}
        env |= {"DJANGO_SETTINGS_MODULE": "compliance.settings", "DJANGO_ENV": "production",
                "SECRET_KEY": "s" * 60, "ALLOWED_HOSTS": "compliance.example.com", "AUDIT_CHAIN_KEY": "a" * 40,
                "DATABASE_URL": "sqlite:////tmp/tracker-check.sqlite3", "REDIS_URL": "redis://127.0.0.1:6379/15",
                "LOG_LEVEL": "CRITICAL",
                "ERROR_TRACKER_DSN": f"http://publickey@127.0.0.1:{server.server_port}/42"}
        code = ("import django, sentry_sdk; django.setup()\n"
                "try:\n    raise ValueError('the report could not be drawn')\n"
                "except ValueError:\n    sentry_sdk.capture_exception()\n"
                "sentry_sdk.flush(10)")
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == 0, done.stderr
    finally:
        server.shutdown()
    (delivery,) = _Tracker.received
    assert delivery.startswith(b"/api/42/envelope/")
    assert b"the report could not be drawn" in delivery and b'"environment":"production"' in delivery
