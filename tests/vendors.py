"""Marks for the tests of what only PostgreSQL does (the suite falls back to SQLite when no server answers:
``compliance/testing.py``). Each says why, so a run on SQLite lists what it did not try."""

from __future__ import annotations

import pytest
from django.db import connection


def postgresql_only(why: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(connection.vendor != "postgresql", reason=f"PostgreSQL only: {why}")
