"""Reads of exclusion-list screening, § 525.21(q)(7). Selectors never write and never import services.

``lists`` (the copies in force, their age under § 503a.3(d), the entries indexed for the engine) and
``screening`` (runs, matches, decisions, and the keys a mailing's export omits or waits for).
"""

from compliance.exclusion.selectors.lists import (
    ListStatus,
    already_imported,
    entries_page,
    facility_today,
    list_in,
    list_in_force,
    list_statuses,
    lists_of,
    require_lists_current,
    screening_index,
)
from compliance.exclusion.selectors.screening import (
    decisions_of,
    excluded_keys,
    first_decision,
    match_in,
    matches_page,
    pending_keys,
    pending_matches,
    require_run_current,
    run_in,
    runs_for,
    runs_of,
)

__all__ = [
    "ListStatus",
    "already_imported",
    "decisions_of",
    "entries_page",
    "excluded_keys",
    "facility_today",
    "first_decision",
    "list_in",
    "list_in_force",
    "list_statuses",
    "lists_of",
    "match_in",
    "matches_page",
    "pending_keys",
    "pending_matches",
    "require_lists_current",
    "require_run_current",
    "run_in",
    "runs_for",
    "runs_of",
    "screening_index",
]
