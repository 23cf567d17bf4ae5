"""The coupon lifecycle as a Hypothesis state machine (issue 27, item 5): receiving, issuance, distribution, redemption
at a table, voids and returns, take-backs of a movement while its day is open, marketing's reconciliation form,
finance's daily processing and the change of gaming day, in any order the machine picks, each attempted whether or
not the rules allow it.

A per-coupon model predicts, for every step, whether the services accept it and where each serial ends up. After
every step: every serial is in exactly one state, the one the model predicts (a redemption not yet posted into the
ranges read as *redeemed*); every gaming day finance processed
reconciles, variance 0 and its figures adding up. tests/coupons/test_properties.py is the same idea as a sequence
of operations, with expiry and backdating; this machine adds redemptions, take-backs and the day's closing in
separate steps, so that a step can fall between the form and the processing.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any, ClassVar

import pytest
import time_machine
from django.db import transaction
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
    run_state_machine_as_test,
)

from compliance.models import Game
from compliance.services import signature_sign
from coupons import services
from coupons.models import CouponRange, CouponReturn, CouponState, FinanceDayProcessing, Redemption
from coupons.services.redemption import Scan, redemption_record
from tests.coupons.conftest import PASSWORD, TODAY, approve, make_series
from tests.coupons.lifecycle_model import (
    DENOMINATIONS,
    SERIALS,
    Day,
    Movement,
    aimed,
    attempt,
    first_serial,
    noon,
    run_length,
    series_index,
)
from tests.factories import GamingTableFactory

pytestmark = pytest.mark.django_db
S = CouponState


class CouponLifecycle(RuleBasedStateMachine):
    cast: ClassVar[dict[str, Any]]  # the test's personas and program, made once for every run
    movements = Bundle("movements")

    def __init__(self) -> None:
        super().__init__()
        self.savepoint = transaction.savepoint()  # each run starts from the test's own data and leaves nothing
        self.clock = time_machine.travel(noon(TODAY), tick=False)
        self.clock.start()
        self.today = TODAY
        self.state: list[dict[int, str]] = [{} for _ in DENOMINATIONS]
        self.day = Day()
        self.moved_today: list[Movement] = []  # the day's movements marketing could take back, in order

    def teardown(self) -> None:
        self.clock.stop()
        transaction.savepoint_rollback(self.savepoint)

    # --- helpers --------------------------------------------------------------------------------------------

    @property
    def c(self) -> dict[str, Any]:
        return self.cast

    @property
    def facility(self) -> Any:
        return self.c["program"].facility

    def states(self, index: int, serials: list[int]) -> set[str | None]:
        return {self.state[index].get(n) for n in serials}

    def held(self, index: int, wanted: str | None) -> list[int]:
        """The serials in state ``wanted`` (None: not received yet)."""
        return [n for n in range(1, SERIALS + 1) if self.state[index].get(n) == wanted]

    def serials(self, index: int, first: int, length: int, aim: str | bool | None) -> list[int]:
        """A run of serials from ``first``; aimed, from a serial in state ``aim`` (None: not received) along the
        run in that state, so that most steps are accepted; unaimed (False), where it falls, so that refusals are
        exercised too."""
        candidates = self.held(index, aim) if aim is not False and aim is not True else []
        if candidates:
            first = candidates[first % len(candidates)]
            run = [first]
            while len(run) < length and first + len(run) in candidates:
                run.append(first + len(run))
            return run
        return list(range(first, min(SERIALS, first + length - 1) + 1))

    def move(self, index: int, serials: list[int], to: str) -> None:
        self.state[index].update(dict.fromkeys(serials, to))

    def count(self, index: int, wanted: str) -> int:
        return sum(1 for s in self.state[index].values() if s == wanted)

    def span(self, serials: list[int]) -> list[tuple[int, int]]:
        return [(serials[0], serials[-1])]

    def moved(self, movement: Movement) -> Movement:
        self.moved_today.append(movement)
        return movement

    # --- finance's stock and marketing's day -----------------------------------------------------------------

    def _receive(self, index: int, serials: list[int]) -> bool:
        series, (first, last) = self.c["series"][index], (serials[0], serials[-1])

        def call() -> None:
            receipt = services.receipt_record(
                facility=self.facility, series=series, received_on=self.today, supplier="Gaming Printers Inc.",
                invoice_number="INV", invoice_quantity=last - first + 1, invoice_first_serial=first,
                invoice_last_serial=last, received=[(first, last)], location=self.c["program"].vault,
                user=self.c["fin"], password=PASSWORD)
            signature_sign(record=receipt, slot="examined_finance", user=self.c["fin_staff"], password=PASSWORD)
            signature_sign(record=receipt, slot="examined_marketing", user=self.c["mkt_staff"], password=PASSWORD)

        if attempt(self.states(index, serials) == {None} and not self.day.processed, call, "receive"):
            self.move(index, serials, S.IN_STOCK)
            return True
        return False

    @precondition(lambda self: not self.day.processed)  # a processed day takes no movement: go to the next
    @rule(index=series_index, first=first_serial, length=run_length, aim=aimed)
    def receive(self, index: int, first: int, length: int, aim: bool) -> None:
        self._receive(index, self.serials(index, first, length, None if aim else False))

    def _issue(self, index: int, serials: list[int]) -> bool:
        series, c = self.c["series"][index], self.c

        def call() -> None:
            requisition = services.requisition_prepare(
                facility=self.facility, program=series.program, denomination_cents=series.denomination_cents,
                quantity=len(serials), needed_for=self.today, user=c["mkt"], password=PASSWORD)
            signature_sign(record=requisition, slot="authorized", user=c["fin"], password=PASSWORD)
            services.issuance_record(requisition=requisition, series=series, issued=self.span(serials), user=c["fin"],
                                     password=PASSWORD, gaming_date=self.today,
                                     receiver=services.CoSigner(c["mkt"], PASSWORD))

        if attempt(self.states(index, serials) == {S.IN_STOCK} and self.day.marketing_open, call, "issue"):
            self.move(index, serials, S.ISSUED)
            self.day.received[index] += len(serials)
            return True
        return False

    def _distribute(self, index: int, serials: list[int]) -> Movement | None:
        made: list[Any] = []

        def call() -> None:
            made.append(services.distribution_record(
                facility=self.facility, series=self.c["series"][index], spans=self.span(serials),
                user=self.c["mkt_staff"], gaming_date=self.today))

        if not attempt(self.states(index, serials) == {S.ISSUED} and self.day.marketing_open, call, "distribute"):
            return None
        self.move(index, serials, S.DISTRIBUTED)
        self.day.distributed[index] += len(serials)
        return self.moved(Movement(made[0], index, serials, S.DISTRIBUTED, self.today, column="distributed"))

    @initialize(target=movements, lots=st.lists(st.tuples(st.sampled_from([10, 20, 30]), st.sampled_from([0, 5, 10]),
                                                           st.sampled_from([0, 2, 5])),
                                                 min_size=len(DENOMINATIONS), max_size=len(DENOMINATIONS)))
    def opening_day(self, lots: list[tuple[int, int, int]]) -> Any:
        """The first day's morning: each series received in part, some of it issued to marketing and some of that
        handed to patrons, so that the steps after it have coupons in every custody."""
        given: list[Movement] = []
        for index, (received, issued, distributed) in enumerate(lots):
            assert self._receive(index, list(range(1, received + 1)))
            if issued:
                assert self._issue(index, list(range(1, issued + 1)))
            if issued and distributed:
                movement = self._distribute(index, list(range(1, distributed + 1)))
                assert movement is not None
                given.append(movement)
        return multiple(*given)

    @precondition(lambda self: not self.day.processed)  # a processed day takes no movement: go to the next
    @rule(index=series_index, first=first_serial, length=run_length, aim=aimed)
    def issue(self, index: int, first: int, length: int, aim: bool) -> None:
        self._issue(index, self.serials(index, first, length, S.IN_STOCK if aim else False))

    @precondition(lambda self: not self.day.processed)  # a processed day takes no movement: go to the next
    @rule(target=movements, index=series_index, first=first_serial, length=run_length, aim=aimed)
    def distribute(self, index: int, first: int, length: int, aim: bool) -> Any:
        movement = self._distribute(index, self.serials(index, first, length, S.ISSUED if aim else False))
        return multiple() if movement is None else movement

    @precondition(lambda self: not self.day.processed)  # a processed day takes no movement: go to the next
    @rule(target=movements, index=series_index, first=first_serial, length=run_length,
          aim=st.sampled_from([S.ISSUED, S.IN_STOCK, False]))
    def void(self, index: int, first: int, length: int, aim: str | bool) -> Any:
        """Finance voids its stock while its day is open, marketing what it holds while the form is not signed
        (§ 525.21(i), (j)(6)); a run across both custodies is refused."""
        serials = self.serials(index, first, length, aim)
        states = self.states(index, serials)
        by_marketing = S.ISSUED in states
        day_open = self.day.marketing_open if by_marketing else not self.day.processed
        made: list[Any] = []

        def call() -> None:
            made.append(services.coupons_void(
                facility=self.facility, series=self.c["series"][index], spans=self.span(serials), reason="torn",
                user=self.c["mkt"] if by_marketing else self.c["fin"], password=PASSWORD, gaming_date=self.today))

        if not attempt(states in ({S.IN_STOCK}, {S.ISSUED}) and day_open, call, "void"):
            return multiple()
        self.move(index, serials, S.VOIDED)
        if by_marketing:
            self.day.voided[index] += len(serials)
        return self.moved(Movement(made[0], index, serials, S.VOIDED, self.today,
                                   column="voided" if by_marketing else ""))

    @precondition(lambda self: not self.day.processed)  # a processed day takes no movement: go to the next
    @rule(target=movements, index=series_index, first=first_serial, length=run_length, aim=aimed)
    def give_back(self, index: int, first: int, length: int, aim: bool) -> Any:
        """Marketing returns some of what it holds to finance during the day, § 525.21(k)-(l)."""
        serials = self.serials(index, first, length, S.ISSUED if aim else False)
        made: list[Any] = []

        def call() -> None:
            made.append(services.return_record(
                facility=self.facility, user=self.c["mkt"], password=PASSWORD, gaming_date=self.today,
                spans={self.c["series"][index]: self.span(serials)},
                receiver=services.CoSigner(self.c["fin"], PASSWORD)))

        if not attempt(self.states(index, serials) == {S.ISSUED} and self.day.marketing_open, call, "return"):
            return multiple()
        self.move(index, serials, S.RETURNED)
        self.day.returned[index] += len(serials)
        return self.moved(Movement(made[0], index, serials, S.RETURNED, self.today, column="returned"))

    @precondition(lambda self: any(S.DISTRIBUTED in held.values() for held in self.state))
    @rule(index=series_index, first=first_serial, length=run_length, aim=aimed)
    def redeem(self, index: int, first: int, length: int, aim: bool) -> None:
        """A dealer scans coupons at the craps table, one scan each (§ 525.22): only a coupon in a patron's hands,
        and only until finance has processed the gaming day."""
        series = self.c["series"][index]
        for serial in self.serials(index, first, length, S.DISTRIBUTED if aim else False):
            scan = Scan(serial=series.serial(serial), table=self.c["table"], position="pass_line",
                        chips_cents=series.denomination_cents)
            expected = self.state[index].get(serial) == S.DISTRIBUTED and not self.day.processed
            if attempt(expected, lambda scan=scan: redemption_record(
                    facility=self.facility, user=self.c["dealer"], scan=scan), "redeem"):
                self.move(index, [serial], S.REDEEMED)

    @rule()
    def post_redemptions(self) -> None:
        """The beat job: the redemptions move into the ledger's ranges (nothing the model sees changes)."""
        services.redemptions_post(facility=self.facility)

    @rule(movement=movements, latest=aimed)
    def take_back(self, movement: Movement, latest: bool) -> None:
        """movement_reverse, § 525.21(j)(6)-(7): marketing's own movement of coupons it held, taken back while its
        day's form is not signed, once, and only if every coupon it moved is still where it put them (a coupon
        given out and already redeemed stays redeemed). Mostly the day's latest movement (the one keyed by
        mistake a moment ago); otherwise any of the run, of any day."""
        undoable = [m for m in self.moved_today if m.column and not m.reversed]
        if latest and undoable:
            movement = undoable[-1]
        expected = (bool(movement.column) and not movement.reversed and movement.day == self.today
                    and self.day.marketing_open
                    and self.states(movement.series, movement.serials) == {movement.to_state})
        if attempt(expected, lambda: services.movement_reverse(
                facility=self.facility, document=movement.document, reason="keyed by mistake", user=self.c["mkt"],
                password=PASSWORD), "take back"):
            movement.reversed = True
            self.move(movement.series, movement.serials, S.ISSUED)
            getattr(self.day, movement.column)[movement.series] -= len(movement.serials)

    # --- closing the day --------------------------------------------------------------------------------------

    def _form(self, keep: bool) -> list[Any]:
        """Marketing's reconciliation form, counted as the model holds (no variation); the form, if signed."""
        c, series = self.c, self.c["series"]
        forms: list[Any] = []

        def call() -> None:
            forms.append(services.reconciliation_complete(
                facility=self.facility, gaming_date=self.today, user=c["mkt"], password=PASSWORD,
                counted_remaining={s.denomination_cents: self.count(i, S.ISSUED) for i, s in enumerate(series)},
                disposition="keep" if keep else "return", kept_in=c["program"].marketing_safe,
                receiver=services.CoSigner(c["fin"], PASSWORD)))

        attempt(self.day.marketing_open, call, "complete form")
        return forms

    # A form is signed once a day: the steps go on to the processing (a second form is tried, and refused, in it).
    @precondition(lambda self: self.day.marketing_open)
    @rule(target=movements, keep=st.booleans())
    def complete_form(self, keep: bool) -> Any:
        """§ 525.21(j)-(k): what is left is kept in the locked cabinet for tomorrow or goes back to finance with the
        form; marketing's day is closed, a second form refused."""
        held = {i: self.count(i, S.ISSUED) for i in range(len(DENOMINATIONS))}
        if not self.day.empty:
            assert not self._process()  # finance processes the day from the signed form, not before it
        (form,) = self._form(keep)
        self.day.form_done, self.day.kept = True, keep
        self._check_form(form, held)
        assert not self._form(keep)
        if keep:
            return multiple()
        back = CouponReturn.objects.filter(reconciliation=form).first()
        for i in range(len(DENOMINATIONS)):
            self.day.returned_with_form[i] = held[i]
            self.move(i, self.held(i, S.ISSUED), S.RETURNED)
        # The form's own return: part of closing the day, never taken back on its own.
        return multiple() if back is None else Movement(back, 0, [], S.RETURNED, self.today)

    def _check_form(self, form: Any, held: dict[int, int]) -> None:
        figures = {f.denomination_cents: f for f in form.figures.all()}
        for i, cents in enumerate(DENOMINATIONS):
            f = figures.get(cents)
            frozen = (f.carried_in, f.received, f.distributed, f.voided, f.returned, f.remaining_expected) if f \
                else (0, 0, 0, 0, 0, 0)
            d = self.day
            assert frozen == (d.carried_in[i], d.received[i], d.distributed[i], d.voided[i], d.returned[i], held[i])

    def _process(self) -> list[Any]:
        """Finance's daily processing, counted as the model holds; the processing, if signed."""
        counted = self.counted()
        done: list[Any] = []

        def call() -> None:
            done.append(services.finance_day_process(
                facility=self.facility, gaming_date=self.today, counted=counted, user=self.c["fin_staff"],
                password=PASSWORD, restock_location=self.c["program"].vault))

        attempt(not self.day.processed and (self.day.form_done or self.day.empty), call, "process day")
        return done

    def counted(self) -> dict[int, dict[str, int]]:
        return {cents: {label: self.count(i, label) for label in ("returned", "voided", "redeemed")}
                for i, cents in enumerate(DENOMINATIONS)}

    # Before the form, on a day marketing had coupons, processing is refused: tried (once) in complete_form.
    @precondition(lambda self: not self.day.processed and (self.day.form_done or self.day.empty))
    @rule()
    def process_day(self) -> None:
        """§ 525.21(m): from the day's signed form (none needed if marketing had nothing that day); once signed, the
        day is closed to everything, a second processing and a late form refused."""
        counted = self.counted()
        done = self._process()
        if not done:
            return
        self.day.processed = True
        self._check_processing(done[0], counted)
        for i in range(len(DENOMINATIONS)):
            for n, s in self.state[i].items():
                if s in (S.VOIDED, S.REDEEMED):
                    self.state[i][n] = S.CANCELLED
                elif s == S.RETURNED:
                    self.state[i][n] = S.IN_STOCK
        assert not self._process()
        if not self.day.form_done:
            assert not self._form(keep=False)

    def _check_processing(self, processing: Any, counted: dict[int, dict[str, int]]) -> None:
        """Against the model, not only against the record's own sums: what marketing was given and kept."""
        d = self.day
        assert processing.variance == 0
        assert processing.given_to_marketing == sum(d.carried_in.values()) + sum(d.received.values())
        assert processing.distributed == sum(d.distributed.values())
        assert processing.returned == sum(d.returned.values()) + sum(d.returned_with_form.values())
        kept = sum(self.count(i, S.ISSUED) for i in range(len(DENOMINATIONS)))
        assert processing.carried_forward == (kept if d.kept else 0)
        assert processing.counted_redeemed == sum(by_state["redeemed"] for by_state in counted.values())

    @precondition(lambda self: self.day.processed)
    @rule()
    def next_day(self) -> None:
        """The clock moves to noon of the next gaming day, once finance has processed this one."""
        self.today += timedelta(days=1)
        self.clock.stop()
        self.clock = time_machine.travel(noon(self.today), tick=False)
        self.clock.start()
        kept = Counter({i: self.count(i, S.ISSUED) for i in range(len(DENOMINATIONS))})
        self.day = Day(carried_in=kept)
        self.moved_today = []

    # --- after every step ---------------------------------------------------------------------------------------

    @invariant()
    def every_serial_in_one_state_the_model_predicts(self) -> None:
        """The open ranges, a redemption not yet posted read as *redeemed*: one whose coupon the ranges still hold
        as *distributed* (what ``redemptions_awaiting_posting`` reads, in one plain query)."""
        redeemed = set(Redemption.objects.filter(facility=self.facility).values_list("series_id", "serial"))
        for index, series in enumerate(self.c["series"]):
            seen: dict[int, str] = {}
            ranges = CouponRange.objects.filter(series=series, closed_by__isnull=True).values_list(
                "first_serial", "last_serial", "state")
            for first, last, state in ranges:
                for n in range(first, last + 1):
                    assert n not in seen, f"serial {n} of {series.name} is in two states"
                    awaiting = state == S.DISTRIBUTED and (series.pk, n) in redeemed
                    seen[n] = S.REDEEMED if awaiting else state
            assert seen == self.state[index]

    @invariant()
    def every_processed_day_reconciles(self) -> None:
        for processing in FinanceDayProcessing.objects.filter(facility=self.facility).prefetch_related("figures"):
            p, figures = processing, list(processing.figures.all())
            assert p.variance == 0, f"{p.gaming_date}: variance {p.variance}"
            assert p.given_to_marketing == p.returned + p.voided + p.distributed + p.carried_forward
            assert (p.counted_returned, p.counted_voided, p.counted_redeemed) == (
                sum(f.awaiting_returned for f in figures), sum(f.awaiting_voided for f in figures),
                sum(f.awaiting_redeemed for f in figures))
            assert p.given_to_marketing == sum(f.given_to_marketing for f in figures)
            for f in figures:
                assert f.given_to_marketing == f.returned + f.voided + f.distributed + f.kept
                assert (f.counted_returned, f.counted_voided, f.counted_redeemed) == (
                    f.awaiting_returned, f.awaiting_voided, f.awaiting_redeemed)


