"""Who may stand as the floorperson: one reading of the chapters, applied by every equipment service
and every signature that names the floorperson (issue 8, item 12).

The chapters say two different things, and say each on purpose, sometimes in the same chapter:

* "the floorperson": § 539.5(a) ("the floorperson assigned to the Sic Bo table shall inspect"),
  § 575.4(a) ("The floorperson assigned to the table shall verify the inspection"), § 575.4(b)
  ("the dealer and a floorperson"), § 668a.3(d) ("The floorperson, in the presence of the dealer,
  shall place the dice"). These are the table's floorperson's own duties.
* "a floorperson or above": § 539.7(b) (wagers settled "in the presence of a floorperson or above"),
  § 575.5 (shuffle "directed by the floorperson or above"; a recut required by "a floorperson or
  above"). Here any supervisor of the pit will do.

Where chapter 539 and chapter 575 want a supervisor above the floorperson to do, they say "or
above"; in the same chapters the opening inspection and the verification of the cards do not. So a
duty given to "the floorperson" is the floorperson's: a table games shift manager does not stand as
the floorperson for it (placing and removing dice and cards, verifying the dealer's inspection of
the cards, the Sic Bo opening inspection). § 577.4(d) names no one for the dice change; the change is
part of the placement of § 668a.3(d), so it follows the same rule. A shift manager who works a shift
as a table's floorperson holds the floorperson role as well (roles are held together). Recording a
malfunction (settled before "a floorperson or above", § 539.7(b)) and recording a device back in
service, which no clause gives to anyone, accept a floorperson or above.

This module imports nothing from the app, so models (signature requirements) and services (checks
in words before anything is written) read the same two constants.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from compliance.roles import Role, roles_of

__all__ = [
    "FLOORPERSON_OR_ABOVE",
    "THE_FLOORPERSON",
    "check_floorperson",
    "check_floorperson_or_above",
    "stands_as_floorperson",
]

# § 539.5(a), § 575.4(a)–(b), § 668a.3(d) (and the dice change of § 577.4(d)).
THE_FLOORPERSON: frozenset[Role] = frozenset({Role.FLOORPERSON})
# § 539.7(b), § 575.5: "a floorperson or above".
FLOORPERSON_OR_ABOVE: frozenset[Role] = frozenset({Role.FLOORPERSON, Role.SHIFT_MANAGER})


def stands_as_floorperson(user: Any, *, or_above: bool = False) -> bool:
    """Whether the person may stand as the floorperson (``or_above``: "a floorperson or above")."""
    return bool(roles_of(user) & (FLOORPERSON_OR_ABOVE if or_above else THE_FLOORPERSON))


def check_floorperson(user: Any, *, duty: str, citation: str) -> None:
    """Refuse in words, before anything is written, a person who may not stand as the floorperson."""
    if not roles_of(user) & THE_FLOORPERSON:
        raise ValidationError(
            f"{duty[:1].upper()}{duty[1:]} is the floorperson's duty (§ {citation}); a shift manager or any other "
            "role does not stand in for the floorperson. Ask the floorperson of the table to record it."
        )


def check_floorperson_or_above(user: Any, *, duty: str, citation: str) -> None:
    if not roles_of(user) & FLOORPERSON_OR_ABOVE:
        raise ValidationError(
            f"{duty[:1].upper()}{duty[1:]} is recorded by a floorperson or above (§ {citation}); ask the "
            "floorperson or the shift manager to record it."
        )
