"""A compliance officer's decision on a possible match (§ 525.21(q)(7)): the same person, or not; signed."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from compliance.actors import acts_as_user
from compliance.exclusion import selectors
from compliance.exclusion.models import Decision, MatchDecision, MatchOutcome, ScreeningMatch
from compliance.people import person_name
from compliance.roles import Capability, require_capability
from compliance.services import record_sign

__all__ = ["MAX_REASON", "match_decide"]

MAX_REASON = 2000
_SAID = {"excluded": Decision.EXCLUDED, "not_same_person": Decision.NOT_SAME_PERSON,
         "not the same person": Decision.NOT_SAME_PERSON}


def _decision(decision: str) -> Decision:
    found = _SAID.get(str(decision).strip().lower())
    if found is None:
        raise ValidationError("Decide whether the patron is the listed person: \"excluded\" or \"not the same "
                              "person\".")
    return found


def _require_open(match: ScreeningMatch) -> None:
    if match.outcome != MatchOutcome.REVIEW:
        raise ValidationError("This patron matched a list entry exactly and is excluded from the mailing without a "
                              "decision (§ 525.21(q)(7)).")
    earlier = selectors.first_decision(match)
    if earlier is not None:
        who = person_name(earlier.created_by) or "someone"
        raise ValidationError(f"This match was already decided by {who} on {timezone.localtime(earlier.created_at):%-d %b %Y %H:%M}. "
                              f"A signed decision is never changed: correct it instead.")


@transaction.atomic
@acts_as_user
def match_decide(*, match: ScreeningMatch, decision: str, reason: str, user: Any, password: str) -> MatchDecision:
    """Record and sign a compliance officer's decision on a match held for review: ``"excluded"`` (the
    patron is the listed person and is left out of the mailing) or ``"not the same person"``."""
    require_capability(user, Capability.DECIDE_SCREENING_MATCHES)
    chosen = _decision(decision)
    reason = reason.strip()
    if not reason:
        raise ValidationError("Give the reason for the decision (what showed the patron is, or is not, the listed "
                              "person).")
    if len(reason) > MAX_REASON:
        raise ValidationError(f"The reason is {len(reason):,} characters; keep it under {MAX_REASON:,}.")
    _require_open(match)
    record = MatchDecision(facility=match.run.facility, match=match, decision=chosen, reason=reason,
                           created_by=user)
    try:
        with transaction.atomic():
            record.save(force_insert=True)
    except IntegrityError:
        raise ValidationError("Another compliance officer decided this match a moment ago; reload the queue.") from None
    record_sign(record=record, slot="decided", user=user, password=password)
    return record
