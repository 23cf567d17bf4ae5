"""Exclusion-list screening of mailings, § 525.21(q)(7) (chapters 503a and 511a; docs/exclusion.md).

* :class:`ExclusionList` — one imported copy of a Board list (self-exclusion, ch. 503a; persons required to
  be excluded, ch. 511a), signed by the importing compliance officer; :class:`ExclusionEntry` its people.
* :class:`ScreeningRun` — one screening of a mailing; :class:`ScreeningMatch` each patron excluded or held
  for review; :class:`MatchDecision` a compliance officer's signed decision on a match held for review.
"""

from compliance.exclusion.models.lists import KEYS_VERSION, ExclusionEntry, ExclusionList, ListKind
from compliance.exclusion.models.screening import (
    SCORE,
    Decision,
    MatchDecision,
    MatchOutcome,
    ScreeningMatch,
    ScreeningRun,
)

__all__ = [
    "KEYS_VERSION",
    "SCORE",
    "Decision",
    "ExclusionEntry",
    "ExclusionList",
    "ListKind",
    "MatchDecision",
    "MatchOutcome",
    "ScreeningMatch",
    "ScreeningRun",
]
