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
print(frozen, 'compliance.urls' in sys.modules, 'coupons.api.views' in sys.modules)
"""


def test_the_worker_imports_its_urls_and_freezes_what_it_made_at_start(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE")}
    env.update(DJANGO_SETTINGS_MODULE="compliance.settings", DATABASE_URL=f"sqlite:///{tmp_path / 'probe.sqlite3'}",
               PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    frozen, urls, views = done.stdout.split()
    assert int(frozen) > 50_000  # Django, the apps, the URLconf: hundreds of thousands of objects
    assert urls == views == "True"
