"""Property: over random sequences of receive / issue / distribute / void / return / expire / redeem and
day closings, every serial is in exactly one state (the one a per-coupon model predicts) and every
gaming day's reconciliation balances."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from compliance.models import Game
from compliance.services import signature_sign
from coupons import selectors, services
from coupons.models import CouponRange, CouponState, ReconciliationForm
from coupons.selectors.redemption import redemptions_awaiting_posting
from coupons.services.redemption import Scan, redemption_record
from tests.coupons.conftest import PASSWORD, TODAY, approve, make_series
from tests.factories import GamingTableFactory

pytestmark = pytest.mark.django_db
S = CouponState
SERIALS = 40  # per series: small, so the model can track every coupon one by one

OPS = ("receive", "issue", "distribute", "void", "return", "expire", "redeem", "next_day", "backdate", "process_ahead")
# Serial runs start on a grid of 5 so that moves line up often enough to be accepted, and split
# ranges often enough (lengths 1-12) to exercise every split.
operation = st.tuples(
    st.sampled_from((*OPS, "issue", "issue", "distribute", "distribute", "redeem", "return")),
    st.integers(0, 1),
    st.integers(0, 7).map(lambda k: 5 * k + 1),
    st.sampled_from([1, 2, 5, 10, 12]),
    st.booleans(),
    st.booleans(),
)
# Most sequences start by receiving part or all of both series; the random receives that follow
# exercise the refusal of serials already received.
opening = st.lists(
    st.tuples(
        st.just("receive"),
        st.integers(0, 1),
        st.sampled_from([1, 21]),
        st.sampled_from([20, 40]),
        st.just(False),
        st.just(False),
    ),
    min_size=1,
    max_size=3,
)


@dataclass
class Model:
    """What the ledger should say, one coupon at a time."""

    day: date = TODAY
    state: list[dict[int, str]] = field(default_factory=lambda: [{}, {}])
    carried_in: int = 0  # kept by marketing at the end of the previous day
    issued_today: int = 0
    closed: dict[date, list[tuple[int, ...]]] = field(default_factory=dict)  # each closed day's figures, as signed

    def states(self, series: int, first: int, last: int) -> set[str | None]:
        return {self.state[series].get(n) for n in range(first, last + 1)}

    def set(self, series: int, first: int, last: int, value: str) -> None:
        for n in range(first, last + 1):
            self.state[series][n] = value

    def set_each(self, series: int, serials: list[int], value: str) -> None:
        self.state[series].update(dict.fromkeys(serials, value))

    def count(self, value: str) -> int:
        return sum(1 for per_series in self.state for s in per_series.values() if s == value)


def _at(day: date) -> Any:
    return time_machine.travel(timezone.make_aware(datetime.combine(day, time(12, 0))), tick=False)


@pytest.fixture
def cast(program, finance_supervisor, finance_staff, marketing_staff, marketing_supervisor, dealer, compliance_officer):
    short = make_series(
        program.facility,
        program.program,
        finance_supervisor,
        code="mp10",
        prefix="MS",
        denomination_cents=1000,
        expires_on=TODAY + timedelta(days=1),
    )
    approve(program.facility, program.program, compliance_officer, short, kinds=("design",))
    return {
        "program": program,
        "series": [program.series, short],
        "fin": finance_supervisor,
        "fin_staff": finance_staff,
        "mkt_staff": marketing_staff,
        "mkt": marketing_supervisor,
        "dealer": dealer,
        "table": GamingTableFactory(is_open=True, facility=program.facility, number="CR-P", game=Game.objects.get(code="craps")),
    }


def _attempt(expected_ok: bool, call: Any, name: str = "") -> bool:
    event(f"{name} accepted" if expected_ok else "refused")
    try:
        call()
    except ValidationError as error:
        assert not expected_ok, f"refused but the model allows it: {error.messages}"
        return False
    assert expected_ok, "accepted but the model forbids it"
    return True


def _attempt_named(name: str, expected_ok: bool, call: Any) -> bool:
    return _attempt(expected_ok, call, name)


def _return_expired_first(c: dict[str, Any], model: Model, complete: dict[str, Any]) -> None:
    """Expired coupons marketing holds block the form until they go back, and so do coupons expiring tonight when
    the rest is kept: they cannot be used the next day (§ 525.21(k))."""
    keep = complete["disposition"] == "keep"
    blocking = [(i, series) for i, series in enumerate(c["series"])
                if (series.is_expired_on(model.day) or (keep and series.expires_on == model.day))
                and S.ISSUED in model.state[i].values()]
    if not blocking:
        return
    with pytest.raises(ValidationError, match=r"Expired coupons must be returned|cannot be kept"):
        services.reconciliation_complete(**complete)
    for i, series in blocking:
        held = sorted(n for n, s in model.state[i].items() if s == S.ISSUED)
        services.return_record(facility=c["program"].facility, user=c["mkt"], password=PASSWORD,
                               gaming_date=model.day, spans={series: [(n, n) for n in held]},
                               receiver=services.CoSigner(c["fin"], PASSWORD))
        model.set_each(i, held, S.RETURNED)


def _complete_form(c: dict[str, Any], model: Model, complete: dict[str, Any], held: int) -> None:
    complete["counted_remaining"] = {
        series.denomination_cents: sum(1 for s in model.state[i].values() if s == S.ISSUED)
        for i, series in enumerate(c["series"])
    }
    form = services.reconciliation_complete(**complete)
    figures = list(form.figures.all())
    assert sum(f.remaining_expected for f in figures) == held
    for f in figures:
        (index,) = [i for i, s in enumerate(c["series"]) if s.denomination_cents == f.denomination_cents]
        assert f.remaining_expected == sum(1 for s in model.state[index].values() if s == S.ISSUED)
    assert sum(f.carried_in for f in figures) == model.carried_in
    assert sum(f.received for f in figures) == model.issued_today


def _process_day(c: dict[str, Any], model: Model, keep: bool, held: int) -> None:
    # Finance's count by denomination (the two series have one each): what the model holds in each state.
    counted = {series.denomination_cents: {state: sum(1 for s in model.state[i].values() if s == state)
                                           for state in ("returned", "voided", "redeemed")}
               for i, series in enumerate(c["series"])}
    processing = services.finance_day_process(facility=c["program"].facility, gaming_date=model.day, counted=counted,
                                              user=c["fin_staff"], password=PASSWORD,
                                              restock_location=c["program"].vault)
    assert processing.variance == 0
    # Against the model, not against the record's own sum: what marketing was given and what it kept.
    assert processing.given_to_marketing == model.carried_in + model.issued_today
    assert processing.carried_forward == (held if keep else 0)


def _close_day(c: dict[str, Any], model: Model, keep: bool) -> None:
    program, facility = c["program"], c["program"].facility
    complete = {
        "facility": facility,
        "gaming_date": model.day,
        "counted_remaining": {},
        "user": c["mkt"],
        "password": PASSWORD,
        "disposition": "keep" if keep else "return",
        "kept_in": program.marketing_safe,
        "receiver": services.CoSigner(c["fin"], PASSWORD),
    }
    _return_expired_first(c, model, complete)
    held = model.count(S.ISSUED)
    _complete_form(c, model, complete, held)
    if not keep:
        for per_series in model.state:
            for n, s in per_series.items():
                if s == S.ISSUED:
                    per_series[n] = S.RETURNED
    _process_day(c, model, keep, held)
    model.closed[model.day] = _figures(c, model.day)
    model.carried_in, model.issued_today = (held if keep else 0), 0
    for i, series in enumerate(c["series"]):
        for n, s in model.state[i].items():
            if s in (S.VOIDED, S.REDEEMED):
                model.state[i][n] = S.CANCELLED
            elif s == S.RETURNED:
                model.state[i][n] = S.EXPIRED if series.is_expired_on(model.day) else S.IN_STOCK
    model.day += timedelta(days=1)


# An aimed operation starts at a serial in the state the step needs (so it is often accepted);
# an unaimed one starts anywhere (so refusals are exercised too).
SOURCE = {"issue": S.IN_STOCK, "distribute": S.ISSUED, "void": S.ISSUED, "return": S.ISSUED, "redeem": S.DISTRIBUTED}


@dataclass
class _Step:
    """One operation of the run, with what the model says about the serials it touches."""

    c: dict[str, Any]
    model: Model
    name: str
    index: int
    series: Any
    facility: Any
    first: int
    last: int
    flag: bool

    @property
    def spans(self) -> list[tuple[int, int]]:
        return [(self.first, self.last)]

    @property
    def states(self) -> set[str | None]:
        return self.model.states(self.index, self.first, self.last)

    @property
    def expired(self) -> bool:
        return bool(self.series.is_expired_on(self.model.day))

    def moved_to(self, state: str) -> None:
        self.model.set(self.index, self.first, self.last, state)


def _receive(step: _Step) -> None:
    c, model, series, first, last = step.c, step.model, step.series, step.first, step.last
    ok = step.states == {None}

    def call() -> None:
        receipt = services.receipt_record(
            facility=step.facility,
            series=series,
            received_on=model.day,
            supplier="P",
            invoice_number="I",
            invoice_quantity=last - first + 1,
            invoice_first_serial=first,
            invoice_last_serial=last,
            received=step.spans,
            location=c["program"].vault,
            user=c["fin"],
            password=PASSWORD,
        )
        signature_sign(record=receipt, slot="examined_finance", user=c["fin_staff"], password=PASSWORD)
        signature_sign(record=receipt, slot="examined_marketing", user=c["mkt_staff"], password=PASSWORD)

    if _attempt_named(step.name, ok, call):
        step.moved_to(S.IN_STOCK)


def _issue(step: _Step) -> None:
    c, model, series, first, last = step.c, step.model, step.series, step.first, step.last
    ok = step.states == {S.IN_STOCK} and not step.expired

    def call() -> None:
        requisition = services.requisition_prepare(
            facility=step.facility,
            program=series.program,
            denomination_cents=series.denomination_cents,
            quantity=last - first + 1,
            needed_for=model.day,
            user=c["mkt"],
            password=PASSWORD,
        )
        signature_sign(record=requisition, slot="authorized", user=c["fin"], password=PASSWORD)
        services.issuance_record(
            requisition=requisition,
            series=series,
            issued=step.spans,
            user=c["fin"],
            password=PASSWORD,
            gaming_date=model.day,
            receiver=services.CoSigner(c["mkt"], PASSWORD),
        )

    if _attempt_named(step.name, ok, call):
        step.moved_to(S.ISSUED)
        model.issued_today += last - first + 1


def _distribute(step: _Step) -> None:
    ok = step.states == {S.ISSUED} and not step.expired
    if _attempt_named(
        step.name,
        ok,
        lambda: services.distribution_record(
            facility=step.facility, series=step.series, spans=step.spans, user=step.c["mkt_staff"],
            gaming_date=step.model.day,
        ),
    ):
        step.moved_to(S.DISTRIBUTED)


def _void(step: _Step) -> None:
    # Finance stock is a finance supervisor's to void, marketing's coupons a marketing supervisor's:
    # a span across both custodies is refused (§ 525.21(i), (j)(6)).
    states = step.states
    ok = states in ({S.IN_STOCK}, {S.ISSUED})
    user = step.c["mkt"] if S.ISSUED in states else step.c["fin"]
    if _attempt_named(
        step.name,
        ok,
        lambda: services.coupons_void(
            facility=step.facility,
            series=step.series,
            spans=step.spans,
            reason="torn",
            user=user,
            password=PASSWORD,
            gaming_date=step.model.day,
        ),
    ):
        step.moved_to(S.VOIDED)


def _return(step: _Step) -> None:
    ok = step.states == {S.ISSUED}
    if _attempt_named(
        step.name,
        ok,
        lambda: services.return_record(
            facility=step.facility,
            user=step.c["mkt"],
            password=PASSWORD,
            gaming_date=step.model.day,
            spans={step.series: step.spans},
            receiver=services.CoSigner(step.c["fin"], PASSWORD),
        ),
    ):
        step.moved_to(S.RETURNED)


def _expire(step: _Step) -> None:
    model, index = step.model, step.index
    held = [n for n, s in model.state[index].items() if s in (S.IN_STOCK, S.RETURNED)]
    ok = step.expired and bool(held)
    if _attempt_named(
        step.name, ok, lambda: services.stock_expire(series=step.series, user=step.c["fin_staff"], on_date=model.day)
    ):
        for n in held:
            model.state[index][n] = S.EXPIRED


def _redeem_at_the_table(step: _Step) -> None:
    """The dealer scans each coupon of the spans at a craps table; all of them or none (one transaction)."""
    with transaction.atomic():
        for first, last in step.spans:
            for serial in range(first, last + 1):
                redemption_record(facility=step.facility, user=step.c["dealer"], scan=Scan(
                    serial=step.series.serial(serial), table=step.c["table"], position="pass_line",
                    chips_cents=step.series.denomination_cents))


def _redeem(step: _Step) -> None:
    ok = step.states == {S.DISTRIBUTED} and not step.expired
    if _attempt_named(
        step.name,
        ok,
        lambda: _redeem_at_the_table(step),
    ):
        step.moved_to(S.REDEEMED)


def _backdate(step: _Step) -> None:
    """A movement dated a closed gaming day (yesterday, closed by its form and its processing) is refused,
    whatever it is: a distribution, a void, a receipt."""
    if step.model.day == TODAY:
        return
    yesterday = step.model.day - timedelta(days=1)
    event("a movement backdated into a closed day")
    c, series = step.c, step.series
    _attempt_named("backdated distribution", False, lambda: services.distribution_record(
        facility=step.facility, series=series, spans=step.spans, user=c["mkt_staff"], gaming_date=yesterday))
    _attempt_named("backdated void", False, lambda: services.coupons_void(
        facility=step.facility, series=series, spans=step.spans, reason="late", user=c["fin"], password=PASSWORD,
        gaming_date=yesterday))


def _process_ahead(step: _Step) -> None:
    """Finance cannot process a day that has not happened, nor one already processed."""
    c = step.c
    event("processing out of order")

    def process(day: date) -> Any:
        return lambda: services.finance_day_process(
            facility=step.facility, gaming_date=day, counted={2500: {"returned": 0, "voided": 0, "redeemed": 0}},
            user=c["fin_staff"], password=PASSWORD, restock_location=c["program"].vault)

    _attempt_named("processing tomorrow", False, process(step.model.day + timedelta(days=1)))
    if step.model.day != TODAY:
        _attempt_named("processing again", False, process(step.model.day - timedelta(days=1)))


def _figures(c: dict[str, Any], day: date) -> list[tuple[int, ...]]:
    return [(f.denomination_cents, f.carried_in, f.received, f.distributed, f.voided, f.returned)
            for f in selectors.day_figures(c["program"].facility, day)]


def _assert_closed_days_unchanged(c: dict[str, Any], model: Model) -> None:
    for day, figures in model.closed.items():
        assert _figures(c, day) == figures, f"the figures of {day}, a closed day, changed"


def _next_day(step: _Step) -> None:
    event("day closed")
    _close_day(step.c, step.model, keep=step.flag)


_STEPS = {
    "receive": _receive, "issue": _issue, "distribute": _distribute, "void": _void, "return": _return,
    "expire": _expire, "redeem": _redeem, "next_day": _next_day, "backdate": _backdate,
    "process_ahead": _process_ahead,
}


def _aimed(model: Model, name: str, index: int, first: int, length: int, aim: bool) -> tuple[int, int]:
    """Where an aimed operation starts, and how far the run of serials in the state it needs goes."""
    candidates = sorted(n for n, s in model.state[index].items() if s == SOURCE.get(name))
    if aim and candidates:
        first = candidates[first % len(candidates)]
        run = 1
        while run < length and first + run in model.state[index] and model.state[index][first + run] == SOURCE[name]:
            run += 1
        length = run
    return first, length


def _apply(c: dict[str, Any], model: Model, op: tuple[str, int, int, int, bool, bool]) -> None:
    name, index, first, length, flag, aim = op
    first, length = _aimed(model, name, index, first, length, aim)
    step = _Step(c=c, model=model, name=name, index=index, series=c["series"][index],
                 facility=c["program"].facility, first=first, last=min(SERIALS, first + length - 1), flag=flag)
    if name in _STEPS:
        _STEPS[name](step)


def _assert_every_serial_in_exactly_one_state(c: dict[str, Any], model: Model, *, post: bool = True) -> None:
    """Each serial in one state, as the ranges hold it with the redemptions not yet posted read as *redeemed*
    (the one reading, ``redemptions_awaiting_posting``); with ``post``, after posting them, as the ranges alone
    hold it."""
    facility = c["program"].facility
    if post:
        services.redemptions_post(facility=facility)
    awaiting = {(a.redemption.series_id, a.redemption.serial) for a in redemptions_awaiting_posting(facility)
                if a.held_state == S.DISTRIBUTED}
    assert not (post and awaiting)
    for index, series in enumerate(c["series"]):
        seen: dict[int, str] = {}
        for first, last, state in CouponRange.objects.filter(series=series, closed_by__isnull=True).values_list(
            "first_serial", "last_serial", "state"
        ):
            for n in range(first, last + 1):
                assert n not in seen, f"serial {n} is in two states"
                seen[n] = S.REDEEMED if (series.pk, n) in awaiting else state
        assert seen == model.state[index]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first_ops=opening, ops=st.lists(operation, min_size=8, max_size=25))
def test_every_serial_is_in_one_state_and_every_day_balances(cast, first_ops, ops):
    model = Model()
    ops = first_ops + ops
    with transaction.atomic():
        for number, op in enumerate(ops):
            with _at(model.day):
                _apply(cast, model, op)
                # Redemptions are posted into the ranges by a beat job: every other step finds some waiting.
                _assert_every_serial_in_exactly_one_state(cast, model, post=number % 2 == 1)
            _assert_closed_days_unchanged(cast, model)
        with _at(model.day):
            _close_day(cast, model, keep=False)
        _assert_every_serial_in_exactly_one_state(cast, model)
        assert ReconciliationForm.objects.count() >= 1
        transaction.set_rollback(True)
