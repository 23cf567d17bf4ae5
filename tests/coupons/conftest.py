"""A coupon program ready to use: approvals recorded, one $25 series, finance and marketing storage."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
import time_machine

from compliance.models import Game
from compliance.services import signature_sign
from coupons import services
from coupons.models import CouponProgram, CouponRange, CouponSeries, ProgramApproval, StorageLocation
from tests.factories import PASSWORD

TODAY = date(2026, 11, 3)


def states(series: Any) -> list[tuple[int, int, str]]:
    """The series' open ranges: (first, last, state), by serial."""
    return list(
        CouponRange.objects.filter(series=series, closed_by__isnull=True)
        .order_by("first_serial")
        .values_list("first_serial", "last_serial", "state")
    )


def tables_always_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    """The coupon tests' tables are open (made with ``is_open=True``) and meet every requirement: the other
    chapters' requirements are tested in their apps and together in tests/compliance/test_readiness*.py; the
    refusals at a closed table or one in breach in tests/coupons/test_redemption_table_state.py."""
    from compliance import readiness

    monkeypatch.setattr(readiness, "_SOURCES", [])


def coupon_clock() -> Any:
    """14:00 UTC = 09:00 in Harrisburg: the gaming day of 3 Nov 2026, the clock ticking."""
    return time_machine.travel("2026-11-03 14:00:00+00:00", tick=True)


@pytest.fixture(autouse=True)
def _tables_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    tables_always_ready(monkeypatch)


@pytest.fixture(autouse=True)
def _frozen_day() -> Any:
    with coupon_clock():
        yield


@dataclass
class Program:
    facility: Any
    program: CouponProgram
    series: CouponSeries
    vault: StorageLocation
    marketing_safe: StorageLocation


def make_series(
    facility: Any,
    program: CouponProgram,
    user: Any,
    *,
    code: str = "mp25",
    denomination_cents: int = 2500,
    expires_on: date = date(2026, 12, 31),
    prefix: str = "MP",
) -> CouponSeries:
    return services.series_create(
        facility=facility,
        program=program,
        code=code,
        name=f"Match Play {code.upper()}",
        denomination_cents=denomination_cents,
        expires_on=expires_on,
        games=list(Game.objects.filter(code__in=["craps", "roulette", "blackjack"])),
        wager_restrictions="Even-money wagers only; Pass or Don't Pass at Craps.",
        even_money_only=True,
        user=user,
        serial_prefix=prefix,
        serial_digits=7,
    )


def approve(
    facility: Any,
    program: CouponProgram,
    officer: Any,
    series: CouponSeries | None = None,
    kinds: tuple[str, ...] = ("design", "internal_controls"),
) -> None:
    for kind in kinds:
        services.approval_record(
            facility=facility,
            program=program,
            kind=kind,
            approved_on=date(2026, 10, 1),
            reference=f"BGO-{kind}-2026-17",
            series=series if kind == "design" else None,
            user=officer,
            password=PASSWORD,
        )


@pytest.fixture
def series_expires_on() -> date:
    """The program's series expires at the end of the frozen day's year; tests on the real clock (the browser
    tests) override this with a date after today, so they keep passing after 31 Dec 2026."""
    return date(2026, 12, 31)


@pytest.fixture
def program(facility: Any, compliance_officer: Any, finance_supervisor: Any, series_expires_on: date) -> Program:
    match_play = CouponProgram.objects.get(code="match-play")
    series = make_series(facility, match_play, finance_supervisor, expires_on=series_expires_on)
    approve(facility, match_play, compliance_officer, series)
    vault = services.location_create(
        facility=facility,
        name="Finance vault cage 2",
        department="finance",
        user=compliance_officer,
        bcc_approved_on=date(2026, 9, 1),
        bcc_approval_reference="BCC-LOC-0042",
    )
    safe = services.location_create(
        facility=facility,
        name="Marketing locked cabinet",
        department="marketing",
        user=compliance_officer,
        bcc_approved_on=date(2026, 9, 1),
        bcc_approval_reference="BCC-LOC-0043",
    )
    return Program(facility, match_play, series, vault, safe)


