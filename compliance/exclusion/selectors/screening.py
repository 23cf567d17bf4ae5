"""Reads of screening runs: their matches, the decisions, and what a mailing's export must leave out."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.paginator import Page, Paginator
from django.db.models import Exists, OuterRef, QuerySet

from compliance.exclusion.models import Decision, ListKind, MatchDecision, MatchOutcome, ScreeningMatch, ScreeningRun
from compliance.exclusion.selectors.lists import list_in_force, require_lists_current
from compliance.models import Facility, Signature

__all__ = [
    "decisions_of",
    "excluded_keys",
    "first_decision",
    "match_in",
    "matches_page",
    "pending_keys",
    "pending_matches",
    "require_run_current",
    "run_in",
    "runs_for",
    "runs_of",
]


def runs_of(facility: Facility) -> QuerySet[ScreeningRun]:
    return (ScreeningRun.objects.filter(facility=facility)
            .select_related("created_by__profile", "content_type", "self_exclusion_list", "involuntary_list"))


def run_in(facility: Facility, pk: int) -> ScreeningRun | None:
    return runs_of(facility).filter(pk=pk).first()


def runs_for(subject: Any) -> QuerySet[ScreeningRun]:
    """The screening runs of one mailing (its campaign record), newest first."""
    content_type = ContentType.objects.get_for_model(subject)
    return ScreeningRun.objects.filter(content_type=content_type, object_id=subject.pk).order_by("-created_at", "-pk")


def _signed() -> Exists:
    content_type = ContentType.objects.get_for_model(MatchDecision)
    return Exists(Signature.objects.filter(content_type=content_type, object_id=OuterRef("pk")))


def _signed_decisions() -> QuerySet[MatchDecision]:
    return MatchDecision.objects.annotate(signed=_signed()).filter(signed=True)


def _undecided(matches: QuerySet[ScreeningMatch]) -> QuerySet[ScreeningMatch]:
    decided = _signed_decisions().filter(match=OuterRef("pk"))
    return matches.filter(outcome=MatchOutcome.REVIEW).annotate(decided=Exists(decided)).filter(decided=False)


def pending_matches(facility: Facility) -> QuerySet[ScreeningMatch]:
    """Matches held for review that no compliance officer has decided yet, oldest first: the review queue."""
    return (_undecided(ScreeningMatch.objects.filter(run__facility=facility))
            .select_related("run", "entry__exclusion_list").order_by("run__created_at", "pk"))


def match_in(facility: Facility, pk: int) -> ScreeningMatch | None:
    return (ScreeningMatch.objects.filter(run__facility=facility, pk=pk)
            .select_related("run__created_by__profile", "entry__exclusion_list").first())


def matches_page(run: ScreeningRun, page: str | int | None, per_page: int = 100) -> Page:
    matches = ScreeningMatch.objects.filter(run=run).select_related("entry").order_by("-outcome", "pk")
    return Paginator(matches, per_page).get_page(page)


def decisions_of(match: ScreeningMatch) -> QuerySet[MatchDecision]:
    return (MatchDecision.objects.filter(match=match).select_related("created_by__profile")
            .prefetch_related("signatures").order_by("created_at", "pk"))


def first_decision(match: ScreeningMatch) -> MatchDecision | None:
    """The decision first recorded on the match (signed or not); a change is a correction of it."""
    return MatchDecision.objects.filter(match=match, corrects__isnull=True).select_related("created_by__profile").first()


def _decided(run: ScreeningRun) -> dict[int, str]:
    """match id → the decision in force, for the run's decided matches (one query)."""
    latest: dict[int, str] = {}
    rows = _signed_decisions().filter(match__run=run).order_by("created_at", "pk").values_list("match_id", "decision")
    for match_id, decision in rows:
        latest[match_id] = decision
    return latest


def excluded_keys(run: ScreeningRun) -> set[str]:
    """The patrons the mailing must leave out: exact matches, and matches a compliance officer decided are
    the listed person. An excluded person is never exported (§ 525.21(q)(7))."""
    decided = _decided(run)
    keys = set()
    for pk, key, outcome in ScreeningMatch.objects.filter(run=run).values_list("pk", "candidate_key", "outcome"):
        if outcome == MatchOutcome.EXCLUDED or decided.get(pk) == Decision.EXCLUDED:
            keys.add(key)
    return keys


def pending_keys(run: ScreeningRun) -> set[str]:
    """The patrons whose possible match no compliance officer has decided: the export waits for them."""
    return set(_undecided(ScreeningMatch.objects.filter(run=run)).values_list("candidate_key", flat=True))


def require_run_current(run: ScreeningRun, on: date) -> None:
    """Refuse, in words, an export on ``on`` from a run screened against lists no longer in force or no
    longer current: a list imported since, or a copy grown older than 2 business days (§ 503a.3(d))."""
    facility = run.facility
    require_lists_current(facility, on)
    used = {run.self_exclusion_list_id, run.involuntary_list_id}
    in_force = {getattr(list_in_force(facility, kind), "pk", None) for kind in ListKind}
    if used != in_force:
        raise ValidationError(
            "A newer copy of the Board's lists has been imported since this mailing was screened; screen the "
            "mailing again before exporting it (§ 525.21(q)(7))."
        )
