"""Demo data: a facility, one person per role and tables of each Subpart K game."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from compliance.accounts import needs_second_factor, totp_secret
from compliance.actors import acting_as
from compliance.models import Department, Facility, Game, GamingTable, Profile
from compliance.roles import Role
from compliance.services import profile_create

__all__ = ["DEMO_PEOPLE", "DemoLogin", "demo_person", "demo_seed", "signing_passwords"]


@dataclass(frozen=True)
class DemoPerson:
    username: str
    full_name: str
    credential: str
    department: str
    role: Role


DEMO_PEOPLE: tuple[DemoPerson, ...] = (
    DemoPerson("finance", "Frances Finley", "PGCB-100101", Department.FINANCE, Role.FINANCE_STAFF),
    DemoPerson("finsup", "Felix Supervisor", "PGCB-100102", Department.FINANCE, Role.FINANCE_SUPERVISOR),
    DemoPerson("marketing", "Maria Marquez", "PGCB-100201", Department.MARKETING, Role.MARKETING_STAFF),
    DemoPerson("mktsup", "Martin Keller", "PGCB-100202", Department.MARKETING, Role.MARKETING_SUPERVISOR),
    DemoPerson("dealer", "Dana Dealer", "PGCB-100301", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("floor", "Floyd Pearson", "PGCB-100302", Department.TABLE_GAMES, Role.FLOORPERSON),
    DemoPerson("shiftmgr", "Sheila Manning", "PGCB-100303", Department.TABLE_GAMES, Role.SHIFT_MANAGER),
    DemoPerson("surveillance", "Sam Watts", "PGCB-100401", Department.SURVEILLANCE, Role.SURVEILLANCE),
    DemoPerson("compliance", "Connie Officer", "PGCB-100501", Department.COMPLIANCE, Role.COMPLIANCE_OFFICER),
    DemoPerson("inspector", "Ian Inspector", "PGCB-900001", Department.COMPLIANCE, Role.BOARD_INSPECTOR),
    DemoPerson("admin", "Ada Administrator", "PGCB-100601", Department.COMPLIANCE, Role.ADMINISTRATOR),
    # The rest of the day's floor crew (compliance/staffing/demo.py places them): three dealers at each Three Dice
    # Football table, one as stickperson (§ 577.9(b)), a craps crew, a dealer at each other open table, and two
    # more floorpersons, so every table's floorperson keeps within the span of § 577.9(c). Some names need more
    # than Latin-1 (the documents print them).
    DemoPerson("dealer2", "Łukasz Żółć", "PGCB-100304", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("dealer3", "Nguyễn Văn An", "PGCB-100305", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("dealer4", "王小明", "PGCB-100306", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("dealer5", "Priya Raman", "PGCB-100307", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("dealer6", "Marcus Bell", "PGCB-100308", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("dealer7", "Rosa Delgado", "PGCB-100309", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("dealer8", "Tom Kowalski", "PGCB-100310", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("dealer9", "Aisha Bello", "PGCB-100311", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("dealer10", "Kevin O'Hara", "PGCB-100312", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("dealer11", "Mei Chen", "PGCB-100313", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("dealer12", "Jamal Wright", "PGCB-100314", Department.TABLE_GAMES, Role.DEALER),
    DemoPerson("floor2", "Fiona Reyes", "PGCB-100320", Department.TABLE_GAMES, Role.FLOORPERSON),
    DemoPerson("floor3", "Frank Osei", "PGCB-100321", Department.TABLE_GAMES, Role.FLOORPERSON),
)

# (number, game code, pit)
DEMO_TABLES = [
    ("TDF-1", "three-dice-football", "Pit 1"),
    ("TDF-2", "three-dice-football", "Pit 1"),
    ("HRD-1", "high-roll-dice", "Pit 2"),
    ("PH-1", "props-and-hops", "Pit 2"),
    ("SB-1", "sic-bo", "Pit 3"),
    ("SB-2", "sic-bo", "Pit 3"),
    ("AP-1", "asia-poker", "Pit 4"),
    ("AP-2", "asia-poker", "Pit 4"),
    ("CR-1", "craps", "Pit 5"),
    ("RL-1", "roulette", "Pit 5"),
]


@dataclass(frozen=True)
class DemoLogin:
    username: str
    password: str
    role: str
    full_name: str
    totp_secret: str = ""


def _demo_password(user: Any, password: str) -> None:
    """A demo password counts as the person's own (set acting as them): a newcomer trying the demo signs
    in and signs at once. A real person's password set by someone else is temporary (compliance.accounts)."""
    with acting_as(user):
        user.set_password(password)
        user.save(update_fields=["password"])


def _demo_totp(user: Any) -> str:
    """The TOTP secret of the person's confirmed demo authenticator ("" for roles that need none)."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    if not needs_second_factor(user):
        return ""
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name="Demo authenticator", confirmed=True)
    return totp_secret(device)


@transaction.atomic
def demo_seed(*, facility_code: str = "demo", reset_passwords: bool = False) -> tuple[Facility, list[DemoLogin]]:
    """Create (or top up) the demo facility; returns logins whose passwords were (re)set now."""
    facility, _ = Facility.objects.get_or_create(
        code=facility_code,
        defaults={
            "name": "Keystone Downs Casino",
            "certificate_holder": "Keystone Downs Gaming, LLC",
            "address": "1 Casino Way, Harrisburg, PA 17101",
            # Where the audit chain's anchors go at the Board (a demo address: mail stays on this machine).
            "board_recipients": "anchors@pgcb.example",
        },
    )
    logins: list[DemoLogin] = []
    for person in DEMO_PEOPLE:
        profile = Profile.objects.filter(credential_number=person.credential).select_related("user").first()
        password = secrets.token_urlsafe(12)
        if profile is None:
            user = profile_create(
                username=person.username,
                full_name=person.full_name,
                credential_number=person.credential,
                department_code=person.department,
                roles=[person.role],
                facilities=[facility],
                email=f"{person.username}@demo.invalid",
            )
        elif reset_passwords:
            user = profile.user
        else:
            continue
        _demo_password(user, password)
        logins.append(DemoLogin(person.username, password, person.role.label, person.full_name, _demo_totp(user)))
    games = {g.code: g for g in Game.objects.all()}
    existing = set(GamingTable.objects.filter(facility=facility).values_list("number", flat=True))
    for number, game_code, pit in DEMO_TABLES:
        if number not in existing:
            GamingTable.objects.create(facility=facility, number=number, game=games[game_code], pit=pit)
    return facility, logins


@contextmanager
def signing_passwords(people: Iterable[Any]) -> Iterator[str]:
    """Signatures need passwords: for the seeding, the demo people share a throwaway password (set with no one
    acting, so it counts as their own), and their passwords are set back to what they were afterwards."""
    people = list(people)
    temporary = secrets.token_urlsafe(16)
    saved = {}
    for user in people:
        saved[user.pk] = user.password
        user.set_password(temporary)
        user.save(update_fields=["password"])
    try:
        yield temporary
    finally:
        for user in people:
            user.password = saved[user.pk]
            user.save(update_fields=["password"])


def demo_person(facility: Facility, role: Role) -> Any:
    """The demo facility's first person holding ``role`` (the seeds sign as them)."""
    from compliance.selectors import people_holding

    user = people_holding(facility, [role]).order_by("pk").first()
    if user is None:
        raise RuntimeError(f"The demo facility has no {role.label}; run `manage.py seed_demo` first.")
    return user
