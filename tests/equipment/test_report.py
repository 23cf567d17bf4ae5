"""The equipment compliance report shows what the logs say: changes, on-time share, incidents, reasons."""

from __future__ import annotations

import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from pypdf import PdfReader

from equipment import services
from equipment.selectors import equipment_report
from tests.equipment.conftest import local

pytestmark = pytest.mark.django_db

T0 = local(2026, 3, 2, 8, 0)


@pytest.fixture
def month(tdf, asia, place_dice, place_decks, floorperson):
    """A small month at two tables: on-time, late and forced changes, and a table left closed."""
    place_dice(tdf, T0)
    services.table_open(table=tdf, user=floorperson, at=T0)
    place_dice(tdf, T0 + timedelta(hours=24), identifiers="B")  # exactly 24:00 → on time
    place_dice(tdf, T0 + timedelta(hours=26), identifiers="C", reason="die_lost", dice_lost=1)  # forced
    place_dice(tdf, T0 + timedelta(hours=51), identifiers="D")  # 25 h in play → 1 h late while open
    place_dice(tdf, T0 + timedelta(hours=52), identifiers="E", reason="tampering")  # forced
    services.table_close(table=tdf, user=floorperson, at=T0 + timedelta(hours=53))
    place_decks(asia, T0)
    services.table_open(table=asia, user=floorperson, at=T0)
    place_decks(asia, T0 + timedelta(hours=4, minutes=30), back_colours="blue")  # hand-dealt, 30 min late
    services.table_close(table=asia, user=floorperson, at=T0 + timedelta(hours=5))
    # The blue deck stays on the closed table past its 4 hours: not an incident while closed.
    return equipment_report(tdf.facility, date(2026, 3, 1), date(2026, 3, 31), now=T0 + timedelta(days=5))


def test_the_report_counts_changes_and_the_on_time_share(month):
    # Counted as each set goes into play: five sets of dice (the first at opening) and two decks. Late: dice D
    # (the set it replaced was in play 25 h) and the blue deck (the red one was in play 4 h 30 min).
    assert (month.dice_changes, month.deck_changes) == (5, 2)
    assert month.on_time == 5
    assert month.on_time_percent == Decimal("71.4")


def test_overdue_incidents_carry_their_duration_while_the_table_was_open(month):
    found = [(i.table, i.kind, i.overdue_open_for) for i in month.incidents]
    assert found == [("AP-1", "Cards", timedelta(minutes=30)), ("TDF-1", "Dice", timedelta(hours=1))]
    assert month.total_overdue == timedelta(minutes=90)


def test_forced_changes_are_grouped_by_reason(month):
    assert dict(month.forced_by_reason) == {
        "Die went off the table and was lost": 1,
        "Signs of tampering or alteration, or marked": 1,
    }


def test_a_set_still_overdue_at_an_open_table_is_an_ongoing_incident(tdf, place_dice, floorperson):
    place_dice(tdf, T0)
    services.table_open(table=tdf, user=floorperson, at=T0)
    report = equipment_report(tdf.facility, date(2026, 3, 1), date(2026, 3, 31), now=T0 + timedelta(hours=30))
    (incident,) = report.incidents
    assert incident.ended_at is None and incident.overdue_open_for == timedelta(hours=6)


def test_the_pdf_and_csv_carry_the_figures(month, tdf, tmp_path):
    # The report is produced on the report framework (compliance.reports, kind "equipment").
    from compliance.reports.periods import Period
    from compliance.reports.render import Production, content_csv, content_pdf
    from equipment.report_kinds import build

    content = build(tdf.facility, Period(date(2026, 3, 1), date(2026, 3, 31)))
    production = Production(facility_name=tdf.facility.name, version=1, produced_at="now", requested_by="a test")
    pdf = content_pdf(content, production)
    assert pdf.startswith(b"%PDF-")
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    for expected in ("Equipment change compliance", "71.4%", "TDF-1", "AP-1", "1 h 00 min", "30 min", "577.4(d)"):
        assert expected in text, expected
    (tmp_path / "report.pdf").write_bytes(pdf)
    csv_text = content_csv(content, production).decode()
    assert "Overdue incidents" in csv_text and "71.4%" in csv_text and "Die went off the table" in csv_text
    assert month.changes == content.figures["changes"]


