"""Demo data for the reports: the quarterly reports of the last quarter as the schedule makes them. The apps whose
data a report shows request their own demo reports (the coupons' demo, this month's redemptions)."""

from __future__ import annotations

from django.db import transaction

from compliance.actors import acts_as_system
from compliance.models import Facility
from compliance.reports import services

__all__ = ["reports_demo_seed"]


@transaction.atomic
@acts_as_system
def reports_demo_seed(*, facility: Facility) -> int:
    """The quarterly reports of the last quarter, as the schedule makes them (idempotent: the schedule produces a
    period once). Returns the runs made."""
    return len([run for run in services.quarterly_reports_schedule() if run.facility_id == facility.pk])
