"""Minimum and maximum wagers per table (§ 521.7) and their changes (§ 521.8(c)).

* No patrons playing: the change takes effect at once, the person attesting that no one is playing
  (§ 521.8(c)(1)).
* Patrons playing: the change is scheduled at least 30 minutes ahead (§ 521.8(c)(2)(i)); the sign giving the new
  limits and the time they take effect is printed from the change and its posting recorded, at least 30 minutes
  before that time (§ 521.8(c)(2)(ii)); the announcement to the patrons at the table is recorded (§ 521.8(c)(2)(iii)).
  Beat applies it at its time on the facility's clock (:func:`limit_changes_apply`); a change whose sign was not
  posted 30 minutes ahead, or that was never announced, is not applied and says why — the old limits stay.

The notice is counted from the posting of the sign, because the sign is the notice patrons read; the database
also holds 30 minutes between the request and the time of effect, and between the posting and it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from compliance.actors import acts_as_system, acts_as_user
from compliance.gaming_day import local_time
from compliance.models import GamingTable
from compliance.numbers import read_amount
from compliance.roles import Capability
from compliance.service_checks import require_at_facility
from compliance.submissions import requirements, selectors
from compliance.submissions.catalogue import money_text
from compliance.submissions.models import NOTICE, SignKind, WagerLimitChange
from compliance.submissions.signs import sign_use_refusal

__all__ = [
    "limit_change_announce",
    "limit_change_cancel",
    "limit_change_post",
    "limit_change_request",
    "limit_changes_apply",
]

MOST = Decimal("10000000")
State = WagerLimitChange.State


def _allowed(user: Any, table: GamingTable) -> None:
    require_at_facility(user, table.facility, Capability.CHANGE_WAGER_LIMITS)


def _amount(value: Any, what: str) -> Decimal:
    amount = read_amount(value, what=f"the {what} as an amount in dollars, such as 25.00")
    if not Decimal("0.01") <= amount <= MOST:
        raise ValidationError(f"The {what} is between $0.01 and ${money_text(MOST)}.")
    if amount != amount.quantize(Decimal("0.01")):
        raise ValidationError(f"The {what} is in dollars and cents.")
    return amount


def _clock(moment: datetime, table: GamingTable) -> str:
    return f"{local_time(table.facility, moment):%H:%M on %-d %b}"


@transaction.atomic
@acts_as_user
def limit_change_request(*, table: GamingTable, minimum: Any, maximum: Any, patrons_playing: bool,
                         effective_at: datetime | None = None, user: Any) -> WagerLimitChange:
    """Ask for new limits at ``table``: at once with no patrons playing, else at ``effective_at``."""
    _allowed(user, table)
    table = GamingTable.objects.select_for_update(of=("self",)).select_related("game", "facility").get(pk=table.pk)
    low, high = _amount(minimum, "minimum wager"), _amount(maximum, "maximum wager")
    if high < low:
        raise ValidationError(f"The maximum (${money_text(high)}) is below the minimum (${money_text(low)}).")
    now = timezone.now()
    pending = selectors.pending_change(table)
    if pending is not None:
        raise ValidationError(f"Table {table.number} already has a change scheduled for "
                              f"{_clock(pending.effective_at, table)}: cancel it first.")
    _check_against_rules(table, low, high)
    if not patrons_playing:
        if effective_at is not None:
            raise ValidationError("With no patrons playing the change takes effect at once (§ 521.8(c)(1)); "
                                  "leave the time empty, or say patrons are playing to schedule it.")
        return WagerLimitChange.objects.create(
            table=table, minimum=low, maximum=high, patrons_playing=False, requested_at=now, requested_by=user,
            effective_at=now, state=State.APPLIED, applied_at=now)
    if effective_at is None:
        raise ValidationError("Patrons are playing: give the time the new limits take effect, at least 30 minutes "
                              "from now (§ 521.8(c)(2)(i)).")
    unapproved = sign_use_refusal(table.facility, SignKind.LIMIT_CHANGE)
    if unapproved:  # § 521.8(c)(2)(ii): the notice is a sign at the table, which must be approved before its use
        raise ValidationError(f"Patrons are playing, so the change needs a sign posted at the table "
                              f"(§ 521.8(c)(2)(ii)). {unapproved} Until then, change limits only when no patrons "
                              f"are playing (§ 521.8(c)(1)).")
    effective_at = effective_at.replace(second=0, microsecond=0)
    if effective_at < now + NOTICE:
        earliest = (now + NOTICE + timedelta(minutes=1)).replace(second=0, microsecond=0)
        minutes = max(int((effective_at - now).total_seconds() // 60), 0)
        raise ValidationError(
            f"Patrons are playing: the change needs at least 30 minutes' notice (§ 521.8(c)(2)(i)); "
            f"{_clock(effective_at, table)} is {minutes} minutes away. The earliest is {_clock(earliest, table)}.")
    if effective_at > now + timedelta(days=31):
        raise ValidationError("Schedule a change at most 31 days ahead.")
    try:
        with transaction.atomic():
            change = WagerLimitChange.objects.create(
                table=table, minimum=low, maximum=high, patrons_playing=True, requested_at=now, requested_by=user,
                effective_at=effective_at)
    except IntegrityError:
        raise ValidationError(f"Table {table.number} already has a change scheduled: cancel it first.") from None
    transaction.on_commit(lambda: _queue_at(effective_at))
    return change


def _check_against_rules(table: GamingTable, low: Decimal, high: Decimal) -> None:
    """New limits differ from those in force and agree with the rules: the game's increments (§ 521.7(d)) and
    Asia Poker's payout limit (§ 575.12(c)), in the versions in force, approved for later and awaiting the Board."""
    current = selectors.current_limits(table)
    if current is not None and (current.minimum, current.maximum) == (low, high):
        raise ValidationError(f"Table {table.number}'s limits are already ${money_text(low)}–${money_text(high)}.")
    refusals = selectors.increment_refusals_ahead(table, low, high)
    if table.game.code == "asia-poker":
        refusals += selectors.asia_poker_minimum_refusals(table, low)
    if refusals:
        raise ValidationError(refusals)


