"""Two clerks at once, with real threads on PostgreSQL: the database keeps every serial in one state."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from coupons import selectors, services
from coupons.models import CouponRange, FinanceDayProcessing, LedgerLine, ReconciliationForm
from tests.coupons.conftest import PASSWORD, TODAY
from tests.threads import at_once

pytestmark = [
    pytest.mark.django_db(transaction=True, serialized_rollback=True),  # restores content types for later tests
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks and exclusion constraints are PostgreSQL's"
    ),
]


def _race(*calls: Callable[[], Any]) -> list[str]:
    """Run the calls at the same moment; "ok" or the refusal of each (anything else fails the test, visibly)."""
    words = []
    for outcome in at_once(*calls, timeout=30):
        if isinstance(outcome, ValidationError):
            words.append(" ".join(outcome.messages))
        elif isinstance(outcome, Exception):  # a deadlock or an untranslated IntegrityError
            words.append(f"unexpected {outcome!r}")
        else:
            words.append("ok")
    return words

def test_two_clerks_distributing_overlapping_serials(
    program, receive, issue, marketing_staff, second_marketing_supervisor
):
    receive(1, 100)
    issue(1, 50)

    def distribute(first: int, last: int) -> Callable[[], Any]:
        return lambda: services.distribution_record(
            facility=program.facility,
            series=program.series,
            spans=[(first, last)],
            user=marketing_staff,
            gaming_date=TODAY,
        )

    outcomes = _race(distribute(1, 30), distribute(20, 50))
    assert sorted(o == "ok" for o in outcomes) == [False, True], outcomes
    refusal = next(o for o in outcomes if o != "ok")
    assert "distributed to a patron" in refusal or "just moved by someone else" in refusal
    open_rows = list(CouponRange.objects.filter(series=program.series, closed_by__isnull=True).order_by("first_serial"))
    covered = sum(r.quantity for r in open_rows)
    assert covered == 100 and all(a.last_serial < b.first_serial for a, b in itertools.pairwise(open_rows))


def test_two_receipts_of_the_same_serials_at_once(program, finance_supervisor, second_finance_supervisor):
    def receipt(user: Any, first: int, last: int) -> Callable[[], Any]:
        return lambda: services.receipt_record(
            facility=program.facility,
            series=program.series,
            received_on=TODAY,
            supplier="P",
            invoice_number="I",
            invoice_quantity=last - first + 1,
            invoice_first_serial=first,
            invoice_last_serial=last,
            received=[(first, last)],
            location=program.vault,
            user=user,
            password=PASSWORD,
        )

    outcomes = _race(receipt(finance_supervisor, 1, 100), receipt(second_finance_supervisor, 51, 150))
    assert sorted(o == "ok" for o in outcomes) == [False, True], outcomes
    assert "already received" in next(o for o in outcomes if o != "ok")
    assert LedgerLine.objects.filter(kind="receive").count() == 1


def _close(program: Any, user: Any) -> Callable[[], Any]:
    return lambda: services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 10},
        user=user,
        password=PASSWORD,
        disposition="keep",
        kept_in=program.marketing_safe,
    )


def test_two_supervisors_completing_the_same_day_one_is_told_in_words(
    program, receive, issue, marketing_supervisor, second_marketing_supervisor
):
    receive(1, 100)
    issue(1, 10)
    outcomes = _race(_close(program, marketing_supervisor), _close(program, second_marketing_supervisor))
    assert sorted(o == "ok" for o in outcomes) == [False, True], outcomes
    assert "that marketing day is closed" in next(o for o in outcomes if o != "ok")
    assert ReconciliationForm.objects.count() == 1


def test_a_distribution_racing_the_close_is_on_the_form_or_refused(
    program, receive, issue, marketing_supervisor, marketing_staff
):
    receive(1, 100)
    issue(1, 10)

    def distribute() -> None:
        services.distribution_record(
            facility=program.facility, series=program.series, spans=[(1, 3)], user=marketing_staff, gaming_date=TODAY
        )

    close = lambda: services.reconciliation_complete(  # noqa: E731
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 10},
        user=marketing_supervisor,
        password=PASSWORD,
        disposition="keep",
        kept_in=program.marketing_safe,
        variation_explanation="counted while a clerk was at the desk",
    )
    outcomes = _race(close, distribute)
    assert all(o == "ok" or "that marketing day is closed" in o for o in outcomes), outcomes
    assert outcomes[0] == "ok"
    (frozen,) = ReconciliationForm.objects.get().figures.all()
    (live,) = selectors.day_figures(program.facility, TODAY)
    # Whoever went first, the signed form shows every movement of the day.
    assert (frozen.distributed, frozen.remaining_expected) == (live.distributed, live.remaining)


def test_two_finance_members_processing_the_same_day_one_is_told_in_words(
    program, receive, issue, marketing_supervisor, finance_staff, second_finance_supervisor
):
    receive(1, 100)
    issue(1, 10)
    _close(program, marketing_supervisor)()

    def process(user: Any) -> Callable[[], Any]:
        return lambda: services.finance_day_process(
            facility=program.facility, gaming_date=TODAY, counted={2500: {"returned": 0, "voided": 0, "redeemed": 0}},
            user=user, password=PASSWORD,
        )

    outcomes = _race(process(finance_staff), process(second_finance_supervisor))
    assert sorted(o == "ok" for o in outcomes) == [False, True], outcomes
    assert "already processed" in next(o for o in outcomes if o != "ok")
    assert FinanceDayProcessing.objects.count() == 1


def test_a_redemption_waiting_on_finance_processing_sees_the_day_closed(
    program, handed_out, finance_supervisor, dealer, craps_table
):
    """Finance processes the day while a scan waits on the facility's lock: the scan, let through once the
    processing commits, reads the day as closed (its check is a statement after the lock, not before it)."""
    import threading
    import time

    from django.db import transaction

    from compliance.actors import acting_as
    from coupons.ledger import lock_facility
    from coupons.models import Redemption
    from coupons.redemption_rules import Refusal
    from coupons.services.redemption import Scan, redemption_record

    handed_out(1, 10)
    locked = threading.Event()
    counts = dict.fromkeys(["given_to_marketing", "returned", "voided", "distributed", "carried_forward", "redeemed",
                            "counted_returned", "counted_voided", "counted_redeemed"], 0)

    def process() -> str:
        with acting_as(finance_supervisor), transaction.atomic():
            lock_facility(program.facility)
            locked.set()
            time.sleep(1.0)  # the scan is waiting on the lock by now
            FinanceDayProcessing(facility=program.facility, gaming_date=TODAY, **counts).save()
        return "processed"

    def scan() -> str:
        locked.wait(10)
        try:
            redemption_record(facility=program.facility, user=dealer, scan=Scan(
                serial="MP-0000005", table=craps_table, position="pass_line", chips_cents=2500))
        except Refusal as refusal:
            return refusal.refusal_code
        return "redeemed"

    assert at_once(process, scan) == ["processed", "day_closed"]
    assert not Redemption.objects.exists()
