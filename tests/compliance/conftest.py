"""The compliance tests that need a coupon floor (the chain, its anchors and pages, the evidence bundle, the restore
drill, the generator's SQL writer) use the coupon tests' fixtures, asked for by name, and mark their module with
``coupon_clock`` (the coupon tests' gaming day of 3 Nov 2026) and, where a table must take wagers, with
``coupon_tables_ready``. Neither applies by itself: the other compliance tests keep the real clock and readiness."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.coupons.conftest import coupon_clock as _clock
from tests.coupons.conftest import (  # noqa: F401 (fixtures, found by their names)
    craps_table,
    handed_out,
    issue,
    program,
    receive,
    requisition,
    series_expires_on,
    tables_always_ready,
)


@pytest.fixture
def coupon_clock() -> Iterator[None]:
    with _clock():
        yield


@pytest.fixture
def coupon_tables_ready(monkeypatch: pytest.MonkeyPatch) -> Any:
    tables_always_ready(monkeypatch)