def _queue_at(moment: datetime) -> None:
    """The apply job at the change's own time (beat's minute is the fallback if the message is lost)."""
    from django.conf import settings

    from compliance.submissions.tasks import apply_wager_limit_changes

    if not getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        apply_wager_limit_changes.apply_async(eta=moment)


def _scheduled(change: WagerLimitChange) -> WagerLimitChange:
    locked = WagerLimitChange.objects.select_for_update(of=("self",)).select_related("table__facility").get(pk=change.pk)
    if locked.state != State.SCHEDULED:
        raise ValidationError(f"This change is {locked.get_state_display().lower()}; nothing more can be recorded.")
    return locked


@transaction.atomic
@acts_as_user
def limit_change_post(*, change: WagerLimitChange, user: Any) -> WagerLimitChange:
    """The sign with the new limits and their time was posted at the table now (§ 521.8(c)(2)(ii))."""
    _allowed(user, change.table)
    locked = _scheduled(change)
    if locked.posted_at is not None:
        raise ValidationError(f"The sign was posted at {_clock(locked.posted_at, locked.table)}.")
    unapproved = sign_use_refusal(locked.table.facility, SignKind.LIMIT_CHANGE)
    if unapproved:
        raise ValidationError(unapproved)
    now = timezone.now()
    if now + NOTICE > locked.effective_at:
        raise ValidationError(
            f"Posted now, the sign gives less than 30 minutes' notice before {_clock(locked.effective_at, locked.table)}"
            f" (§ 521.8(c)(2)(i)): cancel this change and schedule it again from now.")
    locked.posted_at, locked.posted_by = now, user
    locked.save()
    return locked


@transaction.atomic
@acts_as_user
def limit_change_announce(*, change: WagerLimitChange, user: Any) -> WagerLimitChange:
    """The change was announced to the patrons at the table (§ 521.8(c)(2)(iii))."""
    _allowed(user, change.table)
    locked = _scheduled(change)
    if locked.announced_at is not None:
        raise ValidationError(f"The change was announced at {_clock(locked.announced_at, locked.table)}.")
    if locked.posted_at is None:
        raise ValidationError("Post the sign first: the announcement tells the patrons what the sign says.")
    now = timezone.now()
    if now >= locked.effective_at:
        raise ValidationError("The time of the change has come: an announcement now is no notice.")
    locked.announced_at, locked.announced_by = now, user
    locked.save()
    return locked


@transaction.atomic
@acts_as_user
def limit_change_cancel(*, change: WagerLimitChange, reason: str, user: Any) -> WagerLimitChange:
    _allowed(user, change.table)
    locked = _scheduled(change)
    reason = (reason or "").strip()
    if not reason or len(reason) > 300:
        raise ValidationError("Say why the change is cancelled (at most 300 characters).")
    locked.state, locked.closed_reason = State.CANCELLED, reason
    locked.save()
    return locked


@acts_as_system
def limit_changes_apply(now: datetime | None = None) -> list[WagerLimitChange]:
    """Every scheduled change whose time has come: applied when its notice was given, else not applied with the
    reason. Each in its own transaction, skipping a row another run holds: a change is applied exactly once."""
    now = now or timezone.now()
    done = []
    due = list(WagerLimitChange.objects.filter(state=State.SCHEDULED, effective_at__lte=now)
               .values_list("pk", flat=True))
    for pk in due:
        with transaction.atomic():
            change = (WagerLimitChange.objects.select_for_update(skip_locked=True, of=("self",))
                      .select_related("table__facility", "table__game").filter(pk=pk, state=State.SCHEDULED).first())
            if change is None:
                continue
            missing = []
            if change.posted_at is None or change.posted_at + NOTICE > change.effective_at:
                missing.append("the sign was not posted 30 minutes ahead (§ 521.8(c)(2)(ii))")
            if change.announced_at is None:
                missing.append("the change was not announced to the patrons (§ 521.8(c)(2)(iii))")
            missing += _rules_missing(change)
            if missing:
                change.state = State.LAPSED
                change.closed_reason = "Not applied: " + "; ".join(missing) + ". The previous limits stay."
            else:
                change.state, change.applied_at = State.APPLIED, now  # when it was applied; effective_at is the plan
            change.save()
            done.append(change)
    return done


def _rules_missing(change: WagerLimitChange) -> list[str]:
    """What the rules in force when a change's time comes say against its limits: Asia Poker's payout limit
    (§ 575.12(c)) and the game's increments (§ 521.7(d))."""
    table = change.table
    approved = selectors.rules_for(table.facility, table.game.code) or {}
    found = requirements.increment_refusals(requirements.increments(approved), change.minimum, change.maximum,
                                            where=f"table {table.number}")
    if table.game.code == "asia-poker":
        found += [words for words in selectors.asia_poker_limit_refusals(table.facility, approved,
                                                                         {change.table_id: change.minimum})
                  if f"table {table.number}'s" in words]
    return [words[0].lower() + words[1:].rstrip(".") for words in found]
