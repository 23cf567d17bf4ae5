"""Redemptions posted into the ledger's ranges in batches (§ 525.21(q)(6), (m); issue 24).

A scan at the table writes its :class:`~coupons.models.Redemption` row and nothing else: that row, unique per
series and serial (``coupon_redeemed_once``), *is* the electronic cancellation — the moment it commits no
later scan honours the coupon. The ledger's move of the serial from *distributed* to *redeemed* is posted
here afterwards: one :class:`~coupons.models.RedemptionPosting` document whose lines each move a run of
consecutive serials of one series and gaming day, dated that gaming day. It runs

* by beat every minute (``coupons.tasks.post_redemptions``), beside the scans: the facility's lock in share
  mode, as a redemption takes it, and a transaction-level advisory lock so two postings take turns; it reads the
  last minutes' redemptions and checks by the ledger's count that nothing older awaits (else it reads them all);
* first in finance's daily processing, in its transaction, under the facility's exclusive lock: no scan is
  committing then, so the processing sees every redemption in the ranges it cancels (§ 525.21(m)(2));
* first in a take-back of a distribution (reversal, correction), so a coupon already redeemed is refused
  there as *redeemed* and not moved back to marketing.

Running it twice is harmless: a redemption whose serial the ranges already hold as *redeemed* is posted.
A redemption whose serial the ledger holds in any state other than *distributed* is a contradiction: the
posting refuses with every such coupon named, and writes nothing (the database refuses to record such a
redemption, so this means a record was changed outside the application).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from compliance.actors import acts_as_system, current_actor
from compliance.gaming_day import day_bounds
from compliance.models import Facility
from coupons import ranges as spans_
from coupons.days import today
from coupons.ledger import lock_facility_shared, move
from coupons.models import CouponSeries, CouponState, LedgerLine, Redemption, RedemptionPosting
from coupons.selectors.redemption import (
    AwaitingPosting,
    RedemptionRow,
    awaiting_posting_counts,
    recent_redemptions_awaiting_posting,
    redemptions_awaiting_posting,
)
from coupons.services._common import create

__all__ = ["RECENT", "SETTLE", "pending_redemptions_post", "redemptions_post"]

S = CouponState
# A scan reads its gaming day before its transaction, and gunicorn ends a request after 30 s: once a day is
# this old no scan of the day before can still commit, so today's redemptions are posted only then (a range
# split by a line of today would refuse a late line of yesterday: the ledger runs forward in gaming days).
SETTLE = timedelta(minutes=2)
SPANS_PER_MOVE = 400  # one move's locking query names each span: bounded
# The beat's posting reads the redemptions of the last RECENT only, then checks by count that they are all that
# awaits (below); a beat that did not run for longer, or anything else the count does not find, reads them all.
RECENT = timedelta(minutes=3)
_ADVISORY_CLASS = 525_216  # § 525.21(q)(6): the postings of one facility take turns


def _take_turns(facility: Facility) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_ADVISORY_CLASS, facility.pk])


def _contradictions(facility: Facility, rows: list[AwaitingPosting]) -> None:
    held = {r.redemption.pk: r.held_state for r in rows if r.held_state != S.DISTRIBUTED}
    if not held:
        return
    whole = Redemption.objects.filter(pk__in=list(held)).select_related("series", "table").order_by(
        "gaming_date", "series_id", "serial")
    wrong = [(r, held[r.pk]) for r in whole]
    words = "; ".join(
        f"{r.coupon} (redeemed at table {r.table.number} on {r.gaming_date:%d %b %Y}) is "
        + (f"{S(held).label.lower()} in the ledger" if held else "in no range of the ledger")
        for r, held in wrong[:20])
    raise ValidationError(
        f"{len(wrong)} redemption(s) of {facility.name} cannot be posted: the ledger holds their coupons in another "
        f"state than distributed: {words}. A redemption is refused for such a coupon, so a record was changed "
        f"outside the application; nothing was posted. Call compliance (§ 525.21(q)(6), (r)(2))."
    )


def _settled(facility: Facility, rows: list[RedemptionRow]) -> list[RedemptionRow]:
    """All but today's redemptions while today is younger than :data:`SETTLE`."""
    day = today(facility)
    if timezone.now() - day_bounds(facility, day)[0] >= SETTLE:
        return rows
    return [r for r in rows if r.gaming_date < day]


def _awaiting(facility: Facility, *, recent_first: bool) -> list[AwaitingPosting]:
    """Every redemption of ``facility`` awaiting its posting. ``recent_first``: those redeemed in the last
    :data:`RECENT` are read (no look-up of the day's older ones, each posted already: 0.8-1.1 s of PostgreSQL every
    minute at 76,000-97,000 redemptions a day on the busy floor, issue 27), and kept only if they are as many as
    the ledger's count of what awaits (``awaiting_posting_counts``: the days' redemptions less the coupons their
    ``redeem`` lines moved) in the same snapshot; none read, the count after them must be none, as what awaits
    only grows while this posting holds the postings' turn (a drop-box count posts its own in its transaction).
    Otherwise they are all read."""
    if recent_first:
        recent, awaiting = recent_redemptions_awaiting_posting(facility, timezone.now() - RECENT)
        if awaiting is None:
            awaiting = sum(awaiting_posting_counts(facility).values())
        if len(recent) == awaiting:
            return recent
    return redemptions_awaiting_posting(facility)


def pending_redemptions_post(facility: Facility, *, settled_only: bool = False) -> RedemptionPosting | None:
    """Post every redemption of ``facility`` awaiting it, in the caller's transaction, which holds the
    facility's lock (shared or exclusive). ``settled_only``: today's wait until the day is :data:`SETTLE` old,
    and the recent redemptions are read first (beat; finance, holding the exclusive lock, and a take-back read
    them all). The posting, or None if nothing waited."""
    _take_turns(facility)
    awaiting = _awaiting(facility, recent_first=settled_only)
    _contradictions(facility, awaiting)
    rows = [r.redemption for r in awaiting]
    if settled_only:
        rows = _settled(facility, rows)
    if not rows:
        return None
    posting = create(RedemptionPosting, current_actor(), facility=facility, gaming_date=today(facility),
                     quantity=len(rows))
    runs: dict[tuple[date, int], list[int]] = defaultdict(list)
    for row in rows:
        runs[(row.gaming_date, row.series_id)].append(row.serial)
    series_of: dict[int, CouponSeries] = CouponSeries.objects.in_bulk({row.series_id for row in rows})
    for (day, series_id), serials in sorted(runs.items()):  # earlier days first: the ledger runs forward
        spans = spans_.merge([(n, n) for n in serials])
        for start in range(0, len(spans), SPANS_PER_MOVE):
            move(document=posting, series=series_of[series_id], spans=spans[start:start + SPANS_PER_MOVE],
                 kind=LedgerLine.Kind.REDEEM, from_states=[S.DISTRIBUTED], to_state=S.REDEEMED, on=day,
                 step="only coupons given to patrons are redeemed",
                 reason="Redeemed and electronically cancelled at the tables, posted to the ledger, § 525.21(q)(6)")
    return posting


@acts_as_system
def redemptions_post(*, facility: Facility | None = None) -> int:
    """Beat, every minute: post each facility's settled redemptions, one transaction per facility. The
    number of coupons posted."""
    posted = 0
    for each in [facility] if facility is not None else Facility.objects.order_by("pk"):
        with transaction.atomic():
            lock_facility_shared(each)
            posting = pending_redemptions_post(each, settled_only=True)
        posted += posting.quantity if posting is not None else 0
    return posted
