"""The staffing and surveillance report shows what was recorded: each violation period with its minutes inside
the period, each override with its shift manager, totals by clause; as a page, a CSV and a PDF (§ 577.9)."""

from __future__ import annotations

import io
from datetime import date, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pypdf import PdfReader

from compliance.readiness import open_refusal
from compliance.staffing import services
from compliance.staffing.report import staffing_report
from tests.equipment.conftest import T0, local
from tests.factories import PASSWORD
from tests.staffing.conftest import make_table

pytestmark = pytest.mark.django_db

DAY = date(2026, 3, 2)  # T0, Monday 21:04, is in gaming day 2 March


def _open(table, at):
    table.is_open = True
    table.save()
    services.staffing_table_changed(table, at)


@pytest.fixture
def evening(facility, staff_table, watch_table, surveillance, shift_manager, roster, floorperson, internal_control):
    """TDF-1 open from T0, its end-A camera out 20 minutes and a dealer on a 5-minute break; BJ-2 without the
    dealer the facility's internal controls ask, opened two hours later under a shift manager's signed override
    (only an internal control may be overridden; § 577.9 never is), still short."""
    from compliance.models import Profile

    tdf1 = make_table(facility, "three-dice-football", "TDF-1")
    crew = staff_table(tdf1, floorperson=floorperson)
    end_a, _ = watch_table(tdf1, "a", "b")
    _open(tdf1, T0)
    services.camera_out_of_service(camera=end_a, reason="Lens fogged", user=surveillance, at=T0 + timedelta(minutes=30))
    services.camera_back_in_service(camera=end_a, user=surveillance, at=T0 + timedelta(minutes=50))
    with time_machine.travel(T0 + timedelta(hours=1, minutes=5), tick=False):  # recorded as they happen
        services.assignment_end(assignment=crew[0], user=shift_manager, ends_at=T0 + timedelta(hours=1),
                                note="break")
        services.assignment_add(roster=roster, person=crew[0].person, position="dealer", table=tdf1,
                                user=shift_manager, starts_at=T0 + timedelta(hours=1, minutes=5),
                                note="back from break")
    bj2 = make_table(facility, "blackjack", "BJ-2")
    override = services.override_record(table=bj2, reason="Relief dealer on the way", user=shift_manager,
                                        password=PASSWORD)
    assert open_refusal(bj2, T0 + timedelta(hours=2), None) is None
    _open(bj2, T0 + timedelta(hours=2))
    return {"override": override, "manager": Profile.objects.get(user=shift_manager).full_name}


def test_the_report_lists_each_violation_with_its_minutes_and_the_override(facility, evening):
    report = staffing_report(facility, DAY, DAY, now=T0 + timedelta(hours=3))
    found = [(v.table, v.rule, v.clause, v.minutes, v.ongoing, v.override_id) for v in report.violations]
    assert found == [
        ("TDF-1", "cameras", "577.9(a)", 20, False, None),
        ("TDF-1", "staffing:three-dealers", "577.9(b)", 5, False, None),
        ("BJ-2", "staffing:ic-dealer", "IC 7.2", 60, True, evening["override"].pk),  # ongoing, up to now
    ]
    assert report.violations[0].started_at == T0 + timedelta(minutes=30)
    assert report.violations[0].ended_at == T0 + timedelta(minutes=50)
    assert "no camera covers end A" in report.violations[0].words
    assert report.violations[2].override_signer == evening["manager"]
    assert [(c.clause, c.count, c.minutes) for c in report.by_clause] == [("577.9(a)", 1, 20), ("577.9(b)", 1, 5),
                                                                          ("IC 7.2", 1, 60)]
    (override,) = report.overrides
    assert (override.table, override.gaming_date, override.reason) == ("BJ-2", DAY, "Relief dealer on the way")
    assert override.signer == evening["manager"] and override.used_at == T0 + timedelta(hours=2)
    assert "a dealer at the table (internal controls)" in override.violations and "§ IC 7.2" in override.violations
    summary = dict(report.summary_rows())
    assert summary["Violation periods"] == "3" and summary["Still ongoing"] == "1"
    assert summary["Minutes in violation"] == "85" and summary["Overrides given"] == "1"
    assert summary["Overrides used to open a table"] == "1"


