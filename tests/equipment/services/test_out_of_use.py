"""Issue 8, item 10: malfunctions stop play. A Sic Bo display malfunction closes the table until the
device is recorded back in service and a passing opening inspection is made (§ 539.7(b), § 539.5(a));
a shoe or shuffler signed out of order stays out of use until recorded back in service (§ 575.13(n))."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError

from equipment import services
from equipment.models import DeviceBackInService, Malfunction
from tests.equipment.conftest import T0, record_malfunction
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def _display_malfunction(table, user, at):
    return record_malfunction(table, user, "sic_bo_display", at)


def test_a_sic_bo_display_malfunction_stops_gaming_until_fixed_and_inspected(
    sic_bo, place_dice, inspect, floorperson, open_at
):
    place_dice(sic_bo, T0)
    inspect(sic_bo, T0)
    open_at(sic_bo, floorperson, T0 + timedelta(minutes=1))
    malfunction = _display_malfunction(sic_bo, floorperson, T0 + timedelta(minutes=30))
    sic_bo.refresh_from_db()
    assert not sic_bo.is_open  # § 539.7(b): all gaming at the table ceases
    with pytest.raises(ValidationError, match=r"stopped when the sic bo electrical device .*§ 539.7\(b\)"):
        place_dice(sic_bo, T0 + timedelta(minutes=40))
    with pytest.raises(ValidationError, match="record it fixed and back in service"):
        open_at(sic_bo, floorperson, T0 + timedelta(minutes=41))
    with pytest.raises(ValidationError, match="before the opening inspection"):
        inspect(sic_bo, T0 + timedelta(minutes=42))

    back = services.device_back_in_service(
        malfunction=malfunction, user=floorperson, password=PASSWORD, repair="Replaced the display board; tested",
        at=T0 + timedelta(hours=1),
    )  # fmt: skip
    assert back.is_complete and back.history.count() == 1
    with pytest.raises(ValidationError, match="has not been inspected since it last closed"):
        open_at(sic_bo, floorperson, T0 + timedelta(hours=1, minutes=1))
    inspect(sic_bo, T0 + timedelta(hours=1, minutes=2))
    place_dice(sic_bo, T0 + timedelta(hours=1, minutes=3))
    assert open_at(sic_bo, floorperson, T0 + timedelta(hours=1, minutes=4))


def test_a_device_is_put_back_in_service_once(sic_bo, floorperson):
    malfunction = _display_malfunction(sic_bo, floorperson, T0)
    services.device_back_in_service(malfunction=malfunction, user=floorperson, password=PASSWORD, repair="Fixed")
    with pytest.raises(ValidationError, match="already recorded back in service"):
        services.device_back_in_service(malfunction=malfunction, user=floorperson, password=PASSWORD, repair="Again")
    assert DeviceBackInService.objects.count() == 1


@pytest.fixture
def shoe_out_of_order(asia, place_decks, floorperson, dealer, open_at):
    place_decks(asia, T0, dealt_from="automated_shoe")
    open_at(asia, floorperson, T0 + timedelta(minutes=1))
    return services.malfunction_record(
        table=asia,
        user=floorperson,
        password=PASSWORD,
        device="dealing_shoe",
        description="Shoe jammed and will not deal",
        round_outcome="void_reshuffled",
        out_of_order=True,
        at=T0 + timedelta(hours=1),
        replacement={
            "dealer": dealer,
            "dealer_password": PASSWORD,
            "deck_count": 1,
            "back_colours": "blue",
            "dealt_from": "hand",
            "automated_shuffler": True,  # the shoe failed, not the shuffler (§ 575.9(a)(1))
        },
    )


def test_cards_from_a_shoe_out_of_order_are_refused_until_it_is_back_in_service(
    asia, shoe_out_of_order, place_decks, floorperson
):
    assert shoe_out_of_order.takes_out_of_use
    with pytest.raises(ValidationError, match=r"signed out of order .*§ 575.13\(n\).* not recorded back in service"):
        place_decks(asia, T0 + timedelta(hours=1, minutes=5), dealt_from="automated_shoe")
    # dealing by hand meanwhile is fine
    place_decks(asia, T0 + timedelta(hours=1, minutes=6), dealt_from="hand", back_colours="red")
    services.device_back_in_service(
        malfunction=shoe_out_of_order, user=floorperson, password=PASSWORD, repair="Cleared the jam; dealt 3 rounds",
        at=T0 + timedelta(hours=2),
    )  # fmt: skip
    assert place_decks(asia, T0 + timedelta(hours=2, minutes=1), dealt_from="automated_shoe").is_complete
    assert not Malfunction.objects.filter(Malfunction.out_of_use()).exists()
