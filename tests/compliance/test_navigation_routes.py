"""Where a URL leads is kept (``compliance.navigation._route``); who may open it is asked every time.

Every page's menu asked Django to resolve each of its 40-odd screens (2.4 ms of a compliance officer's page). The
route is a fact of the URLconf; the answer is a fact of the person: keeping the first must never keep the second.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.http import HttpResponse
from django.test import override_settings
from django.urls import path

from compliance import navigation
from compliance.navigation import may_request, navigation_for
from compliance.roles import Role
from compliance.views import CapabilityRequiredMixin
from tests.factories import make_person

pytestmark = pytest.mark.django_db


def test_a_second_menu_resolves_nothing_and_each_person_still_gets_their_own(facility: Any) -> None:
    officer = make_person(Role.COMPLIANCE_OFFICER, facility)
    dealer = make_person(Role.DEALER, facility)
    inspector = make_person(Role.BOARD_INSPECTOR, facility)
    first = {who: navigation_for(who) for who in (officer, dealer, inspector)}
    with mock.patch.object(navigation, "resolve", side_effect=AssertionError("resolved again")), \
            mock.patch.object(navigation, "reverse", side_effect=AssertionError("reversed again")):
        again = {who: navigation_for(who) for who in (officer, dealer, inspector)}
    assert again == first
    assert {i["url_name"] for i in first[officer]} != {i["url_name"] for i in first[dealer]}
    # the same kept route, asked of three people, three answers: the officer reads the exclusion screening, the
    # dealer does not, the inspector reads it and may not post to it
    assert may_request(officer, "/exclusion/") and not may_request(dealer, "/exclusion/")
    assert may_request(inspector, "/exclusion/") and not may_request(inspector, "/exclusion/", "POST")


class _OnlyCompliance(CapabilityRequiredMixin):
    from compliance.roles import Capability

    capability = Capability.FILE_REPORTS

    @classmethod
    def as_view(cls) -> Any:
        def view(request: Any) -> HttpResponse:
            return HttpResponse("")

        view.view_class = cls  # type: ignore[attr-defined]
        return view


urlpatterns = [path("reports/", _OnlyCompliance.as_view(), name="swapped")]


def test_a_swapped_urlconf_is_another_key_not_a_stale_answer(facility: Any) -> None:
    dealer = make_person(Role.DEALER, facility)
    officer = make_person(Role.COMPLIANCE_OFFICER, facility)
    assert may_request(dealer, "/reports/") and not may_request(dealer, "/exclusion/")  # the project's own rules
    with override_settings(ROOT_URLCONF=__name__):
        assert not may_request(dealer, "/reports/") and may_request(officer, "/reports/")
        assert may_request(dealer, "/exclusion/")  # nothing there in this URLconf (it answers 404): not ours to hide
    assert may_request(dealer, "/reports/") and not may_request(dealer, "/exclusion/")
