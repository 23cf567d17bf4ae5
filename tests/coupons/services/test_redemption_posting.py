"""Redemptions posted into the ledger's ranges in batches (coupons/services/redemption_posting.py, issue 24): the
redemption row is the electronic cancellation (§ 525.21(q)(6)); the ranges follow by beat, before finance's
processing (m)(2) and before a take-back; the database refuses what the scan's reads can no longer promise."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, connection, transaction

from compliance.chain import chain_link_all, chain_verify
from compliance.testing import behind_the_applications_back
from coupons import selectors, services
from coupons.models import CouponState, LedgerLine, Redemption, RedemptionPosting
from coupons.redemption_rules import Refusal
from coupons.services.redemption import Scan, redemption_record
from tests.coupons.conftest import PASSWORD, TODAY, states

pytestmark = pytest.mark.django_db
S = CouponState
REDEEM = LedgerLine.Kind.REDEEM


def redeem(program: Any, table: Any, user: Any, number: int) -> Any:
    return redemption_record(facility=program.facility, user=user, scan=Scan(
        serial=program.series.serial(number), table=table, position="pass_line", chips_cents=2500)).redemption


def test_posting_coalesces_consecutive_serials_into_ranges_and_is_idempotent(program, handed_out, craps_table, dealer):
    handed_out(1, 20)
    for number in (3, 4, 5, 9):
        redeem(program, craps_table, dealer, number)
    assert states(program.series) == [(1, 20, S.DISTRIBUTED)]  # the scans moved nothing in the ranges
    assert services.redemptions_post(facility=program.facility) == 4
    lines = list(LedgerLine.objects.filter(kind=REDEEM).order_by("first_serial"))
    assert [(line.first_serial, line.last_serial, line.quantity, line.gaming_date) for line in lines] == [
        (3, 5, 3, TODAY), (9, 9, 1, TODAY)]
    posting = RedemptionPosting.objects.get()
    assert posting.quantity == 4 and {line.document_id for line in lines} == {posting.pk}
    assert states(program.series) == [(1, 2, S.DISTRIBUTED), (3, 5, S.REDEEMED), (6, 8, S.DISTRIBUTED),
                                      (9, 9, S.REDEEMED), (10, 20, S.DISTRIBUTED)]
    assert services.redemptions_post(facility=program.facility) == 0  # twice is harmless
    assert LedgerLine.objects.filter(kind=REDEEM).count() == 2 and RedemptionPosting.objects.count() == 1


def test_a_redemption_awaiting_posting_counts_as_redeemed_in_the_stock_totals(program, handed_out, craps_table,
                                                                                dealer):
    handed_out(1, 10)
    redeem(program, craps_table, dealer, 5)
    before = selectors.state_totals(program.facility)[2500]
    assert (before[S.DISTRIBUTED], before[S.REDEEMED]) == (9, 1)
    services.redemptions_post(facility=program.facility)
    assert selectors.state_totals(program.facility)[2500] == before


def test_the_database_counts_what_awaits_posting_as_the_rows_say(program, handed_out, craps_table, dealer):
    """awaiting_posting_counts (one grouped read, issue 27) agrees with the rows awaiting posting, day by day."""
    from datetime import timedelta

    from coupons.selectors.redemption import awaiting_posting_counts, redemptions_awaiting_posting

    handed_out(1, 10)
    for number in (2, 3, 7):
        redeem(program, craps_table, dealer, number)
    rows = [r for r in redemptions_awaiting_posting(program.facility) if r.held_state == S.DISTRIBUTED]
    assert awaiting_posting_counts(program.facility) == {2500: len(rows)} == {2500: 3}
    assert awaiting_posting_counts(program.facility, TODAY) == {2500: 3}
    assert awaiting_posting_counts(program.facility, TODAY - timedelta(days=1)) == {}
    services.redemptions_post(facility=program.facility)
    assert awaiting_posting_counts(program.facility) == {}


def _awaiting_as_the_ranges_say(facility: Any, through: Any = None) -> dict[int, int]:
    """What awaits posting read the long way: each redemption's range looked up (the posting's own read)."""
    from collections import Counter

    from coupons.selectors.redemption import redemptions_awaiting_posting

    return dict(sorted(Counter(r.redemption.denomination_cents for r in redemptions_awaiting_posting(facility)
                               if r.held_state == S.DISTRIBUTED
                               and (through is None or r.redemption.gaming_date <= through)).items()))


def test_what_awaits_posting_is_counted_as_the_ranges_say_through_postings_and_drop_counts(
        program, handed_out, craps_table, dealer, finance_staff):
    """awaiting_posting_counts counts (the day's redemptions less the coupons its redeem lines moved) where the
    posting looks each one up: the two agree after scans, a posting, more scans, and a drop-box count, which
    records its redemptions and moves their coupons in one transaction."""
    from datetime import timedelta

    from coupons.selectors.redemption import awaiting_posting_counts
    from coupons.services.drop_count import drop_count_record

    facility = program.facility
    handed_out(1, 40)
    for number in (2, 3, 4, 10):
        redeem(program, craps_table, dealer, number)
    assert awaiting_posting_counts(facility) == _awaiting_as_the_ranges_say(facility) == {2500: 4}
    assert services.redemptions_post(facility=facility) == 4
    for number in (5, 11, 30):  # beside the posted ones: 5 joins the run 2-4 when posted
        redeem(program, craps_table, dealer, number)
    assert awaiting_posting_counts(facility) == _awaiting_as_the_ranges_say(facility) == {2500: 3}
    drop_count_record(facility=facility, table=craps_table, gaming_date=TODAY, user=finance_staff,
                      scanned=[program.series.serial(n) for n in (2, 3, 4, 5, 10, 11, 30, 20, 21)])
    assert Redemption.objects.filter(channel="count").count() == 2  # 20 and 21, moved to redeemed at once
    assert awaiting_posting_counts(facility) == _awaiting_as_the_ranges_say(facility) == {2500: 3}
    assert awaiting_posting_counts(facility, TODAY - timedelta(days=1)) == {}
    assert services.redemptions_post(facility=facility) == 3
    assert awaiting_posting_counts(facility) == _awaiting_as_the_ranges_say(facility) == {}


def _reads(monkeypatch: Any) -> list[Any]:
    """The posting's reads of what awaits it: each recent read's ``since``, None for a read of every redemption of
    the open days."""
    from coupons.services import redemption_posting

    reads: list[Any] = []
    every, recent = redemption_posting.redemptions_awaiting_posting, redemption_posting.recent_redemptions_awaiting_posting

    def read_every(facility: Any) -> Any:
        reads.append(None)
        return every(facility)

    def read_recent(facility: Any, since: Any) -> Any:
        reads.append(since)
        return recent(facility, since)

    monkeypatch.setattr(redemption_posting, "redemptions_awaiting_posting", read_every)
    monkeypatch.setattr(redemption_posting, "recent_redemptions_awaiting_posting", read_recent)
    return reads


def test_the_beat_reads_the_recent_redemptions_when_the_ledger_counts_nothing_older(
        program, handed_out, craps_table, dealer, monkeypatch):
    handed_out(1, 20)
    for number in (1, 2, 3):
        redeem(program, craps_table, dealer, number)
    reads = _reads(monkeypatch)
    if connection.vendor == "postgresql":  # the count came with the rows, in their statement: no second read
        from coupons.services import redemption_posting

        monkeypatch.setattr(redemption_posting, "awaiting_posting_counts", lambda *a, **k: pytest.fail("counted"))
    assert services.redemptions_post(facility=program.facility) == 3
    assert len(reads) == 1 and reads[0] is not None  # the recent ones were all of them
    for number in (4, 9):
        redeem(program, craps_table, dealer, number)
    assert services.redemptions_post(facility=program.facility) == 2 and len(reads) == 2 and reads[1] is not None
    assert states(program.series) == [(1, 3, S.REDEEMED), (4, 4, S.REDEEMED), (5, 8, S.DISTRIBUTED),
                                      (9, 9, S.REDEEMED), (10, 20, S.DISTRIBUTED)]


def test_a_redemption_older_than_the_recent_window_is_still_posted(program, handed_out, craps_table, dealer,
                                                                    monkeypatch):
    """A beat that did not run for longer than the window: the ledger's count finds more awaiting than the
    recent read, and every redemption of the open days is read."""
    import time_machine
    from django.utils import timezone

    from coupons.services.redemption_posting import RECENT

    handed_out(1, 20)
    redeem(program, craps_table, dealer, 5)
    with time_machine.travel(timezone.now() + RECENT + timedelta(minutes=1), tick=True):
        redeem(program, craps_table, dealer, 6)
        reads = _reads(monkeypatch)
        assert services.redemptions_post(facility=program.facility) == 2
    assert reads[0] is not None and reads[1:] == [None]
    assert states(program.series) == [(1, 4, S.DISTRIBUTED), (5, 6, S.REDEEMED), (7, 20, S.DISTRIBUTED)]


def test_an_older_redemption_alone_awaiting_is_found_by_the_count_after_an_empty_recent_read(
        program, handed_out, craps_table, dealer, monkeypatch):
    import time_machine
    from django.utils import timezone

    from coupons.selectors.redemption import recent_redemptions_awaiting_posting
    from coupons.services.redemption_posting import RECENT

    handed_out(1, 20)
    redeem(program, craps_table, dealer, 7)
    with time_machine.travel(timezone.now() + RECENT + timedelta(minutes=1), tick=True):
        counted = None if connection.vendor == "postgresql" else 1  # SQLite counts in the caller's snapshot
        assert recent_redemptions_awaiting_posting(program.facility, timezone.now() - RECENT) == ([], counted)
        reads = _reads(monkeypatch)
        assert services.redemptions_post(facility=program.facility) == 1
    assert reads[0] is not None and reads[1:] == [None]


def test_the_recent_read_carries_the_count_of_everything_awaiting(program, handed_out, craps_table, dealer):
    """On PostgreSQL the count is in the recent read's own statement: a scan committed after it cannot make the
    two differ (the beat would then read everything at every minute of a busy floor)."""
    from django.utils import timezone

    from coupons.selectors.redemption import recent_redemptions_awaiting_posting

    handed_out(1, 20)
    for number in (2, 3, 11):
        redeem(program, craps_table, dealer, number)
    rows, awaiting = recent_redemptions_awaiting_posting(program.facility, timezone.now() - timedelta(minutes=1))
    assert [r.redemption.serial for r in rows] == [2, 3, 11] and awaiting == 3
    assert {r.held_state for r in rows} == {S.DISTRIBUTED}


def test_finance_and_a_take_back_read_every_redemption(program, handed_out, craps_table, dealer, monkeypatch):
    from coupons.services.redemption_posting import pending_redemptions_post

    handed_out(1, 20)
    redeem(program, craps_table, dealer, 5)
    reads = _reads(monkeypatch)
    with transaction.atomic():
        assert pending_redemptions_post(program.facility).quantity == 1
    assert reads == [None]


def test_the_series_page_shows_a_redemption_awaiting_posting_on_its_range(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    redeem(program, craps_table, dealer, 5)
    _, ranges = selectors.series_ranges(program.series)
    assert [(item["span"], item["awaiting_posting"]) for item in ranges] == [
        (program.series.span(1, 10), ["MP-0000005"])]
    services.redemptions_post(facility=program.facility)
    _, ranges = selectors.series_ranges(program.series)
    assert [item["awaiting_posting"] for item in ranges] == [[], [], []]


def test_a_scan_of_a_coupon_redeemed_but_not_yet_posted_is_refused_as_redeemed(program, handed_out, craps_table,
                                                                               dealer):
    handed_out(1, 10)
    redeem(program, craps_table, dealer, 5)
    with pytest.raises(Refusal) as refused:
        redeem(program, craps_table, dealer, 5)
    assert refused.value.refusal_code == "already_redeemed"
    assert "MP-0000005" in refused.value.sentence and "table CR-1 at" in refused.value.sentence
    assert Redemption.objects.count() == 1 and states(program.series) == [(1, 10, S.DISTRIBUTED)]


def test_finance_processing_posts_every_redemption_first_and_cancels_them(
        program, handed_out, craps_table, dealer, marketing_supervisor, finance_supervisor, finance_staff):
    handed_out(1, 10)
    for number in (2, 3, 4):
        redeem(program, craps_table, dealer, number)
    services.reconciliation_complete(facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 0},
                                     user=marketing_supervisor, password=PASSWORD,
                                     receiver=services.CoSigner(finance_supervisor, PASSWORD))
    assert not LedgerLine.objects.filter(kind=REDEEM).exists()
    processing = services.finance_day_process(
        facility=program.facility, gaming_date=TODAY, counted={2500: {"returned": 0, "voided": 0, "redeemed": 3}},
        user=finance_staff, password=PASSWORD)
    assert (processing.redeemed, processing.redeemed_to_date, processing.variance) == (3, 3, 0)
    assert states(program.series) == [(1, 1, S.DISTRIBUTED), (2, 4, S.CANCELLED), (5, 10, S.DISTRIBUTED)]
    assert RedemptionPosting.objects.get().created_by == finance_staff


def test_a_distribution_with_a_coupon_redeemed_but_not_posted_is_not_taken_back(
        program, receive, issue, marketing_staff, marketing_supervisor, dealer, craps_table):
    receive(1, 100)
    issue(1, 20)
    mistake = services.distribution_record(facility=program.facility, series=program.series, spans=[(1, 5)],
                                           user=marketing_staff, gaming_date=TODAY)
    redeem(program, craps_table, dealer, 3)
    with pytest.raises(ValidationError, match="are redeemed"):
        services.movement_reverse(facility=program.facility, document=mistake, reason="keyed twice",
                                  user=marketing_supervisor, password=PASSWORD)
    assert (3, 3, S.DISTRIBUTED) not in states(program.series)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the application's role is PostgreSQL's")
def test_the_database_refuses_a_second_redemption_of_a_coupon_to_the_application_role(
        program, handed_out, receive, craps_table, dealer):
    handed_out(1, 10)
    receive(11, 100)
    first = redeem(program, craps_table, dealer, 5)
    columns = ("facility_id", "series_id", "serial", "denomination_cents", "gaming_date", "redeemed_at", "table_id",
               "game_id", "position", "chips_cents", "wager", "channel", "redeemed_by_id", "seal")
    values = [getattr(first, column) for column in columns]
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user = %s", [connection.settings_dict["USER"]])
        assert cursor.fetchone() == (True,)  # the suite's login: the application's role
    insert = f"INSERT INTO coupons_redemption ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))})"  # noqa: S608
    with pytest.raises(IntegrityError, match="coupon_redeemed_once"), transaction.atomic(), connection.cursor() as c:
        c.execute(insert, values)
    voided = [*values]
    voided[columns.index("serial")] = 50  # received, never given to a patron: in stock
    with pytest.raises(DatabaseError, match="coupon_not_distributed"), transaction.atomic(), connection.cursor() as c:
        c.execute(insert, voided)
    assert Redemption.objects.count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="tampering as the owner")
def test_verify_names_a_redemption_the_ledger_contradicts_and_the_posting_refuses_it(
        program, handed_out, receive, craps_table, dealer):
    handed_out(1, 10)
    receive(11, 100)
    redeem(program, craps_table, dealer, 5)
    chain_link_all()
    assert [f for f in chain_verify().findings if f.startswith("STATE")] == []
    redemption = redeem(program, craps_table, dealer, 6)
    # Behind the application's back: the redemption moved onto a serial still in finance's stock.
    behind_the_applications_back("UPDATE coupons_redemption SET serial = 60 WHERE id = %s", [redemption.pk])
    chain_link_all()
    (finding,) = [f for f in chain_verify().findings if f.startswith("STATE") and "Redemption" in f]
    assert f"coupons.Redemption #{redemption.pk}" in finding and "MP-0000060" in finding
    assert "in finance stock" in finding
    with pytest.raises(ValidationError, match="MP-0000060") as refused:
        services.redemptions_post(facility=program.facility)
    assert "nothing was posted" in str(refused.value)
    assert not LedgerLine.objects.filter(kind=REDEEM).exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the one-probe read is PostgreSQL's")
def test_the_one_probe_read_finds_what_the_orm_query_finds(program, handed_out, receive, craps_table, dealer):
    """redemptions_awaiting_posting's LATERAL read (one probe a redemption) gives the rows, order and states the
    ORM's query gives: posted ones left out, those awaiting with *distributed*, a contradiction (a serial in
    finance's stock) with its state, a serial no open range holds with none."""
    from django.db.models import F, Q

    from coupons.selectors.redemption import _POSTED_COLUMNS, _awaiting, redemptions_awaiting_posting

    handed_out(1, 20)
    receive(21, 100)
    for number in (3, 4, 5, 9):
        redeem(program, craps_table, dealer, number)
    services.redemptions_post(facility=program.facility)
    waiting = [redeem(program, craps_table, dealer, number) for number in (12, 10, 11, 14)]
    behind_the_applications_back("UPDATE coupons_redemption SET serial = 60 WHERE id = %s", [waiting[2].pk])
    behind_the_applications_back("UPDATE coupons_redemption SET serial = 5000 WHERE id = %s", [waiting[3].pk])
    not_posted = (Q(held_state__isnull=True) | ~Q(held_state__in=[S.REDEEMED, S.CANCELLED])
                  | Q(held_last__lt=F("serial")))
    by_orm = [(tuple(row[:-2]), row[-2] if row[-1] is not None and row[-1] >= row[3] else "") for row in
              _awaiting(program.facility).filter(not_posted).order_by("gaming_date", "series_id", "serial")
              .values_list(*_POSTED_COLUMNS, "held_state", "held_last")]
    found = [(tuple(each.redemption), each.held_state) for each in redemptions_awaiting_posting(program.facility)]
    assert found == by_orm
    assert [(row[3], state) for row, state in found] == [
        (10, S.DISTRIBUTED), (12, S.DISTRIBUTED), (60, S.IN_STOCK), (5000, "")]