@pytest.fixture
def cast(program: Any, finance_supervisor: Any, finance_staff: Any, marketing_staff: Any, marketing_supervisor: Any,
         dealer: Any, compliance_officer: Any) -> dict[str, Any]:
    tens = make_series(program.facility, program.program, finance_supervisor, code="mp10", prefix="MS",
                       denomination_cents=DENOMINATIONS[1])
    approve(program.facility, program.program, compliance_officer, tens, kinds=("design",))
    table = GamingTableFactory(is_open=True, facility=program.facility, number="CR-M",
                               game=Game.objects.get(code="craps"))
    assert (program.series.denomination_cents, tens.denomination_cents) == DENOMINATIONS
    return {"program": program, "series": [program.series, tens], "fin": finance_supervisor,
            "fin_staff": finance_staff, "mkt": marketing_supervisor, "mkt_staff": marketing_staff, "dealer": dealer,
            "table": table}


def test_the_coupon_lifecycle_keeps_every_serial_in_one_state_and_every_day_reconciled(cast: dict[str, Any]) -> None:
    machine = type("CouponLifecycleHere", (CouponLifecycle,), {"cast": cast})
    run_state_machine_as_test(machine, settings=settings(
        max_examples=20, stateful_step_count=30, deadline=None, derandomize=True))
