"""Writes of the Rules Submission (58 Pa. Code § 521.2, § 521.8(b)) and what the tables take from it.

A version is drafted (a copy of the approved one it amends, or the regulation's defaults), each game's choices
are set and checked against the regulation, it is filed with the Board by a compliance officer's signature (which
freezes it), and the Board's approval with its effective date, or its rejection, is recorded. A table's own
setting of the permissions the submission grants is recorded by a shift manager and refused when the approved
submission in force does not grant it (§ 521.8(b)).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from compliance.actors import acts_as_user
from compliance.bounds import EARLIEST_DAY, LATEST_DAY
from compliance.games.math.core import OptionError
from compliance.gaming_day import gaming_day
from compliance.locks import lock_facility
from compliance.models import Facility, Game, GamingTable
from compliance.roles import Capability
from compliance.service_checks import clean_text, require_at_facility
from compliance.services import record_sign
from compliance.submissions import catalogue, requirements, selectors
from compliance.submissions.guides import guide_body
from compliance.submissions.models import (
    BoardDecision,
    Decision,
    GamingGuide,
    GuideApproval,
    RulesSubmission,
    TableSetting,
)

__all__ = [
    "board_decision_record",
    "guide_approval_record",
    "guide_generate",
    "guide_submit",
    "submission_draft",
    "submission_game_set",
    "submission_requirements_set",
    "submission_submit",
    "table_setting_set",
]


_allowed = require_at_facility
_text = clean_text


def _day(day: date | None, what: str, *, not_after: date | None = None, not_before: date | None = None) -> date:
    if day is None:
        raise ValidationError(f"Give {what}.")
    if not EARLIEST_DAY <= day <= LATEST_DAY:
        raise ValidationError(f"Give {what} between {EARLIEST_DAY:%Y} and {LATEST_DAY:%Y}.")
    if not_after is not None and day > not_after:
        raise ValidationError(f"{what[0].upper()}{what[1:]} ({day:%-d %b %Y}) is still to come: record it once it "
                              f"has happened.")
    if not_before is not None and day < not_before:
        raise ValidationError(f"{what[0].upper()}{what[1:]} ({day:%-d %b %Y}) is before {not_before:%-d %b %Y}.")
    return day


def _draft(submission: RulesSubmission) -> RulesSubmission:
    locked = RulesSubmission.objects.select_for_update().get(pk=submission.pk)
    if locked.is_signed():
        raise ValidationError(f"Version {locked.number} was filed with the Board and cannot change; draft an "
                              f"amendment instead (§ 521.8(b)).")
    return locked


@transaction.atomic
@acts_as_user
def submission_draft(*, facility: Facility, title: str, summary: str = "", user: Any) -> RulesSubmission:
    """A new version: an amendment of the latest approved version (its choices copied), or the first one."""
    _allowed(user, facility, Capability.MANAGE_RULES_SUBMISSIONS)
    lock_facility(facility)  # versions of one facility are numbered in turn
    title = _text(title, 200, "title")
    amends = (RulesSubmission.objects.filter(facility=facility, decision__decision=Decision.APPROVED)
              .order_by("-decision__effective_on", "-number").first())
    rules = ({code: dict(values) for code, values in amends.rules.items()} if amends is not None
             else {g.code: g.defaults() for g in catalogue.GAMES})
    last = RulesSubmission.objects.filter(facility=facility).aggregate(n=Max("number"))["n"] or 0
    return RulesSubmission.objects.create(facility=facility, number=last + 1, amends=amends, title=title,
                                          summary=_text(summary, 5000, "summary", required=False), rules=rules)


@transaction.atomic
@acts_as_user
def submission_game_set(*, submission: RulesSubmission, code: str, values: dict[str, Any], user: Any
                        ) -> RulesSubmission:
    """One game's choices, checked against the regulation (each refusal names the option and its clause)."""
    _allowed(user, submission.facility, Capability.MANAGE_RULES_SUBMISSIONS)
    locked = _draft(submission)
    if catalogue.game_rules(code) is None:
        raise ValidationError("The Rules Submission has no choices to make for that game.")
    values = dict(values)
    if requirements.KEY not in values:  # the choices' page leaves the game's § 521.7(d) requirements as they are
        values[requirements.KEY] = requirements.requirements_of(locked.rules.get(code))
    try:
        cleaned = catalogue.clean_game(code, values)
    except OptionError as error:
        raise ValidationError(str(error)) from None
    if code == "asia-poker":
        refusals = selectors.asia_poker_limit_refusals(locked.facility, cleaned)
        if refusals:
            raise ValidationError(refusals)
    locked.rules = {**locked.rules, code: cleaned}
    locked.save()
    return locked


