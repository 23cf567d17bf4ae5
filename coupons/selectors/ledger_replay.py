"""The coupons' check in the audit chain's verification: the sealed ledger replayed against the current state.

Every serial's current state (its open range row) must be what the ledger's lines, applied in order, leave it
in: a range rewritten without a line, a line deleted or slipped in, shows as serials whose two answers
differ, named by span, series and both states. A line that moves serials from a state they were not in is
named too. So is a redemption (the electronic cancellation, § 525.21(q)(6)) whose coupon the ledger holds
in another state than *redeemed* or *cancelled* — or *distributed*, while its move awaits posting on a day
finance has not processed (``coupons.services.redemption_posting``). Registered in ``coupons.apps`` as one of ``compliance.chain.VERIFY_CHECKS``; per series, in
memory proportional to the runs of serials of one series, never to the ledger's length.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from coupons.models import CouponRange, CouponSeries, CouponState, FinanceDayProcessing, LedgerLine, Redemption
from coupons.replay import Run, StateMap, differences

__all__ = ["ledger_replay_check", "touched_series"]

K = LedgerLine.Kind
NOT_MOVEMENTS = (K.INVENTORY,)  # a count: its serials are a summary of what was found, nothing moves


def _words(run: Run | None) -> str:
    if run is None:
        return "in no state"
    state = str(CouponState(run.state).label).lower() if run.state in CouponState.values else (run.state or "nowhere")
    return state + (f" (place #{run.place})" if run.place else "")


def _merged(spans: Iterator[tuple[int, int, Run | None, Run | None]]) -> Iterator[tuple[int, int, Any, Any]]:
    """Adjacent spans that disagree the same way, as one."""
    pending: list[Any] | None = None
    for first, last, ledger, now in spans:
        key = (_words(ledger), _words(now))
        if pending is not None and pending[1] + 1 == first and pending[4] == key:
            pending[1] = last
            continue
        if pending is not None:
            yield tuple(pending[:4])
        pending = [first, last, ledger, now, key]
    if pending is not None:
        yield tuple(pending[:4])


def _replay(series: CouponSeries, add: Any) -> StateMap:
    state = StateMap()
    lines = (LedgerLine.objects.filter(series=series, first_serial__isnull=False, last_serial__isnull=False)
             .exclude(kind__in=NOT_MOVEMENTS).order_by("pk")
             .values_list("pk", "kind", "from_state", "to_state", "first_serial", "last_serial", "location_id"))
    for pk, kind, from_state, to_state, first, last, place in lines.iterator(chunk_size=5000):
        for run in state.apply(first, last, "" if kind == K.RECEIVE else from_state, to_state, place):
            what = "were already received" if kind == K.RECEIVE else f"were {_words(run)}, not {from_state}"
            add("STATE", f"coupons.LedgerLine #{pk} ({kind}) moves serials {series.span(run.first, run.last)} of "
                         f"{series.name}, which by the ledger before it {what}")
    return state


def _current(series: CouponSeries) -> list[Run]:
    rows = CouponRange.objects.filter(series=series, closed_by__isnull=True).order_by("first_serial").values_list(
        "first_serial", "last_serial", "state", "location_id")
    return [Run(first, last, state, place) for first, last, state, place in rows.iterator(chunk_size=5000)]


POSTED = (CouponState.REDEEMED, CouponState.CANCELLED)


def _redemptions_check(series: CouponSeries, runs: list[Run], add: Any) -> None:
    """Each redemption of ``series`` against the state its serial's run holds (both in serial order)."""
    through = FinanceDayProcessing.objects.filter(facility_id=series.facility_id).order_by("-gaming_date").values_list(
        "gaming_date", flat=True).first()
    at = 0
    rows = Redemption.objects.filter(series=series).order_by("serial").values_list("pk", "serial", "gaming_date")
    for pk, serial, day in rows.iterator(chunk_size=5000):
        while at < len(runs) and runs[at].last < serial:
            at += 1
        run = runs[at] if at < len(runs) and runs[at].first <= serial else None
        state = run.state if run is not None else None
        if state in POSTED or (state == CouponState.DISTRIBUTED and (through is None or day > through)):
            continue
        add("STATE", f"coupons.Redemption #{pk} redeemed serial {series.serial(serial)} of {series.name} on {day}, "
                     f"but the ledger has it {_words(run)}" + (" on a day finance processed (it was never posted)"
                                                               if state == CouponState.DISTRIBUTED else ""))


def touched_series(since: datetime | None) -> tuple[QuerySet[Any], QuerySet[Any]]:
    """The series the ledger moved and those redeemed (``since``: since then), each once, as the database
    answers: ``order_by()`` drops the models' orderings, which DISTINCT would otherwise select too, so that it
    answered a row a redemption (8.3 million rows, 1.3 GB and 40 s of a verification at 151 gaming days)."""
    moved = LedgerLine.objects.all()
    redeemed = Redemption.objects.all()
    if since is not None:
        moved = moved.filter(occurred_at__gte=since)
        redeemed = redeemed.filter(redeemed_at__gte=since)
    return (moved.order_by().values_list("series_id", flat=True).distinct(),
            redeemed.order_by().values_list("series_id", flat=True).distinct())


def ledger_replay_check(report: Any, since: datetime | None) -> None:
    """Replay each series (``since``: only those the ledger moved or redeemed since then) and name every
    disagreement."""
    moved, redeemed = touched_series(since)
    wanted = sorted(set(moved) | set(redeemed))
    for series in CouponSeries.objects.filter(pk__in=wanted).order_by("pk").iterator():
        replayed = _replay(series, report.add)
        current = _current(series)
        _redemptions_check(series, current, report.add)
        for first, last, ledger, now in _merged(differences(replayed, current)):
            report.add("STATE", f"Serials {series.span(first, last)} of {series.name} (series #{series.pk}): the sealed "
                                f"ledger has them {_words(ledger)}, the current state {_words(now)} — the current state "
                                "was changed without the ledger")
