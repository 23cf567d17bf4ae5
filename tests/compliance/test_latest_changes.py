"""The dashboard's latest changes (``compliance.selectors.latest_audit_events``): the audit trail's newest rows,
its statement compiled once and kept — the statement, never its answer."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from compliance import selectors
from compliance.models import AuditEvent
from compliance.roles import Role
from compliance.staffing import services
from tests.factories import make_person

pytestmark = pytest.mark.django_db


def _newest(facility: Any, limit: int) -> list[int]:
    return [e.pk for e in selectors.audit_events(facility=facility)[:limit]]


def test_the_latest_changes_are_the_trails_newest_as_each_change_is_made(facility: Any, other_facility: Any) -> None:
    here, there = make_person(Role.SURVEILLANCE, facility), make_person(Role.SURVEILLANCE, other_facility)
    for step in range(6):
        for where, who in ((facility, here), (other_facility, there)):
            services.camera_register(facility=where, code=f"C-{step}", user=who)
            for limit in (1, 3, 8):
                latest = selectors.latest_audit_events(facility=where, limit=limit)
                assert [e.pk for e in latest] == _newest(where, limit)
                assert all(hasattr(e, "actor_elsewhere") for e in latest)  # what the rows show, as on the trail
    assert {e.facility_id for e in selectors.latest_audit_events(facility=facility, limit=50)} <= {facility.pk, None}
    # kept: asked again, nothing is built; a new change is still read
    with mock.patch.object(selectors, "_audit_branches", side_effect=AssertionError("built again")):
        services.camera_register(facility=facility, code="C-late", user=here)
        newest = selectors.latest_audit_events(facility=facility, limit=8)[0]
    assert (newest.model_label, newest.action) == ("staffing.Camera", AuditEvent.Action.CREATED)
    assert newest.pk == AuditEvent.objects.filter(facility=facility).order_by("-pk").first().pk  # type: ignore

