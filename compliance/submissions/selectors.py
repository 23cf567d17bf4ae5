"""Reads of the Rules Submission: versions and their standing, the rules in force on a day, a table's rules and
limits, what changed between two versions, and the guides that may be distributed."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from compliance.games.math.core import OptionError
from compliance.gaming_day import gaming_day
from compliance.models import Facility, Game, GamingTable
from compliance.submissions import catalogue, requirements
from compliance.submissions.models import (
    BoardDecision,
    Decision,
    GamingGuide,
    RulesSubmission,
    SignApproval,
    TableSetting,
    WagerLimitChange,
)

__all__ = [
    "TableRules",
    "asia_poker_limit_refusals",
    "change",
    "changes_of",
    "current_limits",
    "diff",
    "guide_distributable",
    "guide_rows",
    "guides_needing_approval",
    "guides_of",
    "in_force",
    "increment_refusals_ahead",
    "increment_refusals_of_tables",
    "latest_approved",
    "material_hash",
    "pending_change",
    "public_facilities",
    "public_facility",
    "public_guides",
    "rules_for",
    "sign_approvals_of",
    "signs_in_force",
    "standing",
    "submission",
    "submissions_of",
    "table_plays_six_dice",
    "table_rules",
    "table_setting",
    "tables_of",
    "tables_rules",
]


def submissions_of(facility: Facility) -> QuerySet[RulesSubmission]:
    return (RulesSubmission.objects.filter(facility=facility).select_related("decision", "amends", "facility")
            .prefetch_related("signatures"))


def row_id(pk: Any) -> int | None:
    """A row id from a URL or a query string, or None for anything that is not one ("²", "1e3", "-1", "")."""
    text = str(pk)
    return int(text) if text.isascii() and text.isdecimal() and len(text) <= 18 else None


def submission(facility: Facility, pk: Any) -> RulesSubmission | None:
    found = row_id(pk)
    return submissions_of(facility).filter(pk=found).first() if found is not None else None


def _decision(sub: RulesSubmission) -> BoardDecision | None:
    try:
        return sub.decision
    except BoardDecision.DoesNotExist:
        return None


def standing(sub: RulesSubmission, today: date | None = None, *, current: Any = "?") -> str:
    """draft, submitted (awaiting the Board), rejected, approved (effective later), in force or superseded."""
    decided = _decision(sub)
    if decided is None:
        return "submitted" if sub.is_signed() else "draft"
    if decided.decision == Decision.REJECTED:
        return "rejected"
    today = today or gaming_day(sub.facility)
    assert decided.effective_on is not None
    if decided.effective_on > today:
        return "approved"
    if current == "?":
        current = in_force(sub.facility, today)
    return "in force" if current is not None and current.pk == sub.pk else "superseded"


def in_force(facility: Facility, day: date | None = None) -> RulesSubmission | None:
    """The approved version whose effective date is the latest on or before ``day`` (§ 521.8(b))."""
    day = day or gaming_day(facility)
    return (RulesSubmission.objects.filter(facility=facility, decision__decision=Decision.APPROVED,
                                           decision__effective_on__lte=day)
            .order_by("-decision__effective_on", "-decision__decided_on", "-number").first())


def rules_for(facility: Facility, code: str, day: date | None = None) -> dict[str, str] | None:
    current = in_force(facility, day)
    if current is None:
        return None
    return dict(current.rules.get(code, {}))


def tables_of(facility: Facility) -> QuerySet[GamingTable]:
    return GamingTable.objects.filter(facility=facility).select_related("game").order_by("pit", "number")


def table_setting(table: GamingTable) -> dict[str, str]:
    row = TableSetting.objects.filter(table=table).order_by("-since", "-pk").first()
    return dict(row.options) if row is not None else {}


def current_limits(table: GamingTable) -> WagerLimitChange | None:
    return (WagerLimitChange.objects.filter(table=table, state=WagerLimitChange.State.APPLIED)
            .order_by("-applied_at", "-pk").first())


def pending_change(table: GamingTable) -> WagerLimitChange | None:
    return WagerLimitChange.objects.filter(table=table, state=WagerLimitChange.State.SCHEDULED).first()


def change(facility: Facility, pk: Any) -> WagerLimitChange | None:
    if row_id(pk) is None:
        return None
    return (WagerLimitChange.objects.filter(table__facility=facility, pk=row_id(pk))
            .select_related("table__game", "requested_by", "announced_by").first())


def changes_of(facility: Facility) -> QuerySet[WagerLimitChange]:
    return (WagerLimitChange.objects.filter(table__facility=facility)
            .select_related("table__game", "requested_by", "announced_by").order_by("-requested_at", "-pk"))


@dataclass
class TableRules:
    """A table's rules as the approved submission in force and the table's own setting make them."""

    table: GamingTable
    submission: RulesSubmission | None
    approved: dict[str, str] | None  # the game's choices in the submission in force; None without one
    setting: dict[str, str]
    limits: WagerLimitChange | None
    conflicts: list[catalogue.Conflict] = field(default_factory=list)

    @property
    def refusals(self) -> list[str]:
        """Every conflict in words (each citing its clause)."""
        return [c.words for c in self.conflicts]

    @property
    def six_dice(self) -> bool:
        return self.table.game.code == "high-roll-dice" and self.setting.get("six_dice") == catalogue.YES \
            and not any(c.kind == "settings" for c in self.conflicts)

    @property
    def requirement_lines(self) -> list[str]:
        """The game's additional wagering requirements in the version in force (§ 521.7(d))."""
        return requirements.requirement_lines(self.approved)

    def runs(self, name: str) -> bool:
        """A permission the table runs: approved and set at the table."""
        return self.approved is not None and self.approved.get(name) == catalogue.YES \
            and self.setting.get(name) == catalogue.YES

    def runs_words(self) -> list[str]:
        """The permissions the table runs, in words ("Offer the six-dice variation")."""
        rules = catalogue.game_rules(self.table.game.code)
        return [o.label for o in (rules.options if rules else ()) if o.permission and self.runs(o.name)]

    def values(self) -> dict[str, str]:
        """The game's rules at this table: the submission's choices, with each permission as the table runs it."""
        values = dict(self.approved or {})
        rules = catalogue.game_rules(self.table.game.code)
        for option in rules.options if rules else ():
            if option.permission:
                values[option.name] = catalogue.YES if self.runs(option.name) else catalogue.NO
        return values


