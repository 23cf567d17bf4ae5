"""Redemption at the table, § 525.22 and § 525.21(q)(5)–(6): every refusal code, and what a success does."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
import time_machine
from django.core.exceptions import ValidationError

from compliance.models import Game
from coupons import services
from coupons.models import CouponState, LedgerLine, Redemption
from coupons.redemption_rules import REFUSALS, Refusal
from coupons.services.redemption import Scan, redemption_record
from tests.coupons.conftest import PASSWORD, TODAY, states
from tests.factories import GamingTableFactory

pytestmark = pytest.mark.django_db


def redeem(program: Any, table: Any, user: Any, serial: str = "MP-0000005", *, position: str = "pass_line",
           chips_cents: int = 2500, wager: str = "") -> Any:
    return redemption_record(facility=program.facility, user=user,
                             scan=Scan(serial=serial, table=table, position=position, chips_cents=chips_cents,
                                       wager=wager))


def refused(code: str, call: Any) -> Refusal:
    with pytest.raises(Refusal) as caught:
        call()
    assert caught.value.refusal_code == code, caught.value.sentence
    assert caught.value.sentence
    return caught.value


def test_a_distributed_coupon_is_redeemed_and_cancelled_electronically(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    accepted = redeem(program, craps_table, dealer, "MP-0000005", chips_cents=4000)
    redemption = accepted.redemption
    assert (redemption.serial, redemption.table, redemption.position) == (5, craps_table, "pass_line")
    assert redemption.seal and redemption.seal_intact()
    services.redemptions_post(facility=program.facility)  # the ledger's move is posted after the scan
    assert (5, 5, CouponState.REDEEMED) in states(program.series)
    line = LedgerLine.objects.get(kind=LedgerLine.Kind.REDEEM)
    assert (line.first_serial, line.last_serial, line.from_state, line.to_state) == (5, 5, "distributed", "redeemed")
    assert "electronically cancelled" in line.reason.lower()
    # The breakdown of § 525.22(b) and the drop box of (e).
    assert "$25.00" in accepted.instructions[0] or "$25" in accepted.instructions[0]
    assert "remaining $15" in accepted.instructions[0]
    assert "drop box" in accepted.instructions[1]
    assert redemption.history.first().history_user == dealer


def test_a_second_scan_is_refused_naming_the_table_and_time(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    redeem(program, craps_table, dealer)
    refusal = refused("already_redeemed", lambda: redeem(program, craps_table, dealer))
    assert "table CR-1 at" in refusal.sentence and "MP-0000005" in refusal.sentence
    assert Redemption.objects.count() == 1


def test_redemption_feeds_finance_distributed_against_redeemed(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    redeem(program, craps_table, dealer, "MP-0000001")
    redeem(program, craps_table, dealer, "MP-0000002")
    from coupons.selectors import to_date_totals

    services.redemptions_post(facility=program.facility)  # as finance's processing does first
    assert to_date_totals(program.facility) == (10, 2)


@pytest.mark.parametrize(("serial", "code"), [("MP-0000099", "unknown_coupon"), ("XX", "malformed_serial"),
                                              ("MP-0000001 MP-0000002", "one_coupon_per_wager"), ("", "malformed_serial"),
                                              ("<script>", "malformed_serial"), ("9" * 40, "malformed_serial")])
def test_unreadable_and_unknown_serials(program, handed_out, craps_table, dealer, serial, code):
    handed_out(1, 10)
    refused(code, lambda: redeem(program, craps_table, dealer, serial))
    assert not Redemption.objects.exists()


def test_coupons_not_in_a_patrons_hands_are_refused(program, receive, issue, craps_table, dealer,
                                                    marketing_supervisor):
    receive(1, 30)
    issue(11, 20)
    refused("not_distributed", lambda: redeem(program, craps_table, dealer, "MP-0000001"))  # finance stock
    refused("not_distributed", lambda: redeem(program, craps_table, dealer, "MP-0000011"))  # marketing holds it
    services.coupons_void(facility=program.facility, series=program.series, spans=[(12, 12)], reason="torn",
                         user=marketing_supervisor, password=PASSWORD)
    refused("voided", lambda: redeem(program, craps_table, dealer, "MP-0000012"))
    assert not Redemption.objects.exists()


def test_an_expired_coupon_is_refused_on_the_gaming_day_after_expiry(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    # The series expires 31 Dec 2026: good through that gaming day (its small hours on 1 Jan included).
    with time_machine.travel("2027-01-01 10:00:00+00:00", tick=False):  # 05:00 in Harrisburg: still 31 Dec
        redeem(program, craps_table, dealer, "MP-0000001")
    with time_machine.travel("2027-01-01 12:00:00+00:00", tick=False):  # 07:00: the gaming day of 1 Jan
        refusal = refused("expired", lambda: redeem(program, craps_table, dealer, "MP-0000002"))
    assert "31 Dec 2026" in refusal.sentence


def test_only_a_banking_game_the_series_allows(program, handed_out, dealer, facility):
    handed_out(1, 10)
    poker = Game.objects.create(code="poker-room", name="Poker (room game)", banking=False)
    refused("not_banking_game", lambda: redeem(program, GamingTableFactory(is_open=True, facility=facility, game=poker), dealer,
                                               position="betting_area"))
    sic_bo = GamingTableFactory(is_open=True, facility=facility, game=Game.objects.get(code="sic-bo"))
    refusal = refused("game_not_allowed", lambda: redeem(program, sic_bo, dealer, position="betting_area"))
    assert "Sic Bo" in refusal.sentence


@pytest.mark.parametrize(("game", "good", "bad"), [
    ("craps", ["pass_line", "dont_pass"], ["betting_area", "black"]),
    ("mini-craps", ["pass_line", "dont_pass"], ["red"]),
    ("roulette", ["black", "red", "odd", "even", "1-18", "19-36", "1st-12", "2nd-12", "3rd-12"], ["pass_line",
                                                                                                  "betting_area"]),
    ("blackjack", ["betting_area"], ["pass_line", "black"]),
])
def test_the_position_fits_the_game(program, handed_out, dealer, facility, game, good, bad):
    handed_out(1, 20)
    program.series.even_money_only = False  # § 525.22(c) alone here; the series' own restriction is tested below
    program.series.save()
    program.series.games.add(Game.objects.get(code=game))
    table = GamingTableFactory(is_open=True, facility=facility, game=Game.objects.get(code=game))
    for position in bad:
        refused("position_not_allowed", lambda p=position: redeem(program, table, dealer, position=p))
    for serial, position in enumerate(good, start=1):
        redeem(program, table, dealer, f"MP-{serial:07d}", position=position)


def test_an_even_money_series_is_refused_on_a_wager_paying_more(program, handed_out, dealer, facility):
    """§ 525.21(c)(4): the series' own restrictions ("even-money wagers only") are enforced on the position, beside
    § 525.22(c)'s positions of the game: Roulette's dozens pay 2 to 1."""
    handed_out(1, 20)
    assert program.series.even_money_only
    table = GamingTableFactory(is_open=True, facility=facility, game=Game.objects.get(code="roulette"))
    for dozen in ("1st-12", "2nd-12", "3rd-12"):
        refusal = refused("wager_not_allowed", lambda p=dozen: redeem(program, table, dealer, position=p))
        assert "even-money" in refusal.sentence and "525.21(c)(4)" in refusal.sentence
    for serial, position in enumerate(["red", "odd", "19-36"], start=1):
        redeem(program, table, dealer, f"MP-{serial:07d}", position=position)


def test_restrictions_saying_even_money_must_be_the_enforced_flag(program, facility, finance_supervisor):
    from datetime import timedelta

    from coupons.days import today

    with pytest.raises(ValidationError, match="Even-money wagers only"):
        services.series_create(facility=facility, program=program.series.program, code="em2", name="EM",
                               denomination_cents=500, expires_on=today(facility) + timedelta(days=30),
                               games=list(Game.objects.filter(code="roulette")),
                               wager_restrictions="Even money wagers only", user=finance_supervisor)


def test_chips_must_be_worth_the_coupon(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    refusal = refused("chips_below_value", lambda: redeem(program, craps_table, dealer, chips_cents=2499))
    assert "$24.99" in refusal.sentence
    redeem(program, craps_table, dealer, chips_cents=2500)


def test_one_coupon_per_wager(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    redeem(program, craps_table, dealer, "MP-0000001", wager="R7-S3")
    refused("one_coupon_per_wager", lambda: redeem(program, craps_table, dealer, "MP-0000002", wager="R7-S3"))
    services.redemptions_post(facility=program.facility)
    assert states(program.series).count((2, 10, CouponState.DISTRIBUTED)) == 1  # coupon 2 untouched


def test_only_a_dealer_redeems(program, handed_out, craps_table, marketing_staff, inspector):
    handed_out(1, 10)
    for person in (marketing_staff, inspector):
        refused("permission_denied", lambda p=person: redeem(program, craps_table, p))


def test_program_approvals_are_required(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    from unittest import mock

    gate = "The internal controls for the Match Play program have no recorded approval (§ 525.21(b)(2))."
    with mock.patch("coupons.services.redemption.program_gate_refusals", return_value=[gate]):
        refusal = refused("program_not_approved", lambda: redeem(program, craps_table, dealer))
    assert "525.21(b)(2)" in refusal.sentence


def test_every_refusal_code_is_documented_with_a_status_and_meaning():
    assert all(kind.status in {400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 429, 503} and kind.meaning
               for kind in REFUSALS.values())


def test_a_closed_day_takes_no_redemptions(program, handed_out, craps_table, dealer, finance_supervisor):
    handed_out(1, 10)
    from compliance.actors import acting_as
    from coupons.models import FinanceDayProcessing

    counts = dict.fromkeys(["given_to_marketing", "returned", "voided", "distributed", "carried_forward", "redeemed",
                            "counted_returned", "counted_voided", "counted_redeemed"], 0)
    with acting_as(finance_supervisor):  # finance's processing of the day on record: the day is closed
        FinanceDayProcessing(facility=program.facility, gaming_date=TODAY, **counts).save()
    refusal = refused("day_closed", lambda: redeem(program, craps_table, dealer))
    assert "Finance has closed" in refusal.sentence
    assert not Redemption.objects.exists()


def test_gaming_day_of_a_redemption_is_the_facilitys(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    with time_machine.travel("2026-11-04 07:30:00+00:00", tick=False):  # 02:30 in Harrisburg: still 3 Nov
        accepted = redeem(program, craps_table, dealer)
    assert accepted.redemption.gaming_date == date(2026, 11, 3)
