"""The coupon browser tests keep real time (the browser's session cookies expire by its own clock): import these two
fixtures into a browser test module to replace the coupon tests' frozen day (tests/coupons/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest
from django.utils import timezone

__all__ = ["_frozen_day", "series_expires_on"]


@pytest.fixture
def series_expires_on() -> date:
    return date(timezone.localdate().year + 1, 12, 31)  # the real clock: never expired during a run


@pytest.fixture(autouse=True)
def _frozen_day() -> Iterator[None]:
    yield  # real time: no time travel in a browser test