def table_rules(table: GamingTable, day: date | None = None) -> TableRules:
    return tables_rules(table.facility, day, tables=[table])[0]


def table_plays_six_dice(table: GamingTable) -> bool:
    """The answer to ``compliance.table_variation.plays_six_dice`` (registered in this app's ``apps.py``)."""
    return table_rules(table).six_dice


def asia_poker_limit_refusals(facility: Facility, values: dict[str, str],
                              minimums: dict[int, Decimal] | None = None) -> list[str]:
    """§ 575.12(c): a payout limit below the floor computed from an Asia Poker table's minimum wager — the minimum
    in force or scheduled, whichever is higher. ``minimums`` overrides tables' minimums (a change being asked for)."""
    limit = values.get("payout_limit") or ""
    if not limit:
        return []
    found = []
    highest: dict[int, Decimal] = {}
    applied_seen: set[int] = set()
    for change_row in WagerLimitChange.objects.filter(table__facility=facility, table__game__code="asia-poker",
                                                      state__in=[WagerLimitChange.State.APPLIED,
                                                                 WagerLimitChange.State.SCHEDULED]
                                                      ).order_by("table_id", "-applied_at", "-pk"):
        if change_row.state == WagerLimitChange.State.APPLIED:
            if change_row.table_id in applied_seen:
                continue  # an older minimum, no longer in force
            applied_seen.add(change_row.table_id)
        highest[change_row.table_id] = max(highest.get(change_row.table_id, change_row.minimum), change_row.minimum)
    for table in tables_of(facility).filter(game__code="asia-poker"):
        minimum = (minimums or {}).get(table.pk, highest.get(table.pk))
        if minimum is None:
            continue
        floor = catalogue.asia_poker_payout_floor(values, minimum)
        if Decimal(limit) < floor:
            found.append(f"The Asia Poker payout limit ${catalogue.money_text(Decimal(limit))} is below "
                         f"${catalogue.money_text(floor)}, the most one player could win in a round at table "
                         f"{table.number}'s ${catalogue.money_text(minimum)} minimum (§ 575.12(c)).")
    return found


