"""A compliance officer's signed decision on a possible match (§ 525.21(q)(7)); the inspector cannot decide."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from compliance.exclusion import selectors, services
from compliance.exclusion.matching import Candidate
from compliance.exclusion.models import Decision, MatchDecision, MatchOutcome, ScreeningMatch
from compliance.models import Signature
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(facility, marketing_supervisor, lists_in_force, mailing):
    return services.screening_run(facility=facility, subject=mailing, user=marketing_supervisor, candidates=[
        Candidate("P-1", "Bob Smith", date(1970, 3, 4), ""),
        Candidate("P-2", "Robert Smiht", date(1970, 3, 4), ""),
        Candidate("P-3", "Catherine Walsh", date(1965, 7, 8), ""),
    ])


def _match(run, key: str) -> ScreeningMatch:
    return ScreeningMatch.objects.get(run=run, candidate_key=key)


def test_a_decision_is_signed_and_settles_the_patron(run, compliance_officer):
    decided = services.match_decide(match=_match(run, "P-2"), decision="excluded",
                                    reason="Same date of birth; surname mistyped by the player's club.",
                                    user=compliance_officer, password=PASSWORD)
    signature = Signature.objects.get(object_id=decided.pk, slot="decided")
    assert signature.signer == compliance_officer and decided.is_complete
    assert decided.decision == Decision.EXCLUDED
    services.match_decide(match=_match(run, "P-3"), decision="not the same person",
                          reason="Driver's licence shows another date of birth.", user=compliance_officer,
                          password=PASSWORD)
    assert selectors.excluded_keys(run) == {"P-1", "P-2"}
    assert selectors.pending_keys(run) == set()
    assert not selectors.pending_matches(run.facility).exists()


def test_the_inspector_cannot_decide(run, inspector):
    with pytest.raises(PermissionDenied):
        services.match_decide(match=_match(run, "P-2"), decision="excluded", reason="x", user=inspector,
                              password=PASSWORD)
    assert MatchDecision.objects.count() == 0


@pytest.mark.parametrize("who", ["marketing_supervisor", "finance_supervisor"])
def test_only_a_compliance_officer_decides(who, run, request):
    with pytest.raises(PermissionDenied):
        services.match_decide(match=_match(run, "P-2"), decision="excluded", reason="x",
                              user=request.getfixturevalue(who), password=PASSWORD)


def test_a_wrong_password_records_no_decision(run, compliance_officer):
    with pytest.raises(ValidationError, match="password"):
        services.match_decide(match=_match(run, "P-2"), decision="excluded", reason="Same person.",
                              user=compliance_officer, password="wrong")
    assert MatchDecision.objects.count() == 0
    assert selectors.pending_keys(run) == {"P-2", "P-3"}


def test_a_match_is_decided_once(run, compliance_officer):
    match = _match(run, "P-2")
    services.match_decide(match=match, decision="excluded", reason="Same person.", user=compliance_officer,
                          password=PASSWORD)
    with pytest.raises(ValidationError, match="already decided"):
        services.match_decide(match=match, decision="not the same person", reason="No.", user=compliance_officer,
                              password=PASSWORD)


def test_an_exact_match_needs_no_decision(run, compliance_officer):
    exact = _match(run, "P-1")
    assert exact.outcome == MatchOutcome.EXCLUDED
    with pytest.raises(ValidationError, match="excluded from the mailing without a decision"):
        services.match_decide(match=exact, decision="not the same person", reason="x", user=compliance_officer,
                              password=PASSWORD)


@pytest.mark.parametrize(("decision", "reason", "words"), [
    ("maybe", "x", "Decide whether"),
    ("excluded", "  ", "Give the reason"),
    ("excluded", "x" * 2001, "keep it under"),
])
def test_a_decision_needs_a_choice_and_a_reason(decision, reason, words, run, compliance_officer):
    with pytest.raises(ValidationError, match=words):
        services.match_decide(match=_match(run, "P-2"), decision=decision, reason=reason, user=compliance_officer,
                              password=PASSWORD)
