"""Screening a mailing (§ 525.21(q)(7)) against lists no older than 2 business days (§ 503a.3(d))."""

from __future__ import annotations

from datetime import date

import pytest
import time_machine
from django.core.exceptions import PermissionDenied, ValidationError

from compliance.exclusion import selectors, services
from compliance.exclusion.matching import Candidate
from compliance.exclusion.models import ListKind, MatchOutcome, ScreeningMatch, ScreeningRun
from tests.exclusion.conftest import INVOLUNTARY, TODAY

pytestmark = pytest.mark.django_db

MAILING = [
    Candidate("P-1", "Bob Smith", date(1970, 3, 4), "12 Main St, Harrisburg, PA 17101"),   # exact (nickname)
    Candidate("P-2", "Robert Smiht", date(1970, 3, 4), ""),                                 # near (typo)
    Candidate("P-3", "Mary Jones", date(1980, 5, 5), "1 Elm St, Erie, PA 16501"),          # clear
    Candidate("P-4", "Liz Moretti", date(1975, 5, 6), ""),                                  # exact, ch. 511a alias
    Candidate("P-5", "Robert Smith", date(1990, 9, 9), "9 Oak St, York, PA 17401"),        # same name, other person
]


def _run(facility, user, mailing, candidates=MAILING) -> ScreeningRun:
    return services.screening_run(facility=facility, subject=mailing, candidates=candidates, user=user)


def test_a_run_records_the_lists_used_the_counts_and_each_match(facility, marketing_supervisor, lists_in_force,
                                                                 mailing):
    run = _run(facility, marketing_supervisor, mailing)
    assert (run.candidate_count, run.clear_count, run.excluded_count, run.review_count) == (5, 2, 2, 1)
    assert run.self_exclusion_list == lists_in_force[ListKind.SELF_EXCLUSION]
    assert run.involuntary_list == lists_in_force[ListKind.INVOLUNTARY]
    assert run.subject == mailing and run.created_by == marketing_supervisor
    matches = {m.candidate_key: m for m in ScreeningMatch.objects.filter(run=run)}
    assert set(matches) == {"P-1", "P-2", "P-4"}
    assert matches["P-1"].outcome == MatchOutcome.EXCLUDED and matches["P-1"].entry.board_id == "SE-1"
    assert matches["P-4"].entry.board_id == "EX-1"
    assert matches["P-2"].outcome == MatchOutcome.REVIEW and matches["P-2"].score >= 85
    assert "Date of birth: the same, 1970-03-04." in matches["P-2"].reason_lines
    assert selectors.excluded_keys(run) == {"P-1", "P-4"}
    assert selectors.pending_keys(run) == {"P-2"}


def test_no_mailing_is_screened_before_both_lists_are_imported(facility, marketing_supervisor, import_list, mailing):
    import_list()  # the self-exclusion list only
    with pytest.raises(ValidationError) as refused:
        _run(facility, marketing_supervisor, mailing)
    assert refused.value.messages == [
        "No Exclusion list of persons required to be excluded (ch. 511a) has been imported for this facility; a "
        "compliance officer imports the Board's list before any mailing is screened (§ 525.21(q)(7))."
    ]
    assert ScreeningRun.objects.count() == 0


def test_a_list_older_than_two_business_days_blocks_screening_over_a_weekend(facility, marketing_supervisor,
                                                                             import_list, mailing):
    friday = date(2026, 10, 30)
    import_list(board_list_date=friday)
    import_list(ListKind.INVOLUNTARY, INVOLUNTARY, board_list_date=friday)
    with time_machine.travel("2026-11-03 14:00:00+00:00", tick=False):  # Tuesday: 2 business days, current
        assert _run(facility, marketing_supervisor, mailing).candidate_count == 5
    with time_machine.travel("2026-11-04 14:00:00+00:00", tick=False), pytest.raises(ValidationError) as refused:
        _run(facility, marketing_supervisor, mailing)  # Wednesday: 3 business days
    assert len(refused.value.messages) == 2
    assert refused.value.messages[0] == (
        "The facility's copy of the Self-exclusion list (ch. 503a) is of Fri 30 Oct 2026, 3 business days old; "
        "the copy must be refreshed at least every 2 business days (§ 503a.3(d)). Import the Board's current list.")
    assert ScreeningRun.objects.count() == 1


def test_require_lists_current_counts_in_the_facilitys_own_calendar_days(facility, import_list):
    friday = date(2026, 10, 30)
    import_list(board_list_date=friday)
    import_list(ListKind.INVOLUNTARY, INVOLUNTARY, board_list_date=friday)
    assert set(selectors.require_lists_current(facility, date(2026, 11, 1))) == set(ListKind)  # Sunday
    with pytest.raises(ValidationError):
        selectors.require_lists_current(facility, date(2026, 11, 4))


def test_a_run_is_no_longer_current_once_a_newer_list_is_imported(facility, marketing_supervisor, lists_in_force,
                                                                   import_list, mailing):
    run = _run(facility, marketing_supervisor, mailing)
    selectors.require_run_current(run, TODAY)
    import_list(board_list_date=TODAY, rows=[("SE-1", "Smith", "Robert", "", "", "1970-03-04", "", "", "", "")])
    with pytest.raises(ValidationError, match="screen the mailing again"):
        selectors.require_run_current(run, TODAY)


@pytest.mark.parametrize(("candidates", "words"), [
    ([Candidate("P-1", "Ann Lee", None, ""), Candidate("P-1", "Bo Lee", None, "")], "appears twice"),
    ([Candidate("", "Ann Lee", None, "")], "has no key"),
    ([Candidate("P-1", " ", None, "")], "has no name"),
    ([Candidate("P-1", "A" * 301, None, "")], "too long"),
])
def test_a_mailing_that_cannot_be_screened_is_refused_in_words(candidates, words, facility, marketing_supervisor,
                                                               lists_in_force, mailing):
    with pytest.raises(ValidationError, match=words):
        _run(facility, marketing_supervisor, mailing, candidates)


@pytest.mark.parametrize("who", ["inspector", "dealer", "finance_supervisor"])
def test_screening_needs_marketing_or_compliance(who, facility, lists_in_force, mailing, request):
    with pytest.raises(PermissionDenied):
        _run(facility, request.getfixturevalue(who), mailing)


def test_a_large_mailing_is_screened_by_forked_workers_with_the_same_outcome(facility, marketing_supervisor,
                                                                              lists_in_force, mailing, monkeypatch):
    from compliance.exclusion import matching

    monkeypatch.setattr(matching, "PARALLEL_FROM", 2)
    forked = selectors.screening_index(lists_in_force.values()).screen_all(MAILING, workers=2)
    alone = selectors.screening_index(lists_in_force.values()).screen_all(MAILING)
    assert [(s.candidate.key, s.outcome, s.entry_id, s.reasons) for s in forked] == [
        (s.candidate.key, s.outcome, s.entry_id, s.reasons) for s in alone]
