"""Issue 8, item 13: the floor finds its tables. The tables page links each table's equipment page;
the live board lists closed tables with what each needs before opening, and offers an action only to
a person whose role may take it. Also: times and periods on the facility's clock."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse

from compliance.forms import ReportPeriodForm
from equipment import services
from equipment.clocks import local_words
from tests.equipment.conftest import T0, local

pytestmark = pytest.mark.django_db


def test_the_tables_page_links_every_table(tdf, sic_bo, floorperson, client_for):
    html = client_for(floorperson).get(reverse("table-list")).content.decode()
    for table in (tdf, sic_bo):
        assert f'href="{reverse("equipment:table", args=[table.pk])}"' in html


def test_the_board_lists_closed_tables_with_what_they_need(tdf, sic_bo, place_dice, floorperson, client_for):
    place_dice(sic_bo, T0)
    with time_machine.travel(T0 + timedelta(minutes=5), tick=False):
        html = client_for(floorperson).get(reverse("equipment:board")).content.decode()
    assert html.count('class="board-table') == 2
    assert "new dice" in html  # TDF-1 has none in play
    assert "a passing opening inspection" in html  # SB-1 not inspected
    assert reverse("equipment:dice-change", args=[tdf.pk]) in html
    assert reverse("equipment:inspection-create", args=[sic_bo.pk]) in html


def test_a_ready_table_offers_open_only_to_who_may_open_it(tdf, place_dice, floorperson, dealer, inspector, client_for):
    place_dice(tdf, T0)
    open_url = reverse("equipment:table-open", args=[tdf.pk])
    with time_machine.travel(T0 + timedelta(minutes=5), tick=False):
        assert open_url in client_for(floorperson).get(reverse("equipment:board")).content.decode()
        for person in (dealer, inspector):
            html = client_for(person).get(reverse("equipment:board")).content.decode()
            assert "Ready to open" in html
            assert open_url not in html
            assert reverse("equipment:dice-change", args=[tdf.pk]) not in html


def test_a_shift_manager_is_not_offered_the_floorpersons_duties(sic_bo, shift_manager, client_for):
    html = client_for(shift_manager).get(reverse("equipment:board")).content.decode()
    assert reverse("equipment:inspection-create", args=[sic_bo.pk]) not in html


def test_a_stopped_sic_bo_table_shows_the_device_it_waits_for(sic_bo, place_dice, inspect, floorperson, client_for):
    from tests.factories import PASSWORD

    place_dice(sic_bo, T0)
    services.malfunction_record(
        table=sic_bo, user=floorperson, password=PASSWORD, device="sic_bo_display", description="Dark",
        round_outcome="settled_ceased", at=T0 + timedelta(minutes=1),
    )  # fmt: skip
    with time_machine.travel(T0 + timedelta(minutes=5), tick=False):
        html = client_for(floorperson).get(reverse("equipment:board")).content.decode()
        page = client_for(floorperson).get(reverse("equipment:table", args=[sic_bo.pk])).content.decode()
    assert "device back in service" in html
    assert "Record back in service" in page
    assert reverse("equipment:dice-change", args=[sic_bo.pk]) not in page


def test_times_in_words_are_on_the_facilitys_clock(facility, settings):
    facility.time_zone = "America/Los_Angeles"
    settings.TIME_ZONE = "UTC"
    # 02:30 on 3 Mar in New York is 23:30 on 2 Mar in Los Angeles: "yesterday" there at 08:00 the 3rd
    with time_machine.travel(local(2026, 3, 3, 11, 0), tick=False):
        assert local_words(local(2026, 3, 3, 2, 30), facility) == "23:30 yesterday"


def test_the_report_period_defaults_to_the_facilitys_gaming_days(facility):
    # 02:25 on 3 Mar belongs to the gaming day of 2 Mar (it starts at 6:00)
    with time_machine.travel(local(2026, 3, 3, 2, 25), tick=False):
        start, end = ReportPeriodForm.default_period(facility)
    assert end.isoformat() == "2026-03-02" and (end - start).days == 29
