"""What a table needs before it opens: one pure rule, read by the opening service (which refuses with
the first need's words) and by the live board (which lists every need of a closed table).

No database: the facts come from ``selectors.opening_facts`` (one query, the board's own).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from equipment.clocks import INSPECTION_VALID_FOR
from equipment.models import DiceMethod, EquipmentRequirement

__all__ = ["Need", "OpeningFacts", "configuration_needs", "dice_required", "opening_needs", "while_open_needs"]


@dataclass(frozen=True)
class OpeningFacts:
    """What is known about a table at one instant."""

    number: str
    dice_placed_at: datetime | None = None
    dice_due_at: datetime | None = None
    deck_placed_at: datetime | None = None
    deck_due_at: datetime | None = None
    last_closed_at: datetime | None = None
    last_opened_at: datetime | None = None
    inspected_at: datetime | None = None  # latest inspection within INSPECTION_VALID_FOR before the instant
    inspection_passed: bool = False
    stopped_device: str = ""  # a device whose malfunction stopped gaming and is not back in service
    stopped_since: datetime | None = None
    stopped_clause: str = ""
    back_in_service_at: datetime | None = None  # latest such device recorded back in service
    dice_method: str | None = None
    deck_dealt_from: str = ""  # the cards in play: "hand", "manual_shoe" or "automated_shoe"
    deck_shuffler: bool = False  # ... shuffled by an automated card shuffling device


@dataclass(frozen=True)
class Need:
    code: str  # "device", "inspection", "method", "dice", "cards"
    short: str  # what the board shows: "new dice"
    words: str  # the refusal, citing the clause
    clause: str = ""  # the clause the need comes from


When = Callable[[datetime], str]


def dice_required(requirement: EquipmentRequirement, method: str | None) -> bool:
    """Dice in play to open: the game says so, or (Asia Poker, § 575.2(c)(1)) the table uses the shaker."""
    if requirement.dice_method_per_table:
        return method == DiceMethod.SHAKER
    return requirement.uses_dice and requirement.dice_required_to_open


def _device(facts: OpeningFacts, when: When) -> list[Need]:
    if not facts.stopped_device or facts.stopped_since is None:
        return []
    return [
        Need(
            "device",
            "device back in service",
            f"Gaming at table {facts.number} stopped when the {facts.stopped_device.lower()} malfunctioned at "
            f"{when(facts.stopped_since)} (§ {facts.stopped_clause}): record it fixed and back in service, then "
            "make a passing opening inspection, before the table opens or its dice change.",
            facts.stopped_clause,
        )
    ]


def _inspection(facts: OpeningFacts, requirement: EquipmentRequirement, at: datetime) -> list[Need]:
    if not requirement.opening_inspection_required:
        return []
    # § 539.5(a): "prior to opening": a passing inspection made after the table last closed (and after
    # a stopped device came back in service) and within INSPECTION_VALID_FOR before the opening;
    # midnight plays no part: 23:50 opens 00:10.
    since = max(
        t for t in (at.astimezone(UTC) - INSPECTION_VALID_FOR, facts.last_closed_at, facts.back_in_service_at) if t
    )
    inspected = facts.inspected_at is not None and since <= facts.inspected_at <= at
    if inspected and facts.inspection_passed:
        return []
    hours = int(INSPECTION_VALID_FOR.total_seconds() // 3600)
    problem = (
        "failed its last inspection"
        if inspected
        else f"has not been inspected since it last closed and within {hours} hours before opening"
    )
    return [
        Need(
            "inspection",
            "a passing opening inspection",
            f"Table {facts.number} {problem}: the floorperson inspects the electrical device (three values "
            f"entered, every winning combination lit) and any automated shaker (three operations) before "
            f"opening (§ {requirement.inspection_citation}).",
            requirement.inspection_citation,
        )
    ]


def _method(facts: OpeningFacts, requirement: EquipmentRequirement) -> list[Need]:
    if not requirement.dice_method_per_table or facts.dice_method:
        return []
    return [
        Need(
            "method",
            "its dice method recorded",
            f"Record how table {facts.number} determines the starting position before it opens (§ 575.2(c)): "
            "the Asia Poker shaker with three dice, a random number generator or a flat button.",
            "575.2(c)",
        )
    ]


def _dice(facts: OpeningFacts, requirement: EquipmentRequirement, at: datetime, when: When) -> list[Need]:
    cite = f"§ {requirement.dice_citation}"
    if facts.dice_placed_at is None or facts.dice_due_at is None:
        if not dice_required(requirement, facts.dice_method):
            return []
        shaker = " (this table uses the shaker, § 575.2(c)(1))" if requirement.dice_method_per_table else ""
        return [
            Need(
                "dice",
                "new dice",
                f"Table {facts.number} cannot open without a set of dice in play ({cite}){shaker}: put a new set "
                "in play.",
                requirement.dice_citation,
            )
        ]
    if at > facts.dice_due_at:
        return [
            Need(
                "dice",
                "new dice",
                f"Table {facts.number} cannot open with the dice placed at {when(facts.dice_placed_at)}: they are "
                f"past their {requirement.dice_max_hours}-hour limit ({cite}). Put a new set in play.",
                requirement.dice_citation,
            )
        ]
    # Reopening needs a set put in play after the table last closed: § 577.4(d) for Three Dice
    # Football, the facility's internal control for the other dice games. A set placed at or before
    # the last opening has been through a closing once the table is closed, recorded or not.
    used_before = (facts.last_closed_at is not None and facts.dice_placed_at < facts.last_closed_at) or (
        facts.last_opened_at is not None and facts.dice_placed_at <= facts.last_opened_at
    )
    if requirement.new_dice_on_reopen and used_before:
        return [
            Need(
                "dice",
                "new dice",
                f"Table {facts.number} cannot reopen with the dice placed at {when(facts.dice_placed_at)}: a new "
                f"set of dice is used when a table is reopened for gaming (§ 577.4(d); {cite}). Put a new set in play.",
                "577.4(d)" if requirement.game.code == "three-dice-football" else requirement.dice_citation,
            )
        ]
    return []


def _cards(facts: OpeningFacts, requirement: EquipmentRequirement, at: datetime, when: When) -> list[Need]:
    if not requirement.uses_decks:
        return []
    if facts.deck_placed_at is None or facts.deck_due_at is None:
        return [
            Need(
                "cards",
                "cards in play",
                f"Table {facts.number} cannot open without cards inspected by the dealer and verified by the "
                "floorperson (§ 575.4(a)): log the decks put into play.",
                "575.4(a)",
            )
        ]
    if at > facts.deck_due_at:
        return [
            Need(
                "cards",
                "new cards",
                f"Table {facts.number} cannot open with the cards put in play at {when(facts.deck_placed_at)}: "
                f"they are past their change time (§ {requirement.deck_citation}). Change the cards.",
                requirement.deck_citation,
            )
        ]
    return []


def configuration_needs(facts: OpeningFacts, requirement: EquipmentRequirement) -> list[Need]:
    """Asia Poker's table configuration, open or closed: cards dealt from the hand only with an automated
    shuffler (§ 575.9(a)(1)); the flat button only with an automated shuffler and an automated dealing shoe
    (§ 575.5(g)(3), "used under § 575.10")."""
    if not requirement.dice_method_per_table or not facts.deck_dealt_from:
        return []
    needs = []
    if facts.deck_dealt_from == "hand" and not facts.deck_shuffler:
        needs.append(Need("configuration", "an automated shuffler",
                          f"Table {facts.number} deals its cards from the hand without an automated shuffling device: "
                          "cards dealt from the hand are shuffled by an automated shuffler (§ 575.9(a)(1)). Put "
                          "cards in play shuffled by one, or dealt from a shoe.", "575.9(a)(1)"))
    if facts.dice_method == DiceMethod.FLAT_BUTTON and not (facts.deck_dealt_from == "automated_shoe"
                                                             and facts.deck_shuffler):
        needs.append(Need("configuration", "flat button needs shuffler and shoe",
                          f"Table {facts.number} uses the flat button, which is allowed only where an automated card "
                          "shuffling device and an automated dealing shoe are used (§ 575.5(g)(3)): put cards in "
                          "play that way, or record the shaker or random number generator instead.", "575.5(g)(3)"))
    return needs


def opening_needs(requirement: EquipmentRequirement, facts: OpeningFacts, at: datetime, when: When) -> list[Need]:
    """Everything the table lacks to open at ``at``, in the order the refusals are given."""
    return [
        *_device(facts, when),
        *_inspection(facts, requirement, at),
        *_method(facts, requirement),
        *configuration_needs(facts, requirement),
        *_dice(facts, requirement, at, when),
        *_cards(facts, requirement, at, when),
    ]


def while_open_needs(requirement: EquipmentRequirement, facts: OpeningFacts, at: datetime, when: When) -> list[Need]:
    """What an open table must keep: a device that stopped gaming back in service, its dice and cards in play
    and within their time, and its configuration. (The opening inspection and new dice on reopening are
    conditions of opening, met once the table opened.)"""
    needs = [*_device(facts, when), *configuration_needs(facts, requirement)]
    if facts.dice_placed_at is None or facts.dice_due_at is None:
        if dice_required(requirement, facts.dice_method):
            needs.append(Need("dice", "dice in play",
                              f"Table {facts.number} is open with no set of dice in play (§ {requirement.dice_citation}): "
                              "put a new set in play or close the table.", requirement.dice_citation))
    elif at > facts.dice_due_at:
        needs.append(Need("dice", "dice OVERDUE",
                          f"Table {facts.number} is gaming with the dice placed at {when(facts.dice_placed_at)}, past "
                          f"their {requirement.dice_max_hours}-hour limit (§ {requirement.dice_citation}): change "
                          "them now or close the table.", requirement.dice_citation))
    if requirement.uses_decks:
        if facts.deck_placed_at is None or facts.deck_due_at is None:
            needs.append(Need("cards", "cards in play",
                              f"Table {facts.number} is open with no cards in play logged (§ 575.4(a)): log the decks "
                              "put into play or close the table.", "575.4(a)"))
        elif at > facts.deck_due_at:
            needs.append(Need("cards", "cards OVERDUE",
                              f"Table {facts.number} is gaming with the cards put in play at "
                              f"{when(facts.deck_placed_at)}, past their change time (§ {requirement.deck_citation}): "
                              "change them now or close the table.", requirement.deck_citation))
    return needs