def versions_ahead(facility: Facility) -> list[RulesSubmission]:
    """The versions whose rules are or will be the tables': in force, approved to take effect later, and filed
    and awaiting the Board."""
    today = gaming_day(facility)
    current = in_force(facility, today)
    later = list(RulesSubmission.objects.filter(facility=facility, decision__decision=Decision.APPROVED,
                                                decision__effective_on__gt=today))
    waiting = [s for s in RulesSubmission.objects.filter(facility=facility, decision__isnull=True)
               .prefetch_related("signatures") if s.is_signed()]
    return ([current] if current is not None else []) + later + waiting


def asia_poker_minimum_refusals(table: GamingTable, minimum: Decimal) -> list[str]:
    """A new minimum at an Asia Poker table that would put the most one player could win above the payout limit
    of a version in force, approved for later, or awaiting the Board (§ 575.12(c))."""
    found = []
    for version in versions_ahead(table.facility):
        found += [f"Version {version.number}: {words}" for words in asia_poker_limit_refusals(
            table.facility, version.rules.get("asia-poker", {}), {table.pk: minimum})
            if f"table {table.number}'s" in words]
    return found


def submission_refusals(sub: RulesSubmission) -> list[str]:
    """What stops the version from being filed: each game's choices against the regulation, and the Asia
    Poker payout limit against the tables' minimums."""
    found = []
    for rules in catalogue.GAMES:
        try:
            cleaned = catalogue.clean_game(rules.code, sub.rules.get(rules.code, {}))
        except OptionError as error:
            found.append(str(error))
            continue
        if rules.code == "asia-poker":
            found += asia_poker_limit_refusals(sub.facility, cleaned)
        found += increment_refusals_of_tables(sub.facility, rules.code, cleaned)
    return found


def _limits_ahead(facility: Facility, code: str) -> dict[int, list[WagerLimitChange]]:
    """Per table of the game: its limits in force and the change scheduled, if any (one query)."""
    found: dict[int, list[WagerLimitChange]] = {}
    applied_seen: set[int] = set()
    for row in (WagerLimitChange.objects.filter(table__facility=facility, table__game__code=code,
                                                state__in=[WagerLimitChange.State.APPLIED,
                                                           WagerLimitChange.State.SCHEDULED])
                .select_related("table").order_by("table_id", "-applied_at", "-pk")):
        if row.state == WagerLimitChange.State.APPLIED:
            if row.table_id in applied_seen:
                continue  # older limits, no longer in force
            applied_seen.add(row.table_id)
        found.setdefault(row.table_id, []).append(row)
    return found


def increment_refusals_of_tables(facility: Facility, code: str, values: dict[str, Any]) -> list[str]:
    """§ 521.7(d): a game's increments against every table of the game's limits, in force or scheduled."""
    steps = requirements.increments(values)
    if not steps:
        return []
    found = []
    for rows in _limits_ahead(facility, code).values():
        for row in rows:
            words = "limits in force" if row.state == WagerLimitChange.State.APPLIED else "scheduled limits"
            found += [f"{w} Change the table's {words} first, or choose an increment that divides them."
                      for w in requirements.increment_refusals(steps, row.minimum, row.maximum,
                                                               where=f"table {row.table.number}")]
    return found


def increment_refusals_ahead(table: GamingTable, minimum: Decimal, maximum: Decimal) -> list[str]:
    """§ 521.7(d): new limits against the increments of the versions in force, approved for later and awaiting the
    Board (as the Asia Poker payout limit is checked)."""
    found = []
    for version in versions_ahead(table.facility):
        steps = requirements.increments(version.rules.get(table.game.code))
        found += [f"Version {version.number}: {words}" for words in requirements.increment_refusals(
            steps, minimum, maximum, where=f"table {table.number}")]
    return found