@transaction.atomic
@acts_as_user
def submission_requirements_set(*, submission: RulesSubmission, code: str, rows: list[dict[str, str]], user: Any
                                ) -> RulesSubmission:
    """One game's additional wagering requirements (§ 521.7(d)): each in words, an increment where the system can
    check it; an increment must divide the minimum and maximum of every table of the game."""
    _allowed(user, submission.facility, Capability.MANAGE_RULES_SUBMISSIONS)
    locked = _draft(submission)
    rules = catalogue.game_rules(code)
    if rules is None:
        raise ValidationError("The Rules Submission has no choices to make for that game.")
    try:
        cleaned = requirements.clean_requirements(rules.title, rows)
    except OptionError as error:
        raise ValidationError(str(error)) from None
    values = {k: v for k, v in locked.rules.get(code, rules.defaults()).items() if k != requirements.KEY}
    if cleaned:
        values[requirements.KEY] = cleaned
    refusals = selectors.increment_refusals_of_tables(locked.facility, code, values)
    if refusals:
        raise ValidationError(refusals)
    if values == locked.rules.get(code, rules.defaults()):
        raise ValidationError(f"{rules.title}'s additional wagering requirements are already these.")
    locked.rules = {**locked.rules, code: values}
    locked.save()
    return locked


@transaction.atomic
@acts_as_user
def submission_submit(*, submission: RulesSubmission, user: Any, password: str) -> RulesSubmission:
    """File the version with the Board: every game's choices checked again, then the compliance officer's
    signature, which freezes it."""
    _allowed(user, submission.facility, Capability.MANAGE_RULES_SUBMISSIONS)
    locked = _draft(submission)
    refusals = selectors.submission_refusals(locked)
    if refusals:
        raise ValidationError(refusals)
    latest = selectors.latest_approved(locked.facility)
    if latest is not None and latest != locked.amends:
        base = f"amends version {locked.amends.number}" if locked.amends else "was drafted as the first version"
        raise ValidationError(f"Version {locked.number} {base}, but version {latest.number} has been approved since: "
                              f"filed, it would undo that version's choices. Draft a new amendment of version "
                              f"{latest.number} (§ 521.8(b)).")
    if locked.amends is not None and not selectors.diff(locked.amends.rules, locked.rules) \
            and locked.summary == "":
        raise ValidationError(f"This amendment changes nothing in version {locked.amends.number}: change a game's "
                              f"choices, or say in the summary what it amends.")
    record_sign(record=locked, slot="submitted", user=user, password=password)
    return locked


@transaction.atomic
@acts_as_user
def board_decision_record(*, submission: RulesSubmission, decision: str, decided_on: date | None,
                          effective_on: date | None = None, reference: str = "", reason: str = "", user: Any
                          ) -> BoardDecision:
    """The Board's written approval (and the gaming day its rules take effect) or rejection."""
    today = _allowed(user, submission.facility, Capability.MANAGE_RULES_SUBMISSIONS)
    locked = RulesSubmission.objects.select_for_update().get(pk=submission.pk)
    if not locked.is_signed():
        raise ValidationError(f"Version {locked.number} is still a draft: file it with the Board first.")
    if BoardDecision.objects.filter(submission=locked).exists():
        raise ValidationError(f"The Board's decision on version {locked.number} is already recorded.")
    if decision not in Decision.values:
        raise ValidationError("Choose approved or rejected.")
    filed = min(s.signed_at for s in locked.signatures.all())
    decided_on = _day(decided_on, "the date of the Board's decision", not_after=today,
                      not_before=gaming_day(locked.facility, filed))
    reference = _text(reference, 200, "Board's reference", required=False)
    reason = _text(reason, 5000, "Board's reasons", required=False)
    if decision == Decision.APPROVED:
        effective_on = _day(effective_on, "the gaming day the approved rules take effect", not_before=decided_on)
    else:
        if effective_on is not None:
            raise ValidationError("A rejected version takes no effect: leave the effective day empty.")
        if not reason:
            raise ValidationError("Give the Board's reasons for the rejection, as its letter states them.")
    return BoardDecision.objects.create(facility=locked.facility, submission=locked, decision=decision,
                                        decided_on=decided_on, effective_on=effective_on, reference=reference,
                                        reason=reason, recorded_by=user)


