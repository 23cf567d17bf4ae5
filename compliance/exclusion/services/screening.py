"""Screening a mailing against the lists in force (§ 525.21(q)(7)): the run, its counts and its matches.

The mailing campaign (another app) calls :func:`screening_run` with its patrons as
:class:`~compliance.exclusion.matching.Candidate` values and its own record as the subject; its export then
asks :func:`compliance.exclusion.selectors.excluded_keys` and ``pending_keys`` (docs/exclusion.md).
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Sequence
from datetime import date
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models, transaction

from compliance.actors import acts_as_user
from compliance.bounds import MAX_COUNT, require_within_bounds
from compliance.exclusion import selectors
from compliance.exclusion.matching import Candidate, Outcome, Screening, collector_paused
from compliance.exclusion.models import ListKind, ScreeningMatch, ScreeningRun
from compliance.models import Facility
from compliance.roles import Capability, require_capability

__all__ = ["screening_run"]

SCREENING_WORKERS = min(4, os.cpu_count() or 1)  # processes a large mailing is screened in
_LONGEST = {"key": 120, "full_name": 300, "address": 400}
_BATCH = 2000


def _require_subject(facility: Facility, subject: Any) -> None:
    if not isinstance(subject, models.Model) or subject.pk is None:
        raise ValidationError("A screening run is recorded against a saved mailing record; save the mailing first.")
    owner = getattr(subject, "facility_id", None)
    if owner is not None and owner != facility.pk:
        raise ValidationError(f"{subject} belongs to another facility; screen it there.")


def _candidate_problem(candidate: Any, seen: set[str]) -> str:
    if not isinstance(candidate, Candidate):
        return f"{candidate!r} is not a patron to screen (a Candidate)"
    if not candidate.key.strip():
        return f"the patron {candidate.full_name!r} has no key"
    if candidate.key in seen:
        return f"the patron key {candidate.key!r} appears twice"
    if not candidate.full_name.strip():
        return f"the patron {candidate.key!r} has no name to screen"
    if candidate.date_of_birth is not None and not isinstance(candidate.date_of_birth, date):
        return f"the date of birth of patron {candidate.key!r} is not a date"
    too_long = [field for field, longest in _LONGEST.items() if len(getattr(candidate, field)) > longest]
    if too_long:
        return f"the {' and '.join(too_long)} of patron {candidate.key!r} is too long to record"
    return ""


def _require_candidates(candidates: Sequence[Candidate]) -> None:
    if len(candidates) > MAX_COUNT:
        raise ValidationError(f"A mailing of {len(candidates):,} patrons is more than the {MAX_COUNT:,} one screening "
                              f"run can hold; screen it in parts.")
    seen: set[str] = set()
    for candidate in candidates:
        problem = _candidate_problem(candidate, seen)
        if problem:
            raise ValidationError(f"The mailing cannot be screened: {problem[:1].upper()}{problem[1:]}.")
        seen.add(candidate.key)


def _digest(candidates: Sequence[Candidate]) -> str:
    """SHA-256 of the patrons as screened (sorted by key), so a run shows which mailing it vouches for."""
    digest = hashlib.sha256()
    for c in sorted(candidates, key=lambda c: c.key):
        digest.update("\t".join((c.key, c.full_name, str(c.date_of_birth or ""), c.address, ";".join(c.aliases)))
                      .encode() + b"\n")
    return digest.hexdigest()


def _match(run: ScreeningRun, screening: Screening) -> ScreeningMatch:
    candidate = screening.candidate
    assert screening.entry_id is not None  # every outcome but CLEAR names its entry
    return ScreeningMatch(
        run=run, candidate_key=candidate.key, candidate_name=candidate.full_name,
        candidate_aliases="; ".join(candidate.aliases), candidate_date_of_birth=candidate.date_of_birth,
        candidate_address=candidate.address, entry_id=screening.entry_id, outcome=str(screening.outcome),
        score=screening.score, reasons="\n".join(screening.reasons),
    )


@transaction.atomic
@acts_as_user
def screening_run(*, facility: Facility, subject: Any, candidates: Sequence[Candidate], user: Any) -> ScreeningRun:
    """Screen every patron of a mailing against the facility's lists in force, refusing while a list is
    missing or older than 2 business days (§ 503a.3(d)); record the run and each patron excluded or held
    for review (§ 525.21(q)(7))."""
    require_capability(user, Capability.SCREEN_MAILINGS)
    _require_subject(facility, subject)
    candidates = list(candidates)
    _require_candidates(candidates)
    lists = selectors.require_lists_current(facility, selectors.facility_today(facility))
    index = selectors.screening_index(lists.values())
    with collector_paused():
        screenings = index.screen_all(candidates, workers=SCREENING_WORKERS)
    counts = Counter(s.outcome for s in screenings)
    run = ScreeningRun(
        facility=facility, content_type=ContentType.objects.get_for_model(subject), object_id=subject.pk,
        self_exclusion_list=lists[ListKind.SELF_EXCLUSION], involuntary_list=lists[ListKind.INVOLUNTARY],
        candidate_count=len(candidates), clear_count=counts[Outcome.CLEAR], excluded_count=counts[Outcome.EXCLUDED],
        review_count=counts[Outcome.REVIEW], candidates_sha256=_digest(candidates), created_by=user,
    )
    require_within_bounds(run)
    run.save(force_insert=True)
    matches = [_match(run, s) for s in screenings if s.outcome != Outcome.CLEAR]
    for start in range(0, len(matches), _BATCH):
        ScreeningMatch.objects.bulk_create(matches[start:start + _BATCH])
    return run
