"""The screens: the live board (constant queries), the forms at the table, inspector read-only."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.urls import reverse

from compliance.roles import Role
from equipment import services
from equipment.models import DiceSet, EquipmentAlert
from tests.equipment.conftest import T0, make_table
from tests.factories import PASSWORD, make_person

pytestmark = pytest.mark.django_db


def _open_tables(facility: Any, count: int, place_dice: Any, floorperson: Any) -> list[Any]:
    tables = []
    for n in range(count):
        table = make_table(facility, "props-and-hops", f"PH-{n:03d}")
        place_dice(table, T0 + timedelta(minutes=n % 50))
        services.table_open(table=table, user=floorperson, at=T0 + timedelta(hours=1))
        tables.append(table)
    return tables


@pytest.mark.parametrize("count", [5, 50])
def test_the_board_takes_a_constant_number_of_queries(
    count, facility, place_dice, floorperson, client_for, django_assert_num_queries, settings
):
    settings.SESSION_IDLE_MINUTES = 180  # the board stays open through the two hours jumped below
    _open_tables(facility, count, place_dice, floorperson)
    client = client_for(floorperson)
    client.get(reverse("equipment:board-rows"))  # warm the session and the user's roles
    with time_machine.travel(T0 + timedelta(hours=2), tick=False), django_assert_num_queries(9):
        # session, user, profile, roles, facilities (the foundation's middleware), then ONE query
        # for every open table's clocks, and the readiness of every table (compliance.readiness: the tables as
        # they are, then here the equipment's part alone: the facts and the approvals), whatever the number of tables
        response = client.get(reverse("equipment:board-rows"))
    assert response.status_code == 200
    assert response.content.decode().count('class="board-table') == count


def test_the_board_shows_red_when_overdue_and_amber_when_due_soon(facility, place_dice, floorperson, client_for):
    late, soon, fine = (make_table(facility, "sic-bo", n) for n in ("SB-LATE", "SB-SOON", "SB-FINE"))
    for table, placed in ((late, T0), (soon, T0 + timedelta(minutes=20)), (fine, T0 + timedelta(hours=5))):
        place_dice(table, placed)
        services.inspection_record(
            table=table,
            user=floorperson,
            password=PASSWORD,
            values_entered=[2, 3, 6],
            combinations_illuminated=True,
            at=placed,
        )
        services.table_open(table=table, user=floorperson, at=placed + timedelta(minutes=1))
    with time_machine.travel(T0 + timedelta(hours=24, minutes=5), tick=False):
        html = client_for(floorperson).get(reverse("equipment:board")).content.decode()
    assert 'data-refresh-url="/equipment/board/rows/"' in html and "equipment/board.js" in html
    rows = {chunk.split("</span>")[0]: chunk for chunk in html.split('class="board-number">')[1:]}
    assert "OVERDUE by 5 min" in rows["SB-LATE"]
    assert "tone-warn" in rows["SB-SOON"] and "15 min left" in rows["SB-SOON"]
    assert "tone-ok" in rows["SB-FINE"] and "4 h 55 min left" in rows["SB-FINE"]


def test_a_floorperson_changes_dice_from_the_tablet_form(tdf, place_dice, floorperson, dealer, client_for):
    old = place_dice(tdf, T0)
    client = client_for(floorperson)
    url = reverse("equipment:dice-change", args=[tdf.pk])
    assert client.get(url).status_code == 200
    response = client.post(
        url,
        {
            "reason": "damaged",
            "dice_lost": "0",
            "identifiers": "LOT-Z 100-105",
            "colours": "4 green, 2 red",
            "dice_count": "6",
            "dealer": dealer.pk,
            "dealer_password": PASSWORD,
            "password": PASSWORD,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    new = DiceSet.objects.get(removed_at__isnull=True)
    assert new.identifiers == "LOT-Z 100-105" and new.is_complete
    old.refresh_from_db()
    assert old.removal.reason == "damaged" and old.removal.dice_returned == 6


def test_a_refused_change_shows_the_reason_on_the_form(tdf, floorperson, dealer, client_for):
    response = client_for(floorperson).post(
        reverse("equipment:dice-change", args=[tdf.pk]),
        {"identifiers": "X", "colours": "6 red", "dice_count": "6", "dealer": dealer.pk,
         "dealer_password": PASSWORD, "password": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 422
    assert "4 green, 2 red" in response.content.decode()
    assert not DiceSet.objects.exists()


def test_opening_is_refused_with_the_rule_on_screen(tdf, floorperson, client_for):
    client = client_for(floorperson)
    response = client.post(reverse("equipment:table-open", args=[tdf.pk]), follow=True)
    assert "cannot open without a set of dice" in response.content.decode()
    tdf.refresh_from_db()
    assert not tdf.is_open


def test_tables_of_another_facility_are_not_found(other_facility, floorperson, client_for):
    foreign = make_table(other_facility, "sic-bo", "SB-9")
    assert client_for(floorperson).get(reverse("equipment:table", args=[foreign.pk])).status_code == 404


# --- the Board inspector -------------------------------------------------------------------------------


@pytest.fixture
def logged(facility, tdf, asia, sic_bo, place_dice, place_decks, inspect, floorperson) -> dict[str, Any]:
    dice = place_dice(tdf, T0)
    decks = place_decks(asia, T0)
    inspection = inspect(sic_bo, T0)
    malfunction = services.malfunction_record(
        table=asia, user=floorperson, password=PASSWORD, device="card_shuffler", description="Jam",
        round_outcome="reshuffled",
    )  # fmt: skip
    services.table_open(table=tdf, user=floorperson, at=T0)
    services.equipment_sweep(now=T0 + timedelta(hours=25))
    return {"dice": dice, "decks": decks, "inspection": inspection, "malfunction": malfunction}


def _get_urls(tables: list[Any], logged: dict[str, Any]) -> list[str]:
    t = tables[0].pk
    return [
        reverse("equipment:board"),
        reverse("equipment:board-rows"),
        reverse("equipment:table", args=[t]),
        reverse("equipment:dice-log"),
        reverse("equipment:deck-log"),
        reverse("equipment:dice-detail", args=[logged["dice"].pk]),
        reverse("equipment:deck-detail", args=[logged["decks"].pk]),
        reverse("equipment:inspection-detail", args=[logged["inspection"].pk]),
        reverse("equipment:malfunction-detail", args=[logged["malfunction"].pk]),
        reverse("equipment:alerts"),
        reverse("equipment:requirements"),
        reverse("reports:kind", args=["equipment"]),
        reverse("reports:kind", args=["equipment"]) + "?start=2026-03-01&end=2026-03-31",
    ]


def _post_urls(table_pk: int) -> list[str]:
    return [
        reverse(name, args=[table_pk])
        for name in (
            "equipment:table-open",
            "equipment:table-close",
            "equipment:dice-change",
            "equipment:deck-change",
            "equipment:inspection-create",
            "equipment:malfunction-create",
        )
    ]


def test_the_inspector_reads_every_equipment_screen(logged, tdf, inspector, client_for):
    client = client_for(inspector)
    for url in _get_urls([tdf], logged):
        response = client.get(url)
        assert response.status_code == 200, url


def test_the_inspector_is_refused_every_equipment_write(logged, tdf, inspector, client_for, password):
    client = client_for(inspector)
    for url in _post_urls(tdf.pk):
        assert client.post(url, {"password": password}).status_code == 403, url
    assert DiceSet.objects.count() == 1


def test_a_dealer_cannot_reach_the_floorperson_forms(tdf, dealer, client_for):
    client = client_for(dealer)
    assert client.get(reverse("equipment:dice-change", args=[tdf.pk])).status_code == 403
    assert client.post(reverse("equipment:table-open", args=[tdf.pk])).status_code == 403


def test_the_dashboard_shows_overdue_and_due_soon(logged, facility, floorperson, client_for):
    assert EquipmentAlert.objects.filter(resolved_at__isnull=True).count() == 1
    with time_machine.travel(T0 + timedelta(hours=25), tick=False):
        html = client_for(floorperson).get(reverse("dashboard")).content.decode()
    assert "Dice and deck changes" in html and "TDF-1: Dice change OVERDUE by 1 h 00 min" in html


def test_a_marketing_person_sees_no_equipment_panel(facility, client_for):
    html = client_for(make_person(Role.MARKETING_STAFF, facility)).get(reverse("dashboard")).content.decode()
    assert "Dice and deck changes" not in html


def test_every_equipment_citation_resolves_against_the_catalogue():
    from compliance.citations import cite
    from equipment import models, views
    from equipment.reference import REQUIREMENTS

    refs: set[str] = set()
    for view in vars(views).values():
        citation = getattr(view, "citation", None)
        refs |= {citation} if isinstance(citation, str) else set(citation or ())
    for model in (models.DiceSet, models.DeckSet, models.DiceRemoval, models.OpeningInspection, models.Malfunction):
        refs |= {model.citation} | {r.citation for r in model.signature_requirements if r.citation}
    refs |= {
        row[key]
        for row in REQUIREMENTS
        for key in ("dice_citation", "deck_citation", "inspection_citation")
        if row.get(key)
    }
    refs |= {clause for _outcome, clause in models.Malfunction.OUTCOMES.values()}
    for ref in refs:
        assert cite(ref), ref


def test_the_regulations_page_lists_the_equipment_screens(floorperson, client_for):
    html = client_for(floorperson).get(reverse("regulation-list")).content.decode()
    assert "Live table board" in html and "539.5(a)" in html


def test_cards_inspection_and_opening_from_the_tablet(asia, sic_bo, place_dice, floorperson, dealer, client_for):
    client = client_for(floorperson)
    response = client.post(
        reverse("equipment:deck-change", args=[asia.pk]),
        {"deck_count": "2", "back_colours": "red / blue", "dealt_from": "automated_shoe", "automated_shuffler": "on",
         "jokers_per_deck": "2", "second_joker_torn": "on", "dealer": dealer.pk, "dealer_password": PASSWORD,
         "password": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 302
    assert client.post(reverse("equipment:table-open", args=[asia.pk])).status_code == 302
    asia.refresh_from_db()
    assert asia.is_open

    place_dice(sic_bo, T0)
    response = client.post(
        reverse("equipment:inspection-create", args=[sic_bo.pk]),
        {"value_1": "1", "value_2": "5", "value_3": "6", "combinations_illuminated": "on", "password": PASSWORD},
    )
    assert response.status_code == 302
    inspection_page = client.get(reverse("equipment:table", args=[sic_bo.pk])).content.decode()
    assert "1-5-6" in inspection_page and "passed" in inspection_page

    response = client.post(
        reverse("equipment:malfunction-create", args=[asia.pk]),
        {"device": "card_shuffler", "description": "Jammed mid-shuffle", "round_outcome": "reshuffled",
         "password": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 302
    assert "Cards reshuffled" in client.get(reverse("equipment:table", args=[asia.pk])).content.decode()


def test_the_logs_show_what_was_recorded(tdf, place_dice, floorperson, client_for):
    place_dice(tdf, T0)
    place_dice(tdf, T0 + timedelta(hours=25), identifiers="LOT-LATE")
    html = client_for(floorperson).get(reverse("equipment:dice-log")).content.decode()
    assert "LOT-LATE" in html and "late" in html and "Scheduled change (clock)" in html


def test_the_dashboard_shows_an_overdue_set_in_red_before_the_sweep_has_run(tdf, place_dice, floorperson, client_for):
    place_dice(tdf, T0)
    services.table_open(table=tdf, user=floorperson, at=T0)
    assert not EquipmentAlert.objects.exists()  # the beat has stopped: no sweep, no alert
    with time_machine.travel(T0 + timedelta(hours=25), tick=False):
        html = client_for(floorperson).get(reverse("dashboard")).content.decode()
    assert "TDF-1: Dice change OVERDUE by 1 h 00 min (no alert raised yet)" in html
    assert "within their time" not in html


def test_more_lost_dice_than_the_set_holds_is_a_form_message_not_an_error_page(
    tdf, place_dice, floorperson, dealer, client_for
):
    place_dice(tdf, T0)
    response = client_for(floorperson).post(
        reverse("equipment:dice-change", args=[tdf.pk]),
        {"reason": "die_lost", "dice_lost": "7", "identifiers": "LOT-Z", "colours": "4 green, 2 red",
         "dice_count": "6", "dealer": dealer.pk, "dealer_password": PASSWORD, "password": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 422
    assert "Dice lost must be between 0 and 6" in response.content.decode()
    assert DiceSet.objects.count() == 1


def test_a_shift_manager_is_told_on_the_form_that_the_floorperson_signs_the_inspection(
    sic_bo, shift_manager, client_for
):
    response = client_for(shift_manager).post(
        reverse("equipment:inspection-create", args=[sic_bo.pk]),
        {"value_1": "1", "value_2": "5", "value_3": "6", "combinations_illuminated": "on", "password": PASSWORD},
    )
    assert response.status_code == 422
    assert "does not stand in for the floorperson" in response.content.decode()


def test_a_corrected_set_shows_the_original_removal_and_is_logged_once(
    tdf, place_dice, floorperson, shift_manager, client_for
):
    from compliance.services import record_correct

    original = place_dice(tdf, T0)
    place_dice(tdf, T0 + timedelta(hours=2), identifiers="LOT-B", reason="damaged")
    original.refresh_from_db()
    correction = record_correct(
        original=original, reason="Typo in the lot", user=shift_manager, changes={"identifiers": "LOT-A-CORR"}
    )
    client = client_for(floorperson)
    page = client.get(reverse("equipment:dice-detail", args=[correction.pk])).content.decode()
    assert "still in play" not in page
    assert "Chipped, scratched or no longer suitable for play" in page and "removal recorded on the original" in page
    log = client.get(reverse("equipment:dice-log")).content.decode()
    assert "LOT-A-CORR" in log and "LOT-A 001-006" not in log


def _awaiting_names(user: Any, facility: Any) -> tuple[list[str], int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from compliance.selectors import records_awaiting_signature

    with CaptureQueriesContext(connection) as queries:
        names = [f"{record} — {requirement.label}" for record, requirement in
                 records_awaiting_signature(user, facility)]
    return names, len(queries.captured_queries)


def test_the_awaiting_list_names_twenty_sets_with_the_queries_of_two(tdf, facility, floorperson, dealer):
    """Issue 27 (no query per row): each dice set's name reads its table; the list joins it (``named_with``)."""
    def unsigned_sets(count: int) -> None:
        for n in range(count):
            DiceSet.objects.create(facility=facility, table=tdf, placed_at=T0, due_at=T0 + timedelta(hours=24),
                                   removed_at=T0 + timedelta(hours=1), floorperson=floorperson, dealer=dealer,
                                   identifiers=f"LOT-{n:03}", dice_count=3, container="dice_cup")

    _awaiting_names(floorperson, facility)  # the record types' content types read once, as any page reads them
    unsigned_sets(2)
    names, few = _awaiting_names(floorperson, facility)
    assert [n for n in names if n.startswith("Dice LOT-")] == [
        f"Dice LOT-00{n} at TDF-1 — Floorperson placing the set in play" for n in (1, 0)]
    unsigned_sets(18)
    names, many = _awaiting_names(floorperson, facility)
    assert len([n for n in names if n.startswith("Dice LOT-")]) == 20
    assert many == few
