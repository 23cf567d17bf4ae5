"""A web worker's start (compliance/wsgi.py, issue 27): the URLconf and its views imported before the first request,
and what the start made frozen out of the garbage collector's walk, so that no request pays for a full collection
over the whole application (244 ms measured on the pages of a generated year). In a process of its own: freezing is
for the life of a process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, sys
import compliance.wsgi
frozen = gc.get_freeze_count()
from django.urls import get_resolver
print(frozen, 'compliance.urls' in sys.modules, 'coupons.api.views' in sys.modules, get_resolver()._populated)
"""


def test_the_worker_imports_its_urls_and_freezes_what_it_made_at_start(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE")}
    env.update(DJANGO_SETTINGS_MODULE="compliance.settings", DATABASE_URL=f"sqlite:///{tmp_path / 'probe.sqlite3'}",
               PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    frozen, urls, views, reversible = done.stdout.split()
    assert int(frozen) > 50_000  # Django, the apps, the URLconf: hundreds of thousands of objects
    assert urls == views == "True"
    assert reversible == "True"  # reverse()'s patterns compiled at the start, not in the first request


def _start(tmp_path: Path, code: str, **settings: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DATABASE") and k not in {"DJANGO_ENV", "DEBUG", "SECRET_KEY", "REDIS_URL", "STATIC_ROOT"}}
    env.update(DJANGO_SETTINGS_MODULE="compliance.settings", DATABASE_URL=f"sqlite:///{tmp_path / 'probe.sqlite3'}",
               PYTHONPATH=str(ROOT), **settings)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False,
                          timeout=180)


def test_the_cache_client_is_built_at_start_without_connecting(tmp_path):
    """A new worker's first scan no longer imports redis-py; and nothing listens on port 1, so a start that
    connected to Redis would fail here."""
    done = _start(tmp_path, "import sys, compliance.wsgi; print('redis' in sys.modules)",
                  REDIS_URL="redis://127.0.0.1:1/0")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["True"]


PRODUCTION = {
    "DJANGO_ENV": "production", "SECRET_KEY": "k" * 20 + "-production-secret-for-the-start-only-" + "z" * 20,
    "ALLOWED_HOSTS": "compliance.example.com", "AUDIT_CHAIN_KEY": "c" * 40, "REDIS_URL": "redis://127.0.0.1:1/0",
}


def test_production_refuses_to_start_a_web_worker_whose_static_files_were_not_collected(tmp_path):
    static = tmp_path / "static"
    refused = _start(tmp_path, "import compliance.wsgi", STATIC_ROOT=str(static), **PRODUCTION)
    assert refused.returncode != 0
    assert f"The static files were not collected into STATIC_ROOT ({static})" in refused.stderr
    assert "Run `deploy/compliance-admin collectstatic --noinput`" in refused.stderr

    collected = _start(tmp_path, "from django.core.management import call_command; import django; django.setup(); "
                                 "call_command('collectstatic', interactive=False, verbosity=0)",
                       STATIC_ROOT=str(static), **PRODUCTION)
    assert collected.returncode == 0, collected.stderr[-3000:]
    started = _start(tmp_path, "import compliance.wsgi; print('started')", STATIC_ROOT=str(static), **PRODUCTION)
    assert started.returncode == 0, started.stderr[-3000:]
    assert started.stdout.split() == ["started"]
