"""The coupon ledger's part of a generated year (``manage.py generate_casino``, :mod:`compliance.scale`).

Every gaming day of the plan, as its people would have done it, through the services (each signature, ledger line,
history row and audit event as the application writes them), the clock set to the moment:

* at the start of each quarter, a $10 and a $25 series approved by the Bureau (§ 525.21(b)) and a printer's shipment
  of each received and examined (§ 525.21(e)–(f)), sized for the quarter;
* each day at 10:00, a requisition authorized and issued to marketing for each series (§ 525.21(g)–(h)); at 11:00
  the coupons handed to patrons (§ 525.21(d));
* the day's redemptions at the craps, roulette and blackjack tables (§ 525.22), through the day: their rows, history
  rows and audit events as a scan writes them (:func:`compliance.scale_sql.rows_as_saved_sql`, in SQL, linked to
  the audit chain as they are written; the database's trigger checks
  each coupon is distributed and its day open, as for a scan), by the table's dealer;
* the next morning, marketing's reconciliation form with the coupons it kept returned (§ 525.21(j)–(k)), and
  finance's processing of the day (§ 525.21(m)): the redemptions posted to the ledger, the redeemed coupons
  cancelled, the returned ones restocked;
* on the last day of each month, finance's inventory of every coupon still in its ledger (§ 525.21(n)).

Redeemed serials are the first of the day's distributed block of each series, in order, by default: a day's
redemptions post as one ledger line per series, and the ranges grow by a few rows a day. With ``--any-order``
(``plan.any_order``) they are any of the block, in any order, as in life: the coupons patrons keep
(``HANDED_OUT_MORE``) leave holes all through the block, and each redemption posted splits the distributed range it
falls in (the growth issue 27 names); with ``--beat-postings`` beat posts them hourly as well (docs/scale.md, "The
coupon ranges when coupons come back in any order").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from functools import partial
from itertools import groupby
from typing import Any

from django.db import transaction

from compliance.actors import acting_as
from compliance.chain import chain_link_all
from compliance.demo import signing_passwords
from compliance.gaming_day import day_bounds
from compliance.models import Game, GamingTable
from compliance.reports.periods import quarter_of
from compliance.roles import Role
from compliance.scale import ScalePlan, travel
from compliance.scale_sessions import Sessions, split_in_turns
from compliance.scale_sql import file_digests, file_event_digests, rows_as_saved_sql, written_as_replica
from compliance.scale_turns import linking, linking_if_free
from coupons import services
from coupons.demo import _EVEN_MONEY, _issued, _locations, _received
from coupons.models import CouponProgram, CouponSeries, ReconciliationForm, Redemption, StorageLocation
from coupons.redemption_rules import EVEN_MONEY_POSITIONS, allowed_positions
from coupons.scale_mailing import quarter_mailing
from coupons.selectors.stock import expected_inventory
from coupons.services.redemption_posting import SETTLE

__all__ = ["coupons_scale_seed"]

# Each series' share of the day's redemptions, and its denomination.
SERIES = (("mp10", 1000, "MA", 0.6), ("mp25", 2500, "MB", 0.4))
HANDED_OUT_MORE = 0.04  # patrons keep some coupons for another day (they are never redeemed here)
KEPT_BY_MARKETING = 0.01  # what marketing did not hand out, returned with the form
LINK_AT_LATEST = 400_000  # audit events awaiting their link (about a week at 55,000 a day): then the morning waits
GAMES = ("craps", "roulette", "blackjack")


def _at(plan: ScalePlan, day: date, hours: float) -> datetime:
    return day_bounds(plan.facility, day)[0] + timedelta(hours=hours)


def _people(plan: ScalePlan) -> dict[Role, Any]:
    return {role: plan.people[role] for role in (Role.COMPLIANCE_OFFICER, Role.FINANCE_SUPERVISOR, Role.FINANCE_STAFF,
                                                  Role.MARKETING_SUPERVISOR, Role.MARKETING_STAFF)}


class _Floor:
    """The coupon tables, their dealers and the positions a coupon takes there (§ 525.22(c), even money)."""

    def __init__(self, plan: ScalePlan) -> None:
        self.tables = list(GamingTable.objects.filter(facility=plan.facility, game__code__in=GAMES)
                           .select_related("game").order_by("number"))
        if not self.tables:
            raise SystemExit("generate_casino: the facility has no craps, roulette or blackjack table for coupons")
        dealers = plan.people["dealers"]
        self.dealer = {t.pk: dealers[n % len(dealers)] for n, t in enumerate(self.tables)}
        self.positions = {t.pk: sorted(p for p in allowed_positions(t.game.code) if p in EVEN_MONEY_POSITIONS)
                          for t in self.tables}
        self.numbers = {t.pk: t.number for t in self.tables}


class _Quarter:
    """A quarter's series, received at its start, and the next serial of each to issue."""

    def __init__(self, plan: ScalePlan, start: date, people: dict[Role, Any], password: str,
                 vault: StorageLocation) -> None:
        quarter_days = (quarter_of(start).end - start).days + 1
        self.series: list[tuple[CouponSeries, float]] = []
        self.next: dict[int, int] = {}
        for code, cents, prefix, share in SERIES:
            per_day = plan.redemptions_per_day * share * (1 + HANDED_OUT_MORE + KEPT_BY_MARKETING) * 1.3
            size = int(per_day * min(quarter_days, plan.days)) + 1000
            first = 1_000_001
            series = _series(plan, people, password, code=f"{code}-{start:%Y%m}", cents=cents,
                             prefix=f"{prefix}{start:%y}{quarter_of(start).start.month:02d}", start=start)
            _received(plan.facility, series, people, password, on=start, serials=(first, first + size - 1),
                      vault=vault, invoice=f"KGP-{start:%Y%m}-{code.upper()}")
            self.series.append((series, share))
            self.next[series.pk] = first


