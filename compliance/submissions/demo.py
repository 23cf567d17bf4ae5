"""Demo data for the Rules Submission: version 1 approved by the Board and in force, its Asia Poker guide approved
by the Bureau and on the public page, the Bureau's approval of the signs (§ 521.8(d)), an Asia Poker table offering
the Bonus Wager, each table's limits, a limit change scheduled at an open table, and an amendment (Sic Bo odds, and
Sic Bo wagers in $5 increments, § 521.7(d)) waiting as a draft."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from compliance.actors import acting_as
from compliance.demo import demo_person, signing_passwords
from compliance.gaming_day import gaming_day
from compliance.models import Facility, Game, GamingTable
from compliance.roles import Role
from compliance.submissions import limits, services, signs
from compliance.submissions.models import RulesSubmission, SignKind

__all__ = ["submissions_demo_seed"]

ASIA_POKER = {"bonus_wager": "yes", "paytable": "B", "adjacent_areas": "no",
              "dealer_hand_setting": "The house way: the highest two-card medium hand that leaves the four-card high "
                                     "hand above it; with a pair, the pair goes to the medium hand unless that "
                                     "breaks a straight or flush in the high hand.",
              "ace_low_straight_flush": "no", "ace_low_straight": "no", "payout_limit": "250000"}
SIGNS = {SignKind.RULES: "On the sign stand at the dealer's left, facing the players",
         SignKind.LIMITS: "On the sign stand at the dealer's right, facing the players",
         SignKind.LIMIT_CHANGE: "Clipped to the limits sign, above it, until the change takes effect"}
LIMITS = {"three-dice-football": ("10", "500"), "high-roll-dice": ("5", "100"), "props-and-hops": ("5", "500"),
          "sic-bo": ("10", "1000"), "asia-poker": ("25", "1000"), "craps": ("10", "5000"), "roulette": ("5", "1000")}


@transaction.atomic
def submissions_demo_seed(*, facility: Facility) -> RulesSubmission | None:
    """Idempotent: nothing when the facility already has a Rules Submission."""
    if RulesSubmission.objects.filter(facility=facility).exists():
        return None
    officer, manager = demo_person(facility, Role.COMPLIANCE_OFFICER), demo_person(facility, Role.SHIFT_MANAGER)
    floorperson = demo_person(facility, Role.FLOORPERSON)
    today = gaming_day(facility)
    tables = GamingTable.objects.filter(facility=facility).select_related("game")
    with acting_as(floorperson):
        for table in tables:
            low, high = LIMITS.get(table.game.code, ("10", "1000"))
            limits.limit_change_request(table=table, minimum=low, maximum=high, patrons_playing=False,
                                        user=floorperson)
    with signing_passwords([officer]) as password, acting_as(officer):
        first = services.submission_draft(facility=facility, title="Rules Submission",
                                          summary="The options selected for each game offered.", user=officer)
        services.submission_game_set(submission=first, code="asia-poker", values=ASIA_POKER, user=officer)
        services.submission_submit(submission=first, user=officer, password=password)
        _decide(first, officer, today)
        guide = services.guide_generate(facility=facility, game=Game.objects.get(code="asia-poker"), user=officer)
        services.guide_submit(guide=guide, user=officer, password=password)
        services.guide_approval_record(guide=guide, approved_on=today, reference="BGO-G-0142", user=officer)
        for kind, location in SIGNS.items():
            signs.sign_approval_record(facility=facility, kind=kind, location=location, size="letter",
                                       language="English", approved_on=today, reference=f"BGO-S-{kind}",
                                       user=officer)
        amendment = services.submission_draft(facility=facility, title="Amendment: Sic Bo odds",
                                              summary="Two of a Kind at 10 to 1; wagers in $5 increments.",
                                              user=officer)
        services.submission_game_set(submission=amendment, code="sic-bo", user=officer,
                                     values=dict(amendment.rules["sic-bo"], **{"two-of-a-kind": "10 to 1"}))
        services.submission_requirements_set(submission=amendment, code="sic-bo", user=officer, rows=[
            {"words": "Every wager is made in increments of $5.", "increment": "5"}])
    asia = tables.filter(game__code="asia-poker", is_open=False).order_by("number").first()
    if asia is not None:
        with acting_as(manager):
            services.table_setting_set(table=asia, options={"bonus_wager": "yes"}, user=manager)
    sic_bo = tables.filter(game__code="sic-bo").order_by("number").first()
    if sic_bo is not None:
        at = (timezone.now() + timedelta(minutes=45)).replace(second=0, microsecond=0)
        with acting_as(floorperson):
            change = limits.limit_change_request(table=sic_bo, minimum="25", maximum="2000", patrons_playing=True,
                                                 effective_at=at, user=floorperson)
            limits.limit_change_post(change=change, user=floorperson)
    return first


def _decide(submission: RulesSubmission, officer: Any, today: Any) -> None:
    """The Board's approval as of today (the filing was today), in force from today."""
    services.board_decision_record(submission=submission, decision="approved", decided_on=today, effective_on=today,
                                   reference="PGCB TG-2026-031", user=officer)
