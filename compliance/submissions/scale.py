"""The Rules Submission's part of a generated year (``manage.py generate_casino``, :mod:`compliance.scale`).

Through the services, the clock set to each moment, as the facility's people would have done it:

* six weeks before the year, each table's minimum and maximum wagers set by a floorperson with no patrons playing
  (§ 521.7(a), § 521.8(c)(1)); the first version of the Rules Submission (the demo's choices,
  :mod:`compliance.submissions.demo`) filed with the Board by the compliance officer's signature (§ 521.2), the
  Board's approval recorded two weeks later and in force a week before the year (§ 521.8(b)); the Asia Poker gaming
  guide sent to and approved by the Bureau (§ 521.9), the signs' locations approved (§ 521.8(d)); the Asia Poker
  tables offering the Bonus Wager the version permits, set by the shift manager;
* on the second day of the year and every 91 days after it, an amendment (paytable and payout options, in turn:
  :data:`AMENDMENTS`) drafted and filed, the Board's approval recorded two weeks later, in force a week after that;
  a changed Asia Poker version brings a new guide, sent to and approved by the Bureau;
* every Friday at 19:00, the limits of a few tables raised for the weekend while patrons play: the change scheduled
  35 minutes ahead, its sign posted and the change announced (§ 521.8(c)(2)), applied at its time as beat applies it
  (:func:`compliance.submissions.limits.limit_changes_apply`); every Sunday at 06:10, before play, lowered back at
  once (§ 521.8(c)(1)).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from django.db import transaction

from compliance.demo import signing_passwords
from compliance.gaming_day import day_bounds
from compliance.models import Game, GamingTable
from compliance.roles import Role
from compliance.scale import ScalePlan, travel
from compliance.submissions import limits, services, signs
from compliance.submissions.demo import ASIA_POKER, LIMITS, SIGNS
from compliance.submissions.models import RulesSubmission

__all__ = ["AMENDMENTS", "submissions_scale_seed"]

# (title, summary, game, the options it changes), in turn through the year.
AMENDMENTS = (
    ("Amendment: Sic Bo odds", "Two of a Kind paid at 10 to 1.", "sic-bo", {"two-of-a-kind": "10 to 1"}),
    ("Amendment: Asia Poker paytable", "The Bonus Wager paid by paytable C.", "asia-poker", {"paytable": "C"}),
    ("Amendment: Sic Bo totals", "Totals of 4 and 17 paid at 60 to 1.", "sic-bo",
     {"total-4": "60 to 1", "total-17": "60 to 1"}),
    ("Amendment: Asia Poker payout limit", "A payout limit of $300,000 a round.", "asia-poker",
     {"payout_limit": "300000"}),
)
AMENDMENT_EVERY = 91  # days
WEEKEND_TABLES = 4  # tables whose limits go up each weekend
WEEKEND_GAMES = ("craps", "roulette", "blackjack")
DECISION_AFTER, EFFECT_AFTER = timedelta(days=14), timedelta(days=7)


def _at(plan: ScalePlan, day: date, hours: float) -> datetime:
    return day_bounds(plan.facility, day)[0] + timedelta(hours=hours)


def _limits(table: GamingTable) -> tuple[str, str]:
    return LIMITS.get(table.game.code, ("10", "1000"))


def _first_version(plan: ScalePlan, tables: list[GamingTable], people: dict[Role, Any], password: str) -> None:
    officer, floorperson = people[Role.COMPLIANCE_OFFICER], people[Role.FLOORPERSON]
    filed_on = plan.first_day - timedelta(days=42)
    with travel(_at(plan, filed_on, 4)), transaction.atomic():
        for table in tables:
            low, high = _limits(table)
            limits.limit_change_request(table=table, minimum=low, maximum=high, patrons_playing=False,
                                        user=floorperson)
        first = services.submission_draft(facility=plan.facility, title="Rules Submission",
                                          summary="The options selected for each game offered.", user=officer)
        services.submission_game_set(submission=first, code="asia-poker", values=ASIA_POKER, user=officer)
        services.submission_submit(submission=first, user=officer, password=password)
    _decided(plan, first, filed_on, officer)
    approved_on = filed_on + DECISION_AFTER
    with travel(_at(plan, approved_on, 6)), transaction.atomic():
        _guide(plan, officer, password, approved_on)
        for kind, location in SIGNS.items():
            signs.sign_approval_record(facility=plan.facility, kind=kind, location=location, size="letter",
                                       language="English", approved_on=approved_on, reference=f"BGO-S-{kind}",
                                       user=officer)
    with travel(_at(plan, plan.first_day - EFFECT_AFTER, 1)), transaction.atomic():
        for table in (t for t in tables if t.game.code == "asia-poker"):
            services.table_setting_set(table=table, options={"bonus_wager": "yes"}, user=people[Role.SHIFT_MANAGER])


def _decided(plan: ScalePlan, submission: RulesSubmission, filed_on: date, officer: Any) -> bool:
    """The Board's approval, two weeks after the filing and in force a week later, if that is within the plan."""
    decided_on = filed_on + DECISION_AFTER
    if decided_on > plan.last_day:
        return False  # still with the Board when the generated year ends
    with travel(_at(plan, decided_on, 5)):
        services.board_decision_record(submission=submission, decision="approved", decided_on=decided_on,
                                       effective_on=decided_on + EFFECT_AFTER,
                                       reference=f"PGCB TG-{decided_on:%Y}-{submission.number:03d}", user=officer)
    return True