def test_the_report_page_shows_the_summary(month, tdf, compliance_officer, client_for):
    client = client_for(compliance_officer)
    moved = client.get(reverse("equipment:report"), {"start": "2026-03-01", "end": "2026-03-31"})
    assert moved.status_code == 302 and moved.url == reverse("reports:kind", args=["equipment"]) + \
        "?start=2026-03-01&end=2026-03-31"
    html = client.get(moved.url).content.decode()
    assert "71.4%" in html and "TDF-1" in html and "Die went off the table and was lost" in html
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' in html


def test_a_corrected_late_set_is_one_incident_and_its_replacement_one_late_change(tdf, place_dice, floorperson, shift_manager):
    from compliance.services import record_correct
    from equipment.models import DiceRemoval

    late = place_dice(tdf, T0)
    services.table_open(table=tdf, user=floorperson, at=T0)
    place_dice(tdf, T0 + timedelta(hours=25), identifiers="B")
    late.refresh_from_db()
    record_correct(original=late, reason="Typo in the lot", user=shift_manager, changes={"identifiers": "A-corr"})
    removal = DiceRemoval.objects.get(dice_set=late)
    record_correct(original=removal, reason="Wrong reason", user=shift_manager, changes={"reason": "damaged"})
    report = equipment_report(tdf.facility, date(2026, 3, 1), date(2026, 3, 31), now=T0 + timedelta(hours=26))
    assert [(i.table, i.overdue_open_for) for i in report.incidents] == [("TDF-1", timedelta(hours=1))]
    assert report.dice_changes == 2 and report.on_time == 1  # the corrected set counts once; B replaced it late
    assert dict(report.removals_by_reason) == {"Chipped, scratched or no longer suitable for play": 1}


def test_dice_left_past_24_hours_on_a_closed_props_and_hops_table_are_an_incident(props, place_dice):
    # § 668a.3(b)(1): dice "may not remain on a table for more than 24 hours", open or closed.
    place_dice(props, T0)
    report = equipment_report(props.facility, date(2026, 3, 1), date(2026, 3, 31), now=T0 + timedelta(hours=27))
    (incident,) = report.incidents
    assert incident.table == "PH-1" and incident.overdue_open_for == timedelta(hours=3)


def test_dice_and_decks_put_in_play_a_minute_ago_are_changes_made_today(tdf, asia, place_dice, place_decks,
                                                                         floorperson):
    """§ 577.4(d), § 575.3(c): the report counts a change when the new set goes into play, not when it leaves."""
    place_dice(tdf, T0)
    services.table_open(table=tdf, user=floorperson, at=T0)
    place_decks(asia, T0 + timedelta(minutes=5))
    report = equipment_report(tdf.facility, date(2026, 3, 2), date(2026, 3, 2), now=T0 + timedelta(minutes=6))
    assert (report.dice_changes, report.deck_changes, report.on_time) == (1, 1, 2)
    assert report.changes_by_day == {date(2026, 3, 2): [2, 0]}
    assert report.removals_by_reason == []

    # Changed 24 h later: the new set is the change of the day it went into play, on time.
    place_dice(tdf, T0 + timedelta(hours=24), identifiers="B")
    next_day = equipment_report(tdf.facility, date(2026, 3, 3), date(2026, 3, 3), now=T0 + timedelta(hours=25))
    assert (next_day.dice_changes, next_day.on_time) == (1, 1)


def test_the_report_says_a_change_is_counted_when_the_set_goes_into_play(tdf, place_dice, floorperson):
    from compliance.reports.periods import Period
    from equipment.report_kinds import build

    place_dice(tdf, T0)
    content = build(tdf.facility, Period(date(2026, 3, 1), date(2026, 3, 31)))
    assert any("counted when the new set of dice or deck goes into play" in r for r in content.readings)
    assert ("Dice changes made (sets put in play)", "1") in content.summary
    assert not any("removed" in r and "counted" in r for r in content.readings)
