"""The demo of `make run`: the Rules Submission seeded on the demo facility, idempotent."""

from __future__ import annotations

import pytest

from compliance.demo import demo_seed
from compliance.submissions import selectors
from compliance.submissions.demo import submissions_demo_seed
from compliance.submissions.models import RulesSubmission, WagerLimitChange
from coupons.demo import coupons_demo_seed

pytestmark = pytest.mark.django_db


def test_the_demo_has_a_version_in_force_a_public_guide_and_limits_and_seeds_once():
    facility, _logins = demo_seed()
    coupons_demo_seed(facility=facility)
    first = submissions_demo_seed(facility=facility)
    assert first is not None and selectors.in_force(facility) == first
    assert [g.name for g, guide in selectors.public_guides(facility) if guide is not None] == ["Asia Poker"]
    assert WagerLimitChange.objects.filter(table__facility=facility, state="scheduled").count() == 1
    assert RulesSubmission.objects.filter(facility=facility).count() == 2  # and the amendment drafted
    assert submissions_demo_seed(facility=facility) is None
    assert RulesSubmission.objects.filter(facility=facility).count() == 2