@pytest.fixture
def receive(program: Program, finance_supervisor: Any, finance_staff: Any, marketing_staff: Any) -> Any:
    """``receive(first, last)`` records and fully signs a receipt of that range."""

    def do(
        first: int,
        last: int,
        *,
        series: CouponSeries | None = None,
        invoice_quantity: int | None = None,
        examined: bool = True,
        received_on: date = TODAY,
    ) -> Any:
        receipt = services.receipt_record(
            facility=program.facility,
            series=series or program.series,
            received_on=received_on,
            supplier="Gaming Printers Inc.",
            invoice_number="INV-1",
            invoice_quantity=invoice_quantity or last - first + 1,
            invoice_first_serial=first,
            invoice_last_serial=last,
            received=[(first, last)],
            location=program.vault,
            user=finance_supervisor,
            password=PASSWORD,
        )
        if examined:
            signature_sign(record=receipt, slot="examined_finance", user=finance_staff, password=PASSWORD)
            signature_sign(record=receipt, slot="examined_marketing", user=marketing_staff, password=PASSWORD)
        return receipt

    return do


@pytest.fixture
def requisition(program: Program, marketing_supervisor: Any, finance_supervisor: Any) -> Any:
    """``requisition(quantity)`` → an authorized requisition for today."""

    def do(quantity: int, *, denomination_cents: int = 2500, needed_for: date = TODAY, authorize: bool = True) -> Any:
        req = services.requisition_prepare(
            facility=program.facility,
            program=program.program,
            denomination_cents=denomination_cents,
            quantity=quantity,
            needed_for=needed_for,
            prepared_on=min(TODAY, needed_for),
            user=marketing_supervisor,
            password=PASSWORD,
        )
        if authorize:
            signature_sign(record=req, slot="authorized", user=finance_supervisor, password=PASSWORD)
        return req

    return do


@pytest.fixture
def issue(program: Program, finance_supervisor: Any, marketing_supervisor: Any, requisition: Any) -> Any:
    def do(first: int, last: int, *, gaming_date: date = TODAY, voids: tuple[Any, ...] = ()) -> Any:
        req = requisition(last - first + 1 + sum(v[0][0][1] - v[0][0][0] + 1 for v in voids), needed_for=gaming_date)
        return services.issuance_record(
            requisition=req,
            series=program.series,
            issued=[(first, last)],
            user=finance_supervisor,
            password=PASSWORD,
            gaming_date=gaming_date,
            voids=voids,
            receiver=services.CoSigner(marketing_supervisor, PASSWORD),
        )

    return do


@pytest.fixture
def handed_out(program: Program, receive: Any, issue: Any, marketing_staff: Any) -> Any:
    """``handed_out(first, last)``: those coupons received, issued and distributed to patrons today."""

    def do(first: int, last: int) -> None:
        receive(first, last)
        issue(first, last)
        services.distribution_record(facility=program.facility, series=program.series, spans=[(first, last)],
                                     user=marketing_staff, gaming_date=TODAY)

    return do


@pytest.fixture
def returned_day(program: Program, receive: Any, issue: Any, marketing_supervisor: Any, finance_supervisor: Any) -> Any:
    """Today: 1–100 received, 1–20 issued, none given out, and marketing's form completed returning all 20 with the
    finance supervisor's receipt on it (§ 525.21(k), (l)(5)); the completed form. Finance has yet to process it."""
    from coupons import services

    receive(1, 100)
    issue(1, 20)
    return services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 20}, user=marketing_supervisor,
        password=PASSWORD, receiver=services.CoSigner(finance_supervisor, PASSWORD),
    )


@pytest.fixture
def craps_table(facility: Any) -> Any:
    from tests.factories import GamingTableFactory

    return GamingTableFactory(is_open=True, facility=facility, number="CR-1", game=Game.objects.get(code="craps"))


@pytest.fixture
def roulette_table(facility: Any) -> Any:
    from tests.factories import GamingTableFactory

    return GamingTableFactory(is_open=True, facility=facility, number="RL-1", game=Game.objects.get(code="roulette"))


__all__ = ["PASSWORD", "TODAY", "Program", "ProgramApproval", "approve", "make_series"]