def diff(before: dict[str, Any] | None, after: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """(game, option, clause, before, after) for every choice that differs."""
    rows = []
    for rules in catalogue.GAMES:
        old = (before or {}).get(rules.code, {})
        new = after.get(rules.code, {})
        for option in rules.options:
            a, b = old.get(option.name, ""), new.get(option.name, "")
            if a != b:
                rows.append((rules.title, option.label, f"§ {option.clause}", a or "—", b or "—"))
        a, b = requirements.requirements_words(old), requirements.requirements_words(new)
        if a != b:
            rows.append((rules.title, "Additional wagering requirements", f"§ {requirements.CLAUSE}", a or "—",
                         b or "—"))
    return rows


def material_hash(code: str, values: dict[str, Any]) -> str:
    """SHA-256 of the rules a game's guide states: the game and its choices as filed. Any difference in a choice
    (and so in a payout or a rule the guide states) is material (§ 521.9(d)); a change of the system's wording is
    not, and an approved guide keeps the text that was approved."""
    return hashlib.sha256(json.dumps({"game": code, "rules": requirements.without_empty(values)},
                                     sort_keys=True).encode()).hexdigest()


def latest_approved(facility: Facility) -> RulesSubmission | None:
    """The approved version taking effect last, in force or still to come (an amendment and its guides are
    prepared before the day it takes effect)."""
    return (RulesSubmission.objects.filter(facility=facility, decision__decision=Decision.APPROVED)
            .order_by("-decision__effective_on", "-decision__decided_on", "-number").first())


def guides_of(facility: Facility) -> QuerySet[GamingGuide]:
    return (GamingGuide.objects.filter(facility=facility).select_related("game", "approval", "submission")
            .prefetch_related("signatures").order_by("game__name", "-version"))


def guide_distributable(guide: GamingGuide, current_hash: str | None) -> bool:
    """Approved by the Bureau (§ 521.9(c)) and still stating the rules in force (§ 521.9(d))."""
    return hasattr(guide, "approval") and current_hash is not None and guide.material_hash == current_hash


def games_with_rules() -> list[Game]:
    codes = [g.code for g in catalogue.GAMES]
    return sorted(Game.objects.filter(code__in=codes), key=lambda g: codes.index(g.code))


def at_local(moment: datetime, facility: Facility) -> datetime:
    import zoneinfo

    return timezone.localtime(moment, zoneinfo.ZoneInfo(facility.time_zone))



def tables_rules(facility: Facility, day: date | None = None, *, tables: Iterable[GamingTable] | None = None,
                 at: datetime | None = None) -> list[TableRules]:
    """The rules of ``tables`` (every table of the facility when None; give them with their game) at the instant
    ``at`` (now) under the version in force on ``day`` (the gaming day of ``at``): the version, each table's
    latest setting and the limits in force, in three queries whatever the number of tables."""
    at = at or timezone.now()
    listed = list(tables_of(facility)) if tables is None else list(tables)
    if not listed:
        return []
    current = in_force(facility, day or gaming_day(facility, at))
    scope = GamingTable.objects.filter(facility=facility) if tables is None else GamingTable.objects.filter(
        pk__in=[t.pk for t in listed])
    settings = {table_id: dict(options) for table_id, options in _newest_of_each_table(
        TableSetting.objects.filter(since__lte=at), scope, "-since", "-pk", fields=("table_id", "options"))}
    limits = {row.table_id: row for row in _newest_of_each_table(
        WagerLimitChange.objects.filter(state=WagerLimitChange.State.APPLIED, applied_at__lte=at), scope,
        "-applied_at", "-pk")}
    found = []
    for table in listed:
        approved = dict(current.rules.get(table.game.code, {})) if current is not None else None
        setting = settings.get(table.pk, {})
        conflicts = catalogue.table_conflicts(table.game.code, approved, setting)
        in_force_limits = limits.get(table.pk)
        if in_force_limits is not None and approved:
            conflicts += _limit_conflicts(table, approved, in_force_limits)
        found.append(TableRules(table, current, approved, setting, in_force_limits, conflicts))
    return found


def _newest_of_each_table(rows: QuerySet[Any], scope: QuerySet[GamingTable], *order: str,
                          fields: tuple[str, ...] = ()) -> list[Any]:
    """The first of ``rows`` in ``order`` for each table of ``scope``, in one query whatever the year holds (issue 27:
    a subquery per row of the year's changes grew with them). PostgreSQL: ``DISTINCT ON (table_id)``; elsewhere a
    subquery per table. ``fields``: tuples of those columns rather than model instances (the readiness verdicts read
    200 tables' settings every few seconds and need only their options)."""
    if connection.features.can_distinct_on_fields:
        found = rows.filter(table__in=scope).order_by("table_id", *order).distinct("table_id")
    else:
        newest = rows.filter(table_id=OuterRef("pk")).order_by(*order).values("pk")[:1]
        found = rows.filter(pk__in=scope.annotate(newest=Subquery(newest)).values("newest")).order_by()
    return list(found.values_list(*fields) if fields else found)


def _limit_conflicts(table: GamingTable, approved: dict[str, Any], limits: WagerLimitChange) -> list[catalogue.Conflict]:
    """The limits in force against the rules in force: Asia Poker's payout limit (§ 575.12(c)) and the game's
    increments (§ 521.7(d))."""
    found = []
    limit = approved.get("payout_limit") if table.game.code == "asia-poker" else None
    if limit:
        floor = catalogue.asia_poker_payout_floor(approved, limits.minimum)
        if Decimal(limit) < floor:
            found.append(catalogue.Conflict(
                f"The payout limit ${catalogue.money_text(Decimal(limit))} is below ${catalogue.money_text(floor)}, "
                f"the most one player could win in a round at the ${catalogue.money_text(limits.minimum)} minimum "
                f"(§ 575.12(c)).", "575.12(c)", "limits"))
    found += [catalogue.Conflict(words, requirements.CLAUSE, "limits") for words in requirements.increment_refusals(
        requirements.increments(approved), limits.minimum, limits.maximum, where=f"table {table.number}")]
    return found


def sign_approvals_of(facility: Facility) -> QuerySet[SignApproval]:
    return (SignApproval.objects.filter(facility=facility).select_related("recorded_by__profile")
            .order_by("kind", "-approved_on", "-pk"))


def signs_in_force(facility: Facility) -> dict[str, SignApproval]:
    """Per kind of sign, the Bureau's latest approval of its location, size and language (§ 521.8(d))."""
    found: dict[str, SignApproval] = {}
    for approval in sign_approvals_of(facility):
        found.setdefault(approval.kind, approval)
    return found


def current_guide_hash(facility: Facility, game: Game, current: Any = "?") -> str | None:
    """The material hash of the guide the rules in force would give (None without rules in force)."""
    if current == "?":
        current = in_force(facility)
    if current is None or catalogue.game_rules(game.code) is None:
        return None
    return material_hash(game.code, current.rules.get(game.code, {}))


def guide_rows(facility: Facility, current: Any = "?",
               ) -> list[tuple[Game, str | None, GamingGuide | None, GamingGuide | None]]:
    """Per game: the hash the rules in force give, the latest version, and the version that may be distributed.
    ``current`` is the version in force when the caller has already read it (``in_force(facility)``)."""
    guides = list(guides_of(facility))
    if current == "?":
        current = in_force(facility)
    rows = []
    for game in games_with_rules():
        digest = current_guide_hash(facility, game, current)
        versions = [g for g in guides if g.game_id == game.pk]
        latest = versions[0] if versions else None
        distributable = next((g for g in versions if guide_distributable(g, digest)), None)
        rows.append((game, digest, latest, distributable))
    return rows


def guides_needing_approval(facility: Facility, rows: list[Any] | None = None) -> list[tuple[Game, str]]:
    found = []
    for game, digest, latest, distributable in rows if rows is not None else guide_rows(facility):
        if digest is None or distributable is not None:
            continue
        if latest is None or latest.material_hash != digest:
            found.append((game, "generate a guide of the rules in force and send it to the Bureau (§ 521.9(c)–(d))"))
        elif not latest.is_signed():
            found.append((game, f"send version {latest.version} to the Bureau (§ 521.9(c))"))
        else:
            found.append((game, f"version {latest.version} awaits the Bureau's approval; not to be distributed "
                                f"until then (§ 521.9(d))"))
    return found


def public_facilities() -> QuerySet[Facility]:
    """The facilities whose gaming guides the public page lists (§ 521.9(f)), by name."""
    return Facility.objects.order_by("name")


def public_facility(code: str) -> Facility | None:
    return Facility.objects.filter(code=code).first()


def public_guides(facility: Facility) -> list[tuple[Game, GamingGuide | None]]:
    """What the public page shows: per game with rules in force, the approved guide stating them (or None)."""
    return [(game, distributable) for game, digest, _latest, distributable in guide_rows(facility)
            if digest is not None]