@transaction.atomic
@acts_as_user
def table_setting_set(*, table: GamingTable, options: dict[str, str], user: Any) -> TableSetting:
    """Which of the submission's permissions the table runs (six dice, the Bonus Wager, adjacent areas):
    only what the approved submission in force grants, and only while the table is closed."""
    _allowed(user, table.facility, Capability.SET_TABLE_OPTIONS)
    table = GamingTable.objects.select_for_update(of=("self",)).select_related("game", "facility").get(pk=table.pk)
    rules = catalogue.game_rules(table.game.code)
    permissions = {o.name: o for o in rules.options if o.permission} if rules else {}
    if not permissions:
        raise ValidationError(f"{table.game.name} has no option a table sets.")
    unknown = sorted(set(options) - set(permissions))
    if unknown:
        raise ValidationError(f"{table.game.name} tables set only: "
                              f"{', '.join(o.label.lower() for o in permissions.values())}.")
    cleaned = {}
    for name, option in permissions.items():
        value = options.get(name, catalogue.NO)
        if value not in (catalogue.YES, catalogue.NO):
            raise ValidationError(f"{option.label}: yes or no.")
        cleaned[name] = value
    if cleaned == selectors.table_setting(table):
        raise ValidationError(f"Table {table.number} already runs these settings.")
    if table.is_open:
        raise ValidationError(f"Table {table.number} is open: close it before its rules change.")
    approved = selectors.rules_for(table.facility, table.game.code)
    refusals = catalogue.table_refusals(table.game.code, approved, cleaned)
    if refusals:
        raise ValidationError(refusals)
    return TableSetting.objects.create(table=table, options=cleaned, set_by=user)


# --- Gaming guides, § 521.9 -------------------------------------------------------------------------------------


@transaction.atomic
@acts_as_user
def guide_generate(*, facility: Facility, game: Game, user: Any) -> GamingGuide:
    """A new version of the game's guide from the latest approved version (in force, or an amendment still to take
    effect, so its guide can be approved before that day), when its rules differ from the last guide's."""
    _allowed(user, facility, Capability.MANAGE_RULES_SUBMISSIONS)
    lock_facility(facility)
    rules = catalogue.game_rules(game.code)
    current = selectors.latest_approved(facility)  # in force, or approved and still to take effect
    if rules is None:
        raise ValidationError(f"The catalogue has no guide for {game.name}.")
    if current is None:
        raise ValidationError("No Rules Submission is approved: the guide states the approved rules (§ 521.9(b)).")
    values = current.rules.get(game.code, {})
    body = guide_body(game.code, game.name, values)
    digest = selectors.material_hash(game.code, values)
    last = GamingGuide.objects.filter(facility=facility, game=game).order_by("-version").first()
    if last is not None and last.material_hash == digest:
        raise ValidationError(f"Version {last.version} of the {game.name} guide already states the latest approved "
                              f"rules.")
    return GamingGuide.objects.create(facility=facility, game=game, version=(last.version + 1 if last else 1),
                                      submission=current, body=body, material_hash=digest)


@transaction.atomic
@acts_as_user
def guide_submit(*, guide: GamingGuide, user: Any, password: str) -> GamingGuide:
    """The sample goes to the Bureau of Gaming Operations (§ 521.9(c)): the compliance officer's signature."""
    _allowed(user, guide.facility, Capability.MANAGE_RULES_SUBMISSIONS)
    locked = GamingGuide.objects.select_for_update().get(pk=guide.pk)
    if locked.is_signed():
        raise ValidationError(f"Version {locked.version} was already sent to the Bureau.")
    record_sign(record=locked, slot="submitted", user=user, password=password)
    return locked


@transaction.atomic
@acts_as_user
def guide_approval_record(*, guide: GamingGuide, approved_on: date | None, reference: str = "", user: Any
                          ) -> GuideApproval:
    """The Bureau of Gaming Operations approved the sample (§ 521.9(c)–(d)); until then it is not distributed."""
    today = _allowed(user, guide.facility, Capability.MANAGE_RULES_SUBMISSIONS)
    locked = GamingGuide.objects.select_for_update().get(pk=guide.pk)
    if not locked.is_signed():
        raise ValidationError(f"Version {locked.version} has not been sent to the Bureau: send the sample first "
                              f"(§ 521.9(c)).")
    if GuideApproval.objects.filter(guide=locked).exists():
        raise ValidationError(f"The Bureau's approval of version {locked.version} is already recorded.")
    sent = min(s.signed_at for s in locked.signatures.all())
    approved_on = _day(approved_on, "the date of the Bureau's approval", not_after=today,
                       not_before=gaming_day(locked.facility, sent))
    return GuideApproval.objects.create(facility=locked.facility, guide=locked, approved_on=approved_on,
                                        reference=_text(reference, 200, "Bureau's reference", required=False),
                                        recorded_by=user)
