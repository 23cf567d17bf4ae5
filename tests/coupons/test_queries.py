"""Coupon screens read a fixed number of queries, whatever the number of series or reports."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from coupons import services
from tests.coupons.conftest import PASSWORD, TODAY, approve, make_series

pytestmark = pytest.mark.django_db


def _queries(client: Any, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def _more_series(program: Any, user: Any, officer: Any, how_many: int) -> list[Any]:
    made = []
    for i in range(how_many):
        series = make_series(program.facility, program.program, user, code=f"extra{i}", prefix=f"X{i}")
        if i % 2:
            approve(program.facility, program.program, officer, series, kinds=("design",))
        made.append(series)
    return made


def test_the_coupons_home_reads_the_approvals_once(program, client_for, finance_supervisor, compliance_officer):
    client = client_for(finance_supervisor)
    one_series = _queries(client, reverse("coupons:home"))
    _more_series(program, finance_supervisor, compliance_officer, 4)
    assert _queries(client, reverse("coupons:home")) == one_series


def test_the_reports_page_reads_the_same_number_of_queries_for_one_and_five_reports(
    program, client_for, compliance_officer, finance_staff
):
    one_voided = {2500: {"returned": 0, "voided": 1, "redeemed": 0}}  # counted twice the same, and explained

    def exception_on(day: Any) -> None:
        services.finance_day_process(facility=program.facility, gaming_date=day, counted=one_voided,
                                     first_count=one_voided, count_explanation="One more found in the box",
                                     user=finance_staff, password=PASSWORD)

    client = client_for(compliance_officer)
    exception_on(TODAY - timedelta(days=5))  # finance processes days in order, oldest first
    one = _queries(client, reverse("coupons:reports"))
    for days in range(4, 0, -1):
        exception_on(TODAY - timedelta(days=days))
    assert _queries(client, reverse("coupons:reports")) == one


def test_an_inventory_page_reads_the_same_number_of_queries_for_one_and_five_series(
    program, receive, client_for, finance_supervisor, finance_staff, compliance_officer
):
    receive(1, 10)
    client = client_for(finance_staff)
    one = services.inventory_record(facility=program.facility, counted={program.series: [(1, 10)]},
                                    user=finance_staff, password=PASSWORD)
    one_series = _queries(client, one.get_absolute_url())
    extra = _more_series(program, finance_supervisor, compliance_officer, 4)
    five = services.inventory_record(facility=program.facility, counted={s: [(1, 1)] for s in [program.series, *extra]},
                                     user=finance_staff, password=PASSWORD)
    assert five.counts.count() == 5
    assert _queries(client, five.get_absolute_url()) == one_series
