"""Staffing and surveillance pages: what each person sees and may do, and the roster that validates as it is
filled in."""

from __future__ import annotations

from datetime import time, timedelta

import pytest
import time_machine

from compliance.staffing import services
from compliance.staffing.models import Assignment, Camera, CameraOutage, StaffingOverride
from tests.equipment.conftest import T0
from tests.factories import PASSWORD
from tests.staffing.conftest import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def tdf(facility):
    return make_table(facility, "three-dice-football", "TDF-1")


def test_the_floor_page_shows_each_open_table_and_its_breach(facility, tdf, staff_table, watch_table, client_for,
                                                              floorperson):
    staff_table(tdf, dealers=1)
    watch_table(tdf, "a", "b")
    tdf.is_open = True
    tdf.save()
    services.staffing_table_changed(tdf, T0)
    page = client_for(floorperson).get("/staffing/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "TDF-1" in text and "§ 577.9(b)" in text and "three dealers" in text


def test_the_roster_validates_as_it_is_filled_in(facility, tdf, shift_manager, client_for, dealer):
    client = client_for(shift_manager)
    shift = services.shift_create(facility=facility, name="Swing", starts_at=time(14, 0), hours=8, user=shift_manager)
    made = client.post("/staffing/rosters/", {"gaming_date": "2026-03-02", "shift": shift.pk, "copy_previous": "on"})
    assert made.status_code == 302
    url = made["Location"]
    placed = client.post(url, {"person": dealer.pk, "position": "stickperson", "table": tdf.pk, "note": ""})
    assert placed.status_code == 302
    page = client.get(url).content.decode()
    assert "TDF-1" in page and "needs three dealers at the table; table TDF-1 has one" in page
    assert "§ 577.9(a)" in page  # no camera yet: shown before the table opens
    again = client.post(url, {"person": dealer.pk, "position": "dealer", "table": tdf.pk})
    assert again.status_code == 422 and "still at table TDF-1" in again.content.decode()
    assert Assignment.objects.count() == 1


def test_a_dealer_sees_the_roster_but_cannot_change_it(facility, tdf, roster, client_for, dealer):
    client = client_for(dealer)
    assert client.get(f"/staffing/rosters/{roster.pk}/").status_code == 200
    refused = client.post(f"/staffing/rosters/{roster.pk}/", {"person": dealer.pk, "position": "dealer",
                                                              "table": tdf.pk})
    assert refused.status_code == 403 and not Assignment.objects.exists()


def test_surveillance_registers_a_camera_and_marks_it_out_of_service(facility, tdf, surveillance, client_for):
    client = client_for(surveillance)
    assert client.post("/staffing/cameras/", {"form": "camera", "code": "c-114", "stationary": "on"}).status_code == 302
    camera = Camera.objects.get(code="C-114")
    assert client.post("/staffing/cameras/", {"form": "coverage", "camera": camera.pk, "table": tdf.pk, "end": "a",
                                              "covers": "on"}).status_code == 302
    page = client.get("/staffing/cameras/").content.decode()
    assert "C-114" in page and "Table TDF-1" in page
    assert client.post(f"/staffing/cameras/{camera.pk}/out/", {"reason": "No signal"}).status_code == 302
    assert CameraOutage.objects.get().reason == "No signal"
    assert client.post(f"/staffing/cameras/{camera.pk}/back/").status_code == 302
    assert CameraOutage.objects.get().ended_at is not None


def test_only_a_shift_manager_signs_an_override(facility, tdf, staff_table, client_for, shift_manager, floorperson,
                                                internal_control):
    staff_table(tdf, dealers=1)
    client = client_for(shift_manager)
    refused = client.post(f"/staffing/tables/{tdf.pk}/override/", {"reason": "Relief coming", "password": PASSWORD})
    assert refused.status_code == 422 and "no signature waives" in refused.content.decode()  # § 577.9: none
    assert not StaffingOverride.objects.exists()
    from tests.staffing.conftest import make_table

    bj = make_table(facility, "blackjack", "BJ-1")
    assert client_for(floorperson).get(f"/staffing/tables/{bj.pk}/override/").status_code == 403
    page = client.get(f"/staffing/tables/{bj.pk}/override/").content.decode()
    assert "What it breaks now" in page and "§ IC 7.2" in page
    wrong = client.post(f"/staffing/tables/{bj.pk}/override/", {"reason": "Relief coming", "password": "nope"})
    assert wrong.status_code == 422 and not StaffingOverride.objects.exists()
    done = client.post(f"/staffing/tables/{bj.pk}/override/", {"reason": "Relief coming", "password": PASSWORD})
    assert done.status_code == 302
    override = StaffingOverride.objects.get()
    assert override.is_signed()
    detail = client_for(shift_manager).get(done["Location"]).content.decode()
    assert "Relief coming" in detail and "IC 7.2" in detail


def test_the_live_table_board_flags_a_table_a_camera_outage_left_short(facility, tdf, staff_table, watch_table,
                                                                       surveillance, client_for, floorperson):
    staff_table(tdf)
    end_a, _ = watch_table(tdf, "a", "b")
    tdf.is_open = True
    tdf.save()
    services.staffing_table_changed(tdf, T0)
    board = client_for(floorperson).get("/equipment/board/rows/").content.decode()
    assert "577.9(a)" not in board
    services.camera_out_of_service(camera=end_a, reason="No signal", user=surveillance)
    board = client_for(floorperson).get("/equipment/board/rows/").content.decode()
    assert "no camera covers end A" in board and "§ 577.9(a)" in board


def test_the_whole_pit_is_filled_in_on_one_form(facility, tdf, roster, shift_manager, floorperson, client_for):
    from compliance.roles import Role
    from tests.factories import make_person

    blackjack = make_table(facility, "blackjack", "BJ-1")
    dealers = [make_person(Role.DEALER, facility) for _ in range(4)]
    client = client_for(shift_manager)
    url = f"/staffing/rosters/{roster.pk}/pit/"
    page = client.get(url).content.decode()
    # Three Dice Football offers a stickperson, two dealers and a floorperson; Blackjack a dealer and a floorperson.
    for name in (f"t{tdf.pk}-stickperson-0", f"t{tdf.pk}-dealer-1", f"t{tdf.pk}-dealer-2",
                 f"t{tdf.pk}-floorperson-3", f"t{blackjack.pk}-dealer-0", f"t{blackjack.pk}-floorperson-1"):
        assert f'name="{name}"' in page
    fill = {f"t{tdf.pk}-stickperson-0": dealers[0].pk, f"t{tdf.pk}-dealer-1": dealers[1].pk,
            f"t{tdf.pk}-dealer-2": dealers[2].pk, f"t{tdf.pk}-floorperson-3": floorperson.pk,
            f"t{blackjack.pk}-dealer-0": dealers[3].pk, f"t{blackjack.pk}-floorperson-1": floorperson.pk}
    assert client.post(url, fill).status_code == 302
    assert Assignment.objects.filter(roster=roster, ends_at__isnull=True).count() == 6
    # Moving a dealer from Blackjack to Three Dice Football in one save: the ending comes first.
    moved = {**fill, f"t{tdf.pk}-dealer-2": dealers[3].pk, f"t{blackjack.pk}-dealer-0": dealers[2].pk}
    with time_machine.travel(T0 + timedelta(minutes=20), tick=False):
        answer = client.post(url, moved)
    assert answer.status_code == 302, answer.content.decode()[:2000]
    open_places = {(a.table_id, a.position, a.person_id)
                   for a in Assignment.objects.filter(roster=roster, ends_at__isnull=True)}
    assert (tdf.pk, "dealer", dealers[3].pk) in open_places and (blackjack.pk, "dealer", dealers[2].pk) in open_places
    assert Assignment.objects.filter(roster=roster, ends_at__isnull=False).count() == 2
    twice = {**fill, f"t{tdf.pk}-dealer-2": dealers[1].pk}
    with time_machine.travel(T0 + timedelta(minutes=30), tick=False):
        refused = client.post(url, twice)
    assert refused.status_code == 422 and "same person is in two places" in refused.content.decode()
