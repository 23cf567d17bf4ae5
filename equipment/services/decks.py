"""Cards in and out of play (Asia Poker): inspected by the dealer and verified by the floorperson
(§ 575.4(a)), one deck or two with a shuffler (§ 575.3), changed on the clock of § 575.3(c)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from compliance.actors import acts_as_user
from compliance.floor_assignments import require_assigned_floorperson
from compliance.models import GamingTable
from compliance.roles import Capability
from compliance.services import CoSigner, record_cosign, record_sign
from equipment import selectors
from equipment.clocks import after, local_words
from equipment.floor import check_floorperson
from equipment.models import DeckRemoval, DeckSet, EquipmentRequirement, Malfunction, RemovalReason
from equipment.opening import OpeningFacts, configuration_needs
from equipment.services._common import RemovalWords, removal_checks, removal_finish, table_for_writing

__all__ = ["deck_set_change", "deck_set_place"]

_CARDS = RemovalWords(things="cards", placed="were put in play", new="the new cards")


# --- placing: named checks, in the order the refusals are given ----------------------------------------------


def _check_cards_game_and_dealer(table: GamingTable, requirement: EquipmentRequirement, user: Any, dealer: Any) -> None:
    if not requirement.uses_decks:
        raise ValidationError(f"{table.game} has no deck-change log.")
    check_floorperson(user, duty="verifying the dealer's inspection of the cards", citation="575.4(a)")
    if dealer is None or dealer.pk == user.pk:
        raise ValidationError("The dealer inspects the cards and a different person, the floorperson, verifies it.")


def _back_colours(requirement: EquipmentRequirement, deck_count: int, back_colours: str, shuffler: bool) -> list[str]:
    """The back colour of each deck: two decks only with a shuffler and different backs (§ 575.3(b))."""
    if deck_count not in (1, 2) or deck_count > requirement.max_decks:
        raise ValidationError("Asia Poker is played with one deck, or two with an automated shuffler (§ 575.3).")
    colours = [c.strip().lower() for c in back_colours.replace(",", "/").split("/") if c.strip()]
    if deck_count == 2:
        if not shuffler:
            raise ValidationError("Two decks may be used only with an automated card shuffling device (§ 575.3(b)).")
        if len(colours) != 2 or colours[0] == colours[1]:
            raise ValidationError(
                "With two decks, the backs of one deck are a different colour from the other (§ 575.3(b)(1)): "
                "enter both colours, e.g. red / blue."
            )
    elif not colours:
        raise ValidationError("Enter the back colour of the deck.")
    return colours


def _check_jokers(jokers_per_deck: int, second_joker_torn: bool) -> None:
    if jokers_per_deck not in (1, 2):
        raise ValidationError("A deck has one joker, or two of which only one is used (§ 575.3(a)).")
    if jokers_per_deck == 2 and not second_joker_torn:
        raise ValidationError(
            "The deck came with two jokers: tear the second in half and put it back in the deck's box before "
            "play (§ 575.4(b))."
        )


def _change_hours(table: GamingTable, requirement: EquipmentRequirement, dealt_from: str) -> int:
    """§ 575.3(c): at least every 4 hours by hand, every 8 hours from a manual or automated shoe."""
    if dealt_from == DeckSet.DealtFrom.HAND:
        hours = requirement.deck_hand_hours
    elif dealt_from in (DeckSet.DealtFrom.MANUAL_SHOE, DeckSet.DealtFrom.AUTOMATED_SHOE):
        hours = requirement.deck_shoe_hours
    else:
        raise ValidationError(f"Unknown dealing method {dealt_from!r}.")
    if not hours:
        raise ValidationError(f"No deck-change interval is recorded for {table.game}.")
    return hours


def _check_no_cards_in_play(table: GamingTable) -> None:
    current = selectors.decks_in_play(table)
    if current is not None:
        raise ValidationError(
            f"Table {table.number} already has the cards put in play at "
            f"{local_words(current.placed_at, table.facility)}: record their removal first."
        )


def _check_devices_in_service(table: GamingTable, deck_count: int, dealt_from: str, shuffler: bool) -> None:
    """§ 575.13(n): a shoe or shuffler signed out of order stays out of use until it is recorded back
    in service; cards that would need it are refused meanwhile."""
    needs = set()
    if dealt_from == DeckSet.DealtFrom.AUTOMATED_SHOE:
        needs.add(Malfunction.Device.DEALING_SHOE)
    if shuffler or deck_count > 1:
        needs.add(Malfunction.Device.CARD_SHUFFLER)
    for malfunction in selectors.devices_out_of_use(table):
        if malfunction.device in needs:
            label = malfunction.get_device_display().lower()
            raise ValidationError(
                f"The {label} of table {table.number} was signed out of order at "
                f"{local_words(malfunction.occurred_at, table.facility)} (§ 575.13(n)) and is not recorded back in "
                "service: deal one deck by hand (§ 575.3(b), (c)(1)), or record the device back in service first."
            )


def _check_configuration(table: GamingTable, requirement: EquipmentRequirement, dealt_from: str, shuffler: bool
                         ) -> None:
    """Asia Poker's configuration (the readiness rule ``equipment.opening.configuration_needs``, refused here
    before the cards go in play): from the hand only with an automated shuffler (§ 575.9(a)(1)); a flat-button
    table only with an automated shuffler and an automated dealing shoe (§ 575.5(g)(3))."""
    if not requirement.dice_method_per_table:
        return
    method = selectors.dice_method_of(table)
    facts = OpeningFacts(number=table.number, dice_method=method.method if method is not None else None,
                         deck_dealt_from=dealt_from, deck_shuffler=shuffler)
    needs = configuration_needs(facts, requirement)
    if needs:
        raise ValidationError(needs[0].words)


def _place(
    *,
    table: GamingTable,
    requirement: EquipmentRequirement,
    user: Any,
    password: str,
    dealer: Any,
    dealer_password: str,
    deck_count: int,
    back_colours: str,
    dealt_from: str,
    automated_shuffler: bool = False,
    jokers_per_deck: int = 1,
    second_joker_torn: bool = False,
    identifiers: str = "",
    at: datetime,
) -> DeckSet:
    """Put cards in play at a table already locked for this user."""
    _check_cards_game_and_dealer(table, requirement, user, dealer)
    require_assigned_floorperson(table, user, at, "575.4(a)", "verifying the dealer's inspection of the cards")
    colours = _back_colours(requirement, deck_count, back_colours, automated_shuffler)
    _check_jokers(jokers_per_deck, second_joker_torn)
    hours = _change_hours(table, requirement, dealt_from)
    _check_devices_in_service(table, deck_count, dealt_from, automated_shuffler)
    _check_configuration(table, requirement, dealt_from, automated_shuffler)
    _check_no_cards_in_play(table)
    try:
        with transaction.atomic():
            deck = DeckSet.objects.create(
                facility_id=table.facility_id,
                table=table,
                placed_at=at,
                due_at=after(at, timedelta(hours=hours)),
                floorperson=user,
                dealer=dealer,
                deck_count=deck_count,
                back_colours=" / ".join(colours),
                identifiers=identifiers.strip(),
                dealt_from=dealt_from,
                automated_shuffler=automated_shuffler,
                jokers_per_deck=jokers_per_deck,
                second_joker_torn=second_joker_torn,
            )
    except IntegrityError:
        raise ValidationError(f"Other cards were just put in play at table {table.number}.") from None
    record_cosign(record=deck, slot="dealer", co_signer=CoSigner(dealer, dealer_password))
    record_sign(record=deck, slot="floorperson", user=user, password=password)
    return deck


@transaction.atomic
@acts_as_user
def deck_set_place(
    *,
    table: GamingTable,
    user: Any,
    password: str,
    dealer: Any,
    dealer_password: str,
    deck_count: int,
    back_colours: str,
    dealt_from: str,
    automated_shuffler: bool = False,
    jokers_per_deck: int = 1,
    second_joker_torn: bool = False,
    identifiers: str = "",
    at: datetime | None = None,
) -> DeckSet:
    """Put cards into play: the dealer inspected them and the floorperson verified it (§ 575.4(a))."""
    table = table_for_writing(table=table, user=user, capability=Capability.VERIFY_EQUIPMENT)
    at = at or timezone.now()
    return _place(
        table=table,
        requirement=selectors.requirement_for(table),
        user=user,
        password=password,
        dealer=dealer,
        dealer_password=dealer_password,
        deck_count=deck_count,
        back_colours=back_colours,
        dealt_from=dealt_from,
        automated_shuffler=automated_shuffler,
        jokers_per_deck=jokers_per_deck,
        second_joker_torn=second_joker_torn,
        identifiers=identifiers,
        at=at,
    )


# --- removing and changing -----------------------------------------------------------------------------------


def _remove(
    *,
    table: GamingTable,
    deck_set: DeckSet,
    user: Any,
    password: str,
    reason: str,
    note: str,
    at: datetime,
    replacing: bool,
) -> DeckRemoval:
    """Remove the cards at a table already locked for this user."""
    check_floorperson(user, duty="removing the cards", citation="575.4(a)")
    deck_set = removal_checks(
        table=table,
        in_play=deck_set,
        reason=reason,
        at=at,
        replacing=replacing,
        words=_CARDS,
        check=lambda locked: None,
        open_table_citation=lambda t: "575.3(c)",
    )
    removal = DeckRemoval.objects.create(
        facility_id=table.facility_id, deck_set=deck_set, removed_at=at, reason=reason, note=note
    )
    removal_finish(removal=removal, in_play=deck_set, user=user, password=password, at=at)
    return removal


@transaction.atomic
@acts_as_user
def deck_set_change(
    *,
    table: GamingTable,
    user: Any,
    password: str,
    reason: str = RemovalReason.SCHEDULED,
    note: str = "",
    at: datetime | None = None,
    **new_deck: Any,
) -> DeckSet:
    """Replace the cards in play (if any) with new ones in one step (``new_deck``: the arguments of
    :func:`deck_set_place`); the table is checked and locked once, for both."""
    table = table_for_writing(table=table, user=user, capability=Capability.VERIFY_EQUIPMENT)
    at = at or timezone.now()
    requirement = selectors.requirement_for(table)
    current = selectors.decks_in_play(table)
    if current is not None:
        _remove(
            table=table, deck_set=current, user=user, password=password, reason=reason, note=note, at=at, replacing=True
        )
    return _place(table=table, requirement=requirement, user=user, password=password, at=at, **new_deck)