def test_a_violation_is_counted_only_inside_the_period(facility, evening):
    # Gaming day 3 March starts at 06:00: the ongoing BJ-2 period counts from then until now (07:30).
    next_day = staffing_report(facility, date(2026, 3, 3), date(2026, 3, 3), now=local(2026, 3, 3, 7, 30))
    assert [(v.table, v.minutes, v.ongoing) for v in next_day.violations] == [("BJ-2", 90, True)]
    assert next_day.overrides == []  # given on 2 March
    day_before = staffing_report(facility, date(2026, 3, 1), date(2026, 3, 1), now=local(2026, 3, 3, 7, 30))
    assert day_before.violations == [] and day_before.overrides == [] and day_before.by_clause == []


def test_the_report_takes_the_same_queries_however_many_rows(facility, evening, staff_table, watch_table,
                                                             shift_manager):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            staffing_report(facility, DAY, DAY, now=T0 + timedelta(hours=3))
        return len(captured.captured_queries)

    few = queries()
    for n in range(3, 6):
        table = make_table(facility, "blackjack", f"BJ-{n}")
        services.override_record(table=table, reason="Short tonight", user=shift_manager, password=PASSWORD)
        assert open_refusal(table, T0 + timedelta(hours=2), None) is None
        _open(table, T0 + timedelta(hours=2))
    assert len(staffing_report(facility, DAY, DAY, now=T0 + timedelta(hours=3)).overrides) == 4
    assert queries() == few == 4


def test_the_csv_and_the_pdf_carry_the_rows(facility, evening):
    # The report is produced on the report framework (compliance.reports, kind "staffing").
    from compliance.reports.periods import Period
    from compliance.reports.render import Production, content_csv, content_pdf
    from compliance.staffing.report_kinds import build

    with time_machine.travel(T0 + timedelta(hours=3), tick=False):
        content = build(facility, Period(DAY, DAY))
    production = Production(facility_name=facility.name, version=1, produced_at="now", requested_by="Inspector")
    csv_text = content_csv(content, production).decode()
    assert "Staffing and surveillance violations and overrides" in csv_text and "§ 577.9(a)" in csv_text
    for expected in ("TDF-1", "BJ-2", "§ 577.9(a)", "§ 577.9(b)", "ongoing", "Relief dealer on the way",
                     evening["manager"], "no camera covers end A"):
        assert expected in csv_text, expected
    assert "TDF-1,Three Dice Football,Cameras,§ 577.9(a)" in csv_text
    pdf = content_pdf(content, production)
    assert pdf.startswith(b"%PDF-")
    text = " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages).split())
    for expected in ("Staffing and surveillance", "TDF-1", "BJ-2", "577.9(a)", "577.9(b)", "ongoing",
                     "Relief dealer on the way"):
        assert expected in text, expected


def test_the_inspector_gets_the_page(facility, evening, inspector, client_for):
    client = client_for(inspector)
    period = {"start": "2026-03-02", "end": "2026-03-02"}
    moved = client.get(reverse("staffing:report-csv"), period)
    assert moved.url == reverse("reports:kind", args=["staffing"]) + "?start=2026-03-02&end=2026-03-02"
    page = client.get(moved.url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "TDF-1" in html and "BJ-2" in html and "577.9(a)" in html and "Relief dealer on the way" in html


def test_a_bad_period_is_refused_on_the_page(facility, inspector, client_for):
    client = client_for(inspector)
    backwards = {"start": "2026-03-05", "end": "2026-03-02"}
    page = client.get(reverse("reports:kind", args=["staffing"]), backwards)
    assert "The period ends before it starts." in page.content.decode()


def test_a_dealer_may_not_see_the_report(facility, dealer, client_for):
    client = client_for(dealer)
    url = reverse("reports:kind", args=["staffing"])
    assert client.get(url, {"start": "2026-03-02", "end": "2026-03-02"}).status_code == 403
