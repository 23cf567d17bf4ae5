"""The per-coupon model of tests/coupons/test_lifecycle_machine.py: what marketing's day should say, the documents
a take-back may name, and the one way a step is held to the model's prediction."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from hypothesis import event
from hypothesis import strategies as st

SERIALS = 30  # per series: few, so the model follows every coupon and moves often meet
DENOMINATIONS = (2500, 1000)
# Runs start on a grid of 5 so that moves line up often enough to be accepted, and split ranges (lengths 1-10).
series_index = st.integers(0, len(DENOMINATIONS) - 1)
first_serial = st.integers(0, SERIALS // 5 - 1).map(lambda k: 5 * k + 1)
run_length = st.sampled_from([1, 2, 5, 10])
# Three steps in four aim at serials in the state they need (mostly accepted); the fourth falls anywhere (refusals).
aimed = st.sampled_from([True, True, True, False])


@dataclass
class Day:
    """Marketing's figures of the open gaming day, one counter per series, as the form should freeze them."""

    carried_in: Counter[int] = field(default_factory=Counter)
    received: Counter[int] = field(default_factory=Counter)
    distributed: Counter[int] = field(default_factory=Counter)
    voided: Counter[int] = field(default_factory=Counter)  # by marketing, of coupons it held
    returned: Counter[int] = field(default_factory=Counter)
    returned_with_form: Counter[int] = field(default_factory=Counter)
    form_done: bool = False
    kept: bool = False
    processed: bool = False

    @property
    def marketing_open(self) -> bool:
        """Marketing may move coupons on the day until its form is signed, or finance processed the day."""
        return not (self.form_done or self.processed)

    @property
    def empty(self) -> bool:
        """No figures: nothing carried in or received, so nothing for a form to say (finance needs none)."""
        return not (+self.carried_in or +self.received)


@dataclass
class Movement:
    """A document of the run, for a take-back: which serials it moved, to what, and on which day."""

    document: Any
    series: int
    serials: list[int]
    to_state: str
    day: date
    column: str = ""  # the day's figure it counted in; "" for what marketing cannot take back
    reversed: bool = False


def noon(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time(12, 0)))


def attempt(expected: bool, call: Any, name: str) -> bool:
    """Run ``call`` (all of it or nothing) and hold it to the model's prediction."""
    event(f"{name}: {'accepted' if expected else 'refused'}")
    try:
        with transaction.atomic():
            call()
    except ValidationError as error:
        assert not expected, f"{name} refused, but the model allows it: {error.messages}"
        return False
    assert expected, f"{name} accepted, but the model forbids it"
    return True


