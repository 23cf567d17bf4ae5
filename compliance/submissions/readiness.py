"""What chapter 521 requires of a table before it opens and while it is open: the Rules Submission's requirement
source for the table readiness service (``compliance.readiness``), registered in ``apps.py``.

* § 521.7(a): a minimum and a maximum wager in force. Only "no limits ever applied" is unmet: a change that was
  cancelled or not applied leaves the previous limits in force (§ 521.8(c)).
* § 521.8(b): an approved Rules Submission in force on the gaming day of the instant — for every game, including
  those the catalogue has no choices for (Craps, Roulette, Blackjack): the version is the rules of every game the
  facility offers, and a game without choices needs no entry in it.
* § 521.8(b) and the rules in force: a table set to an option the version in force does not grant, an Asia Poker
  minimum the payout limit no longer covers (§ 575.12(c)), limits that are not multiples of the game's increment
  (§ 521.7(d)).

Each is a regulation's requirement: none is overridable. Three queries whatever the number of tables
(:func:`compliance.submissions.selectors.tables_rules`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from functools import lru_cache

from django.urls import reverse

from compliance.gaming_day import gaming_day
from compliance.models import Facility, GamingTable
from compliance.readiness import Unmet
from compliance.submissions import catalogue, selectors

__all__ = ["submission_unmet"]

FLOOR = "a floorperson or shift manager"
COMPLIANCE = "the compliance officer"


def _limits(table: GamingTable) -> Unmet:
    state = ("is open with no minimum and maximum wager in force" if table.is_open
             else "has no minimum and maximum wager in force")
    return Unmet(code="limits", clause="521.7(a)", short="no wager limits", who=FLOOR,
                 words=f"Table {table.number} {state} (§ 521.7(a)): {FLOOR} sets them on the wager limits page"
                       f"{'' if table.is_open else ' before it opens'}.",
                 link=_limit_link(table.pk))


@lru_cache(maxsize=1)
def _list_link() -> str:
    return reverse("submissions:list")


@lru_cache(maxsize=8192)
def _limit_link(table_id: int) -> str:
    """The table's wager-limits page (a board of 200 tables reversed 200 URLs on every view; the URLs never change
    while the process runs)."""
    return reverse("submissions:limit-request", args=[table_id])


def _submission(table: GamingTable, day: date) -> Unmet:
    return Unmet(code="submission", clause="521.8(b)", short="no approved rules", who=COMPLIANCE,
                 words=f"No approved Rules Submission is in force on the gaming day of {day:%-d %b %Y}: table "
                       f"{table.number} may be operated only under rules the Board approved (§ 521.8(b)); "
                       f"{COMPLIANCE} files a version and records the Board's approval.",
                 link=_list_link())


def _conflict(table: GamingTable, conflict: catalogue.Conflict) -> Unmet:
    if conflict.kind == "settings":
        who, link, short = "a shift manager", reverse("submissions:table-setting", args=[table.pk]), \
            "option not approved"
        way = f"{who}, with the table closed, sets it to run only the options an approved version grants"
    else:
        who, link, short = f"{FLOOR}, or {COMPLIANCE} by an amendment", \
            reverse("submissions:limit-request", args=[table.pk]), "limits against the rules"
        way = f"{FLOOR} changes the table's limits, or {COMPLIANCE} files an amendment"
    return Unmet(code="submission:settings", clause=conflict.clause, short=short, who=who, link=link,
                 words=f"Table {table.number}: {conflict.words.rstrip('.')}; {way}.")


def submission_unmet(facility: Facility, tables: Sequence[GamingTable], at: datetime) -> dict[int, list[Unmet]]:
    """Per table, what chapter 521 requires and is not met at ``at`` (three queries for any number of tables)."""
    found: dict[int, list[Unmet]] = {}
    day = gaming_day(facility, at)  # once, not once a table
    for rules in selectors.tables_rules(facility, tables=tables, at=at):
        table, unmet = rules.table, []
        if rules.limits is None:
            unmet.append(_limits(table))
        if rules.submission is None:
            unmet.append(_submission(table, day))
        unmet += [_conflict(table, conflict) for conflict in rules.conflicts]
        if unmet:
            found[table.pk] = unmet
    return found
