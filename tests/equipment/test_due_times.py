"""A due time reads with its day when it is not today, on the facility's clock: "Due 06:15" alone reads as past
when it means tomorrow morning (compliance.times.when; the board, the table page, the logs and the alerts)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.urls import reverse

from equipment import services
from equipment.clocks import local_words
from equipment.models import EquipmentAlert
from tests.equipment.conftest import T0, local, make_table
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

# T0 is Monday 2 Mar 2026, 21:04 in Harrisburg: dice placed then are due on Tuesday at 21:04.


@pytest.fixture
def sic_bo_open(facility: Any, place_dice: Any, floorperson: Any) -> Any:
    table = make_table(facility, "sic-bo", "SB-1")
    place_dice(table, T0)
    services.inspection_record(
        table=table, user=floorperson, password=PASSWORD, values_entered=[2, 3, 6], combinations_illuminated=True, at=T0
    )
    services.table_open(table=table, user=floorperson, at=T0 + timedelta(minutes=1))
    return table


def _board(client: Any) -> str:
    return client.get(reverse("equipment:board-rows")).content.decode()


def test_the_board_says_the_day_of_a_due_time_that_is_not_today(sic_bo_open, floorperson, client_for):
    with time_machine.travel(local(2026, 3, 2, 22, 0), tick=False):
        assert "(due tomorrow 21:04)" in _board(client_for(floorperson))
    with time_machine.travel(local(2026, 3, 3, 20, 0), tick=False):
        assert "(due 21:04)" in _board(client_for(floorperson))
    with time_machine.travel(local(2026, 3, 4, 8, 0), tick=False):
        board = _board(client_for(floorperson))
        assert "(due yesterday 21:04)" in board and "OVERDUE" in board


def test_a_due_time_is_read_on_the_facilitys_clock_not_the_servers(
    facility, sic_bo_open, floorperson, client_for, settings
):
    facility.time_zone = "America/Los_Angeles"
    facility.save()
    settings.TIME_ZONE = "America/New_York"
    # 22:00 in Harrisburg is 19:00 in Los Angeles; the dice are due at 18:04 there on Tuesday.
    with time_machine.travel(local(2026, 3, 2, 22, 0), tick=False):
        assert "(due tomorrow 18:04)" in _board(client_for(floorperson))


def test_the_table_page_and_the_log_say_the_day_of_the_due_time(sic_bo_open, floorperson, client_for):
    with time_machine.travel(local(2026, 3, 2, 22, 0), tick=False):
        client = client_for(floorperson)
        page = client.get(reverse("equipment:table", args=[sic_bo_open.pk])).content.decode()
        log = client.get(reverse("equipment:dice-log")).content.decode()
    assert "placed 21:04, due tomorrow 21:04" in page
    assert "<td>tomorrow 21:04</td>" in log
    with time_machine.travel(local(2026, 3, 7, 10, 0), tick=False):  # Saturday: Tuesday is another day of the week
        page = client_for(floorperson).get(reverse("equipment:table", args=[sic_bo_open.pk])).content.decode()
    assert "placed Mon 2 Mar 21:04, due Tue 3 Mar 21:04" in page


def test_an_overdue_alert_says_since_when_with_its_day(sic_bo_open, floorperson, client_for):
    with time_machine.travel(local(2026, 3, 4, 8, 0), tick=False):
        services.equipment_sweep()
        alert = EquipmentAlert.objects.get()
        assert str(alert) == "Dice change overdue at SB-1 since yesterday 21:04"
        page = client_for(floorperson).get(reverse("equipment:alerts")).content.decode()
    assert "since yesterday 21:04" in page and "raised 08:00" in page


def test_a_time_after_at_says_tomorrow_and_another_year(facility):
    with time_machine.travel(local(2026, 3, 2, 22, 0), tick=False):
        assert local_words(local(2026, 3, 3, 6, 15), facility) == "06:15 tomorrow"
        assert local_words(local(2025, 12, 31, 6, 15), facility) == "06:15 on 31 Dec 2025"
        assert local_words(local(2026, 3, 1, 6, 15), facility) == "06:15 yesterday"