def _series(plan: ScalePlan, people: dict[Role, Any], password: str, *, code: str, cents: int, prefix: str,
            start: date) -> CouponSeries:
    """A quarter's series, good through a month after the quarter, its design and the program's internal controls
    approved by the Bureau a month before (§ 525.21(b)); a prefix of its own, so no serial is printed twice."""
    officer, finsup = people[Role.COMPLIANCE_OFFICER], people[Role.FINANCE_SUPERVISOR]
    program = CouponProgram.objects.get(code="match-play")
    approved_on = start - timedelta(days=30)
    with acting_as(finsup):
        series = services.series_create(
            facility=plan.facility, program=program, code=code, name=f"${cents // 100} Match Play {start:%b %Y}",
            denomination_cents=cents, expires_on=quarter_of(start).end + timedelta(days=30),
            games=list(Game.objects.filter(code__in=GAMES)), wager_restrictions=_EVEN_MONEY, even_money_only=True,
            user=finsup, serial_prefix=prefix)
    for kind in ("design", "internal_controls"):
        services.approval_record(facility=plan.facility, program=program, kind=kind, approved_on=approved_on,
                                 reference=f"BGO-{approved_on:%Y}-{kind[:3].upper()}-{code.upper()}", series=series,
                                 user=officer, password=password)
    return series


# A redemption's fields as _redemptions gives them, then the dealer's id and the record's str()
# (compliance.scale_sql.rows_as_saved_sql; a field added to Redemption stops the generator until it is named here).
REDEMPTION = ("facility_id", "series_id", "serial", "denomination_cents", "gaming_date", "redeemed_at", "table_id",
              "game_id", "position", "chips_cents", "wager", "channel", "device_id", "redeemed_by_id", "drop_count_id")
# The redemption guard's checks (coupons migration 0034), made over a batch written as a replica applies rows
# (compliance.scale_replica): the guard's trigger does not fire then.
GUARD_CHECKS = {"coupons_redeem_only_distributed": "SELECT public.coupons_redemptions_check(%s::bigint[])"}


def _redemptions(plan: ScalePlan, floor: _Floor, series: CouponSeries, day: date, first: int, handed: int,
                 count: int, rng: Any) -> list[tuple[Any, ...]]:
    """The day's redemptions of ``series``: ``count`` of the ``handed`` coupons given to patrons from serial
    ``first``, in any order (patrons come back when they come back; the rest they keep), as each table's scan writes
    them, by its dealer: each dealer's in the order of the day, the dealers in the order of their first."""
    opens = _at(plan, day, 4)  # the tables' busy hours: from 10:00 (the day starts at 06:00) for 18 hours
    cents, table_channel = series.denomination_cents, Redemption.Channel.TABLE.value
    facility_id, series_id, chips = plan.facility.pk, series.pk, [cents + 500 * n for n in range(4)]
    # Each table's values looked up once, not once a coupon (a busy day is 55,000 rows: a quarter less of the
    # generator's own time, 8.7 -> 6.7 µs a row); the random choices are the same calls in the same order and the
    # rows the same values, so a seed gives the year it gave before (a digest of a day's rows compared).
    tables = [(t.pk, t.game_id, floor.dealer[t.pk].pk, floor.positions[t.pk], f" redeemed at table {floor.numbers[t.pk]}")
              for t in floor.tables]
    randrange, random, choice = rng.randrange, rng.random, rng.choice
    by_dealer: dict[int, list[tuple[Any, ...]]] = {}
    offsets = rng.sample(range(handed), count) if plan.any_order else range(count)
    for n, offset in enumerate(offsets):
        table_id, game_id, dealer_id, positions, where = tables[randrange(len(tables))]
        redeemed_at = opens + timedelta(seconds=int(64_800 * (n + random()) / count))
        serial = first + offset
        by_dealer.setdefault(dealer_id, []).append((
            facility_id, series_id, serial, cents, day, redeemed_at, table_id, game_id, choice(positions),
            chips[randrange(0, 4)], "", table_channel, None, dealer_id, None,
            dealer_id, series.serial(serial) + where))  # Redemption.__str__
    return [row for taken in by_dealer.values() for row in sorted(taken, key=lambda row: row[5])]


