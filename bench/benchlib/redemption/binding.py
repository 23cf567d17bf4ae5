"""Django's server-side binding for psycopg, for a bench run that asks for it (``--server-side-binding``).

``DATABASES["default"]["OPTIONS"]["server_side_binding"] = True`` makes Django's own cursors bind parameters on
the server, so psycopg prepares a statement run often (``prepare_threshold``) and PostgreSQL plans it once per
connection. The settings do not offer it from the environment; the bench turns it on in its own processes
(gunicorn through :data:`application`, the in-process profile through :func:`apply`), never in settings.py.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["ENV", "application", "apply"]

ENV = "BENCH_SERVER_SIDE_BINDING"


def apply() -> None:
    """Turn the option on in this process's settings, before its first connection, if the bench asked."""
    if os.environ.get(ENV) == "1":
        from django.conf import settings

        default: dict[str, Any] = settings.DATABASES["default"]
        default.setdefault("OPTIONS", {})["server_side_binding"] = True


def _application() -> Any:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")
    apply()
    from django.core.wsgi import get_wsgi_application

    return get_wsgi_application()


application = _application()
