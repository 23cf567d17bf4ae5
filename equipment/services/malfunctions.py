"""Device malfunctions (§ 539.7, § 575.13): what happened to the round, as the clause requires; a
Sic Bo display malfunction stops gaming at the table (§ 539.7(b)); a shoe or shuffler signed out of
order takes the cards that depend on it out of play (§ 575.13(n)). Each device stays out of use
until it is recorded back in service (:func:`device_back_in_service`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from compliance.actors import acts_as_user
from compliance.models import GamingTable
from compliance.roles import Capability
from compliance.services import record_sign
from equipment import selectors
from equipment.clocks import local_words
from equipment.floor import check_floorperson_or_above
from equipment.models import DeckSet, DeviceBackInService, Malfunction, RemovalReason
from equipment.services._common import table_for_writing
from equipment.services.decks import deck_set_change
from equipment.services.tables import table_stop

__all__ = ["device_back_in_service", "malfunction_record"]

_CARD_DEVICES = {Malfunction.Device.CARD_SHUFFLER, Malfunction.Device.DEALING_SHOE}


def _uses_device(deck: DeckSet | None, device: str, new: dict[str, Any] | None = None) -> bool:
    """Whether cards (in play, or about to be) depend on the shoe or the shuffler."""
    if device == Malfunction.Device.DEALING_SHOE:
        dealt_from = new.get("dealt_from") if new is not None else deck and deck.dealt_from
        return dealt_from == DeckSet.DealtFrom.AUTOMATED_SHOE
    shuffler = new.get("automated_shuffler", False) if new is not None else deck and deck.automated_shuffler
    deck_count = new.get("deck_count", 1) if new is not None else 1
    return bool(shuffler) or deck_count > 1


def _change_cards_off_device(
    *, table: GamingTable, user: Any, password: str, device: str, at: datetime, new: dict[str, Any] | None
) -> None:
    deck = selectors.decks_in_play(table)
    if deck is None or not _uses_device(deck, device):
        return
    label = Malfunction.Device(device).label.lower()
    if new is None:
        raise ValidationError(
            f"The {label} is out of order (§ 575.13(n)), and the cards in play at table {table.number} (put in play "
            f"at {local_words(deck.placed_at, table.facility)}) depend on it. Change the cards in the same step: one deck from a manual "
            "shoe, or dealt by hand with a working automated shuffler (§ 575.9(a)(1)), changed within 4 hours by hand "
            "(§ 575.3(c)(1)); two decks need a working shuffler (§ 575.3(b)). Or "
            "change the cards first (reason “Shoe or shuffler out of order”), then record the malfunction."
        )
    if _uses_device(None, device, new):
        raise ValidationError(
            f"The {label} is out of order (§ 575.13(n)): the new cards are one deck put in play without it, dealt by "
            "hand (with a working automated shuffler, § 575.9(a)(1)) or from a manual shoe (§ 575.3(b), (c))."
        )
    deck_set_change(table=table, user=user, password=password, reason=RemovalReason.DEVICE_OUT_OF_ORDER, at=at, **new)


def _check_round_outcome(table: GamingTable, device: str, round_outcome: str) -> None:
    if device not in selectors.devices_for(selectors.requirement_for(table)):
        raise ValidationError(f"{table.game} has no {Malfunction.Device(device).label.lower()}.")
    expected, clause = Malfunction.OUTCOMES[device]
    if round_outcome != expected:
        raise ValidationError(
            f"When the {Malfunction.Device(device).label.lower()} malfunctions, § {clause} requires: "
            f"{Malfunction.RoundOutcome(expected).label.lower()}."
        )


@transaction.atomic
@acts_as_user
def malfunction_record(
    *,
    table: GamingTable,
    user: Any,
    password: str,
    device: str,
    description: str,
    round_outcome: str,
    out_of_order: bool = False,
    at: datetime | None = None,
    replacement: dict[str, Any] | None = None,
) -> Malfunction:
    """Record a device malfunction and what happened to the round, as the clause requires.

    A dealing shoe or card shuffler signed out of order (§ 575.13(n)) ends the play that depended on
    it. Reading (docs/equipment.md): the cards in play leave play in the same step and new cards are
    put in play without the device (``replacement``: the arguments of :func:`deck_set_place`), so
    cards dealt by hand run on the 4-hour clock of § 575.3(c)(1) from their placement, and two-deck
    play, which needs a working shuffler (§ 575.3(b)), ends. Without a replacement it is refused, the
    message saying what to do; cards already changed to play without the device need nothing more.
    """
    table = table_for_writing(table=table, user=user, capability=Capability.VERIFY_EQUIPMENT)
    check_floorperson_or_above(user, duty="a malfunction", citation="539.7(b)")
    at = at or timezone.now()
    _check_round_outcome(table, device, round_outcome)
    if not description.strip():
        raise ValidationError("Describe what happened.")
    if out_of_order and device in _CARD_DEVICES:
        _change_cards_off_device(table=table, user=user, password=password, device=device, at=at, new=replacement)
    malfunction = Malfunction.objects.create(
        facility_id=table.facility_id,
        table=table,
        occurred_at=at,
        device=device,
        description=description.strip(),
        round_outcome=round_outcome,
        out_of_order=out_of_order,
    )
    record_sign(record=malfunction, slot="floorperson", user=user, password=password)
    if device in Malfunction.STOPS_GAMING and table.is_open:
        # § 539.7(b): "all gaming at the Sic Bo table shall cease until [the device] has been fixed".
        table_stop(table=table, user=user, at=at)
    return malfunction


@transaction.atomic
@acts_as_user
def device_back_in_service(
    *, malfunction: Malfunction, user: Any, password: str, repair: str, at: datetime | None = None
) -> DeviceBackInService:
    """Record a device taken out of use by a malfunction fixed and back in service, signed by a
    floorperson or above. A Sic Bo table stopped by § 539.7(b) then opens after a passing opening
    inspection made after this record (§ 539.5(a)); a shoe or shuffler may be used again (§ 575.13(n))."""
    table = table_for_writing(table=malfunction.table, user=user, capability=Capability.VERIFY_EQUIPMENT)
    check_floorperson_or_above(user, duty="a device back in service", citation=malfunction.clause)
    at = at or timezone.now()
    label = malfunction.get_device_display().lower()
    if not malfunction.takes_out_of_use:
        raise ValidationError(f"The {label} was not taken out of use by this malfunction; nothing to put back.")
    if selectors.back_in_service_of(malfunction) is not None:
        raise ValidationError(f"The {label} is already recorded back in service.")
    if at < malfunction.occurred_at:
        raise ValidationError(f"The {label} cannot be back in service before it malfunctioned.")
    if not repair.strip():
        raise ValidationError(f"Say what was done to the {label} (fixed, replaced, tested).")
    record = DeviceBackInService.objects.create(
        facility_id=table.facility_id, table=table, malfunction=malfunction, returned_at=at, repair=repair.strip()
    )
    record_sign(record=record, slot="floorperson", user=user, password=password)
    return record