def _redeemed_and_posted(plan: ScalePlan, day: date, rows: list[tuple[Any, ...]],
                         events: list[tuple[int, int | None, bytes]], sessions: Sessions,
                         words: dict[tuple[str, int], str]) -> None:
    """The day's redemptions written hour by hour. With ``plan.beat_postings`` each hour's are posted to the ledger
    as beat posts them (``coupons.services.redemptions_post``, every minute in life; hourly here, and the ranges
    it leaves are the same: each coupon falls in the block away from the others and splits the range it falls
    in). Without, finance's processing posts the day the next morning (its first step, as when beat is late): the
    day's redeemed serials join into runs, and the ranges grow by the holes the kept coupons leave. Each hour's
    rows are written by the sessions side by side (:mod:`compliance.scale_sessions`), each dealer's in one of
    them, in a transaction a batch (the whole day's hours queued at once unless beat posts between them); their
    redemptions are linked once all have committed, their audit events' digests added to ``events``, linked at the day's end (the audit events' chain is shared with the other writer:
    :mod:`compliance.scale_turns`). ``words``: the names of the tables, dealers and series the audit events
    show, read once for the run (:func:`compliance.scale_sql.rows_as_saved_sql`)."""
    by_hour: dict[int, list[tuple[Any, ...]]] = {}
    opens = _at(plan, day, 0)
    for row in rows:
        by_hour.setdefault(int((row[5] - opens).total_seconds() // 3600), []).append(row)
    hours = [split_in_turns([list(taken) for _dealer, taken in groupby(by_hour[hour], key=lambda row: row[-2])],
                            sessions.count) for hour in sorted(by_hour)]  # each batch committed, as the scans are
    if not plan.beat_postings:
        # Nothing reads the day's redemptions before the form the next morning: every hour's batches go to the
        # sessions at once, each session taking the next as it finishes, so one session's statement runs while
        # another builds its batch and no core waits for an hour's slower batch (12 gaming days: the coupons 68-69 s
        # -> 64 s; docs/scale.md, "Eighteenth session").
        _batches_written([batch for batches in hours for batch in batches], events, sessions, words)
        return
    for hour, batches in zip(sorted(by_hour), hours, strict=True):
        _batches_written(batches, events, sessions, words)
        with travel(opens + timedelta(hours=hour + 1) + SETTLE):
            services.redemptions_post(facility=plan.facility)


def _batches_written(batches: list[list[tuple[Any, ...]]], events: list[tuple[int, int | None, bytes]],
                     sessions: Sessions, words: dict[tuple[str, int], str]) -> None:
    """The batches written by the sessions side by side; once all have committed, their rows linked and their audit
    events' digests added to ``events``."""
    written = sessions.each(partial(_written, words=words), batches)
    with transaction.atomic():
        file_digests(Redemption, [digest for linked, _events in written for digest in linked])
    events.extend(digest for _linked, batch_events in written for digest in batch_events)


def _written(rows: Sequence[tuple[Any, ...]], *, words: dict[tuple[str, int], str]
             ) -> tuple[list[tuple[int, int | None, bytes]], list[tuple[int, int | None, bytes]]]:
    """One session's share of an hour's redemptions, in its transaction: their digests and their audit events'."""
    linked: list[tuple[int, int | None, bytes]] = []
    events: list[tuple[int, int | None, bytes]] = []
    rows_as_saved_sql(Redemption, REDEMPTION, rows, moment="redeemed_at", events=events, rows_linked_later=linked,
                      words=words, checks=GUARD_CHECKS)
    return linked, events


def _day(plan: ScalePlan, quarter: _Quarter, floor: _Floor, day: date, people: dict[Role, Any], password: str,
         vault: StorageLocation, rng: Any, events: list[tuple[int, int | None, bytes]], sessions: Sessions,
         words: dict[tuple[str, int], str]) -> int:
    """One gaming day: issue, hand out, redeem; the next morning the form and finance's processing."""
    kept: dict[int, int] = {}
    redeemed: dict[int, int] = {}
    scans: list[tuple[Any, ...]] = []
    with travel(_at(plan, day, 4)), transaction.atomic():
        for series, share in quarter.series:
            count = max(1, round(plan.redemptions_per_day * share * rng.uniform(0.8, 1.2)))
            handed = count + max(1, round(count * HANDED_OUT_MORE))
            keep = max(1, round(count * KEPT_BY_MARKETING))
            first = quarter.next[series.pk]
            quarter.next[series.pk] = first + handed + keep
            _issued(plan.facility, series, people, password, on=day, serials=(first, first + handed + keep - 1))
            services.distribution_record(facility=plan.facility, series=series, spans=[(first, first + handed - 1)],
                                         user=people[Role.MARKETING_STAFF], gaming_date=day)
            scans += _redemptions(plan, floor, series, day, first, handed, count, rng)
            kept[series.denomination_cents] = kept.get(series.denomination_cents, 0) + keep
            redeemed[series.denomination_cents] = redeemed.get(series.denomination_cents, 0) + count
    _redeemed_and_posted(plan, day, scans, events, sessions, words)
    with travel(_at(plan, day, 25)), transaction.atomic():  # 07:00 the next morning
        services.reconciliation_complete(
            facility=plan.facility, gaming_date=day, counted_remaining=kept, user=people[Role.MARKETING_SUPERVISOR],
            password=password, disposition=ReconciliationForm.Disposition.RETURN,
            receiver=services.CoSigner(people[Role.FINANCE_SUPERVISOR], password))
        services.finance_day_process(
            facility=plan.facility, gaming_date=day, user=people[Role.FINANCE_STAFF], password=password,
            counted={cents: {"returned": kept[cents], "redeemed": redeemed[cents]} for cents in kept},
            restock_location=vault)
        if (day + timedelta(days=1)).month != day.month:
            counted: dict[CouponSeries, Sequence[tuple[int, int]]] = dict(expected_inventory(plan.facility))
            services.inventory_record(facility=plan.facility, user=people[Role.FINANCE_STAFF], password=password,
                                      counted=counted)
    # The beat's linker, the next morning: the redemptions' audit events, then the day's other rows (the redemptions
    # have joined their chain), taking turns with the floor's writer (compliance.scale_turns): if it is in the
    # middle of a transaction, another morning links them (and the last, waiting for its turn, links all). At most a
    # week's wait (the digests are kept in memory: a year's would be gigabytes; 28 days skipped 19 mornings running).
    with travel(_at(plan, day, 25)), linking_if_free(wait=len(events) >= LINK_AT_LATEST) as turn:
        if turn:
            file_event_digests(events)
            events.clear()
            chain_link_all()
    return sum(redeemed.values())


def coupons_scale_seed(*, plan: ScalePlan) -> str:
    people = _people(plan)
    floor = _Floor(plan)
    rng = plan.rng("coupons")
    redeemed = days = 0
    events: list[tuple[int, int | None, bytes]] = []  # the redemptions' audit events awaiting their link
    words: dict[tuple[str, int], str] = {}  # the names their audit events show (nothing is renamed in a run)
    with signing_passwords(people.values()) as password, Sessions() as sessions:
        with travel(_at(plan, plan.first_day, 2)):
            vault, _cabinet = _locations(plan.facility, people[Role.COMPLIANCE_OFFICER])
        quarter: _Quarter | None = None
        for day in plan.each_day():
            if quarter is None or quarter_of(day).start == day:
                with travel(_at(plan, day, 2)), transaction.atomic():
                    quarter = _Quarter(plan, day, people, password, vault)
            # The quarter's mailing, on its day before the day's issuance (coupons/scale_mailing.py)
            quarter_mailing(plan=plan, day=day, series=[s for s, _share in quarter.series], people=people,
                            password=password, vault=vault)
            redeemed += _day(plan, quarter, floor, day, people, password, vault, rng, events, sessions, words)
            days += 1
            if days % 7 == 0:
                plan.say(f"    coupons: {days} of {plan.days} gaming days, {redeemed:,} redeemed")
        with travel(_at(plan, plan.last_day, 25)), linking():  # what the last mornings could not link
            file_event_digests(events)
            chain_link_all()
    plan.shared["redeemed"] = redeemed
    how = ("written as a replica applies rows, each batch's foreign keys and guard checked before its commit"
           if written_as_replica(Redemption, GUARD_CHECKS) else "each row checked by the foreign keys' triggers")
    return (f"{days} gaming days reconciled and processed, {redeemed:,} coupons redeemed at {len(floor.tables)} tables "
            f"({how})")