def _guide(plan: ScalePlan, officer: Any, password: str, on: date) -> None:
    """The Asia Poker guide of the latest approved version, sent to and approved by the Bureau (§ 521.9)."""
    guide = services.guide_generate(facility=plan.facility, game=Game.objects.get(code="asia-poker"), user=officer)
    services.guide_submit(guide=guide, user=officer, password=password)
    services.guide_approval_record(guide=guide, approved_on=on, reference=f"BGO-G-{on:%y%m%d}", user=officer)


def _amendment(plan: ScalePlan, number: int, day: date, officer: Any, password: str) -> bool:
    """An amendment filed on ``day``; whether the Board decided it within the plan."""
    title, summary, code, changes = AMENDMENTS[number % len(AMENDMENTS)]
    with travel(_at(plan, day, 5)), transaction.atomic():
        draft = services.submission_draft(facility=plan.facility, title=title, summary=summary, user=officer)
        services.submission_game_set(submission=draft, code=code, values=dict(draft.rules[code], **changes),
                                     user=officer)
        services.submission_submit(submission=draft, user=officer, password=password)
    decided = _decided(plan, draft, day, officer)
    if decided and code == "asia-poker":
        with travel(_at(plan, day + DECISION_AFTER, 6)), transaction.atomic():
            _guide(plan, officer, password, day + DECISION_AFTER)
    return decided


def _weekend(plan: ScalePlan, friday: date, tables: list[GamingTable], floorperson: Any) -> int:
    """Friday evening's raised limits, scheduled with 30 minutes' notice, and Sunday morning's return to them.

    One transaction from Friday's request to Sunday's return, committed then: what runs at commit (the facility's
    breach sync, which reads every table's readiness) runs once a weekend, not after each step."""
    at = _at(plan, friday, 13)  # 19:00
    sunday = friday + timedelta(days=2)
    changes = []
    with travel(_at(plan, min(sunday, plan.last_day), 1 / 6)), transaction.atomic():
        with travel(at):
            for table in tables:
                low, high = _limits(table)
                changes.append(limits.limit_change_request(
                    table=table, minimum=str(int(low) * 5 // 2 // 5 * 5), maximum=high, patrons_playing=True,
                    effective_at=at + timedelta(minutes=35), user=floorperson))
        for minutes, step in ((1, limits.limit_change_post), (5, limits.limit_change_announce)):
            with travel(at + timedelta(minutes=minutes)):
                for change in changes:
                    step(change=change, user=floorperson)
        with travel(at + timedelta(minutes=35)):
            limits.limit_changes_apply()  # beat, at the change's time
        if sunday <= plan.last_day:  # 06:10, before play
            for table in tables:
                low, high = _limits(table)
                limits.limit_change_request(table=table, minimum=low, maximum=high, patrons_playing=False,
                                            user=floorperson)
    return len(changes) * 2 if sunday <= plan.last_day else len(changes)


def submissions_scale_seed(*, plan: ScalePlan) -> str:
    tables = list(GamingTable.objects.filter(facility=plan.facility).select_related("game").order_by("number"))
    people = {role: plan.people[role] for role in (Role.COMPLIANCE_OFFICER, Role.FLOORPERSON, Role.SHIFT_MANAGER)}
    officer = people[Role.COMPLIANCE_OFFICER]
    weekend = [t for t in tables if t.game.code in WEEKEND_GAMES]
    amendments = decided = changes = weekends = 0
    with signing_passwords([officer]) as password:
        _first_version(plan, tables, people, password)
        for number, day in enumerate(plan.each_day()):
            if number % AMENDMENT_EVERY == 1 or plan.days == 1:
                decided += _amendment(plan, amendments, day, officer, password)
                amendments += 1
            if day.weekday() == 4 and weekend:  # Friday
                start = weekends * WEEKEND_TABLES % len(weekend)
                chosen = (weekend + weekend)[start:start + min(WEEKEND_TABLES, len(weekend))]
                changes += _weekend(plan, day, chosen, people[Role.FLOORPERSON])
                weekends += 1
    return (f"version 1 and {amendments} amendment(s) filed ({1 + decided} approved by the Board), {len(tables)} "
            f"tables' limits set, {changes} weekend limit changes over {weekends} weekends")
