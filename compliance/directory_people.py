"""A person as the directory describes them, and the service that makes their account here match it.

Read at every directory sign-in (compliance.directory): the name, the Board-issued credential number and the groups
of the person's directory entry become their profile, roles and facilities here. Each refusal says, in the person's
words, what IT must change in the directory. Imports nothing of django-auth-ldap: the entry comes in as plain values.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction

from compliance import accounts
from compliance.actors import acting_as, system_user
from compliance.models import Department, Facility, Profile
from compliance.roles import DEPARTMENT_OF_ROLE, Role, role_combination_refusal, role_label

__all__ = ["EVENT_DIRECTORY_SYNC", "DirectoryPerson", "DirectoryRefusal", "person_from_entry", "person_sync",
           "roles_withdraw"]

logger = logging.getLogger(__name__)

EVENT_DIRECTORY_SYNC = "Account brought up to date from the directory at sign-in"
_ASK_IT = "Ask the IT department to correct your directory entry, then sign in again."


class DirectoryRefusal(Exception):
    """The directory accepted the password, but this system refuses the sign-in; ``str()`` says why, to the person.
    ``withdraw_roles``: the directory gives the person no role any more, so their roles here go too."""

    def __init__(self, words: str, *, withdraw_roles: bool = False) -> None:
        super().__init__(words)
        self.withdraw_roles = withdraw_roles


@dataclass(frozen=True)
class DirectoryPerson:
    full_name: str
    credential_number: str
    roles: frozenset[Role]
    department_code: str
    groups: tuple[str, ...]  # the mapped groups they are in, for the audit trail
    facility_codes: frozenset[str] | None  # None: facilities are assigned in the admin, not by the directory


def _first(attrs: dict[str, list[str]], name: str) -> str:
    for key, values in (attrs or {}).items():
        if key.lower() == name.lower() and values:
            return str(values[0]).strip()
    return ""


def _department(roles: frozenset[Role], default: str) -> str:
    departments = sorted({DEPARTMENT_OF_ROLE[r] for r in roles if r in DEPARTMENT_OF_ROLE})
    if len(departments) > 1:
        raise DirectoryRefusal(
            f"Your directory groups give you roles of more than one department ({', '.join(departments)}), and a "
            f"role is held only by a member of its department (segregation of duties, § 525.21(d)). {_ASK_IT}")
    return departments[0] if departments else default


def person_from_entry(*, username: str, attrs: dict[str, list[str]], group_dns: set[str]) -> DirectoryPerson:
    """The person the directory entry describes, or the refusal saying what the entry lacks."""
    from compliance.directory_settings import normalize_dn

    config: dict[str, Any] = settings.DIRECTORY_SIGN_IN or {}
    member_of = {normalize_dn(dn) for dn in group_dns}
    mapped = sorted(dn for dn in config["role_groups"] if dn in member_of)
    roles = frozenset(Role(code) for dn in mapped for code in config["role_groups"][dn])
    if not roles:
        raise DirectoryRefusal("Your directory password is right, but your directory account is in none of the groups "
                               f"that give a role in this system, so there is nothing here for you to do. {_ASK_IT}",
                               withdraw_roles=True)
    credential = _first(attrs, config["credential_attribute"])
    if not credential:
        raise DirectoryRefusal(
            f"Your directory entry has no Board-issued credential number ({config['credential_attribute']}): every "
            f"person here needs one, printed beside each signature they give. {_ASK_IT}")
    refusal = role_combination_refusal(roles, who="Your directory account")
    if refusal:
        raise DirectoryRefusal(f"{refusal} {_ASK_IT}")
    facility_codes = None
    if config["facility_groups"]:
        facility_codes = frozenset(code for dn, codes in config["facility_groups"].items() if dn in member_of
                                   for code in codes)
        if not facility_codes:
            raise DirectoryRefusal(f"Your directory account is in no facility's group, so you would see no facility's "
                                   f"records. {_ASK_IT}")
    name = next((value for a in config["name_attributes"] if (value := _first(attrs, a))), username)
    return DirectoryPerson(full_name=name[:200], credential_number=credential[:32], roles=roles,
                           department_code=_department(roles, config["default_department"]),
                           groups=tuple(mapped), facility_codes=facility_codes)


def _facilities(person: DirectoryPerson) -> list[Facility] | None:
    if person.facility_codes is None:
        return None
    found = list(Facility.objects.filter(code__in=person.facility_codes))
    unknown = person.facility_codes - {f.code for f in found}
    if unknown:
        logger.warning("LDAP_FACILITY_GROUPS names facility codes no facility has: %s", ", ".join(sorted(unknown)))
    if not found:
        raise DirectoryRefusal("Your directory groups name no facility this system has. Ask the IT department to "
                               "check LDAP_FACILITY_GROUPS against the facilities' codes.")
    return found


def _profile(user: Any, person: DirectoryPerson, department: Department) -> Profile:
    taken = Profile.objects.filter(credential_number=person.credential_number).exclude(user=user).first()
    if taken is not None:
        raise DirectoryRefusal(
            f"Credential number {person.credential_number} already belongs to {taken.full_name} in this system. "
            "Ask the IT department to check your directory entry, or an administrator to check theirs.")
    profile = Profile.objects.filter(user=user).first()
    if profile is None:
        return Profile.objects.create(user=user, full_name=person.full_name, department=department,
                                      credential_number=person.credential_number)
    wanted = {"full_name": person.full_name, "credential_number": person.credential_number,
              "department_id": department.pk}
    changed = [field for field, value in wanted.items() if getattr(profile, field) != value]
    if changed:
        for field in changed:
            setattr(profile, field, wanted[field])
        profile.save(update_fields=[f.removesuffix("_id") for f in changed])
    return profile


def _roles_set(user: Any, roles: frozenset[Role]) -> tuple[list[str], list[str]]:
    """Withdraw the roles the directory no longer gives, then grant the new ones (each change on the person's trail
    through compliance.signals); the roles withdrawn and granted."""
    held = set(user.groups.filter(name__in=Role.values).values_list("name", flat=True))
    wanted = {r.value for r in roles}
    withdrawn, granted = sorted(held - wanted), sorted(wanted - held)
    if withdrawn:
        user.groups.remove(*Group.objects.filter(name__in=withdrawn))
    return withdrawn, granted


@transaction.atomic
def person_sync(user: Any, person: DirectoryPerson) -> None:
    """Make ``user``'s account, profile, roles and facilities what the directory says (acting as the system account:
    the audit trail shows the directory, not the person, made the change)."""
    with acting_as(system_user()):
        try:
            department = Department.objects.get(code=person.department_code)
        except Department.DoesNotExist:
            raise DirectoryRefusal(f"This system has no department {person.department_code!r} "
                                   "(LDAP_DEFAULT_DEPARTMENT): ask the IT department to correct it.") from None
        facilities = _facilities(person)
        withdrawn, granted = _roles_set(user, person.roles)  # first: the new department may not allow them
        try:
            profile = _profile(user, person, department)
            if granted:
                user.groups.add(*Group.objects.filter(name__in=granted))
        except ValidationError as refusal:
            raise DirectoryRefusal(f"{' '.join(refusal.messages)} {_ASK_IT}") from None
        if facilities is not None:
            profile.facilities.set(facilities)
        staff = Role.ADMINISTRATOR in person.roles
        if user.is_staff != staff or user.password != accounts.DIRECTORY_PASSWORD:
            user.is_staff = staff
            user.password = accounts.DIRECTORY_PASSWORD  # no password here: signing binds to the directory
            user.save(update_fields=["is_staff", "password"])
        if withdrawn or granted:
            accounts.account_event(user, event=EVENT_DIRECTORY_SYNC, actor=system_user(), details={
                "directory groups": list(person.groups),
                "roles": {"added": [role_label(r) for r in granted], "removed": [role_label(r) for r in withdrawn]}})
    user.__dict__.pop("_compliance_roles", None)


@transaction.atomic
def roles_withdraw(user: Any, why: str) -> None:
    """A directory person the directory no longer gives any role: their roles here are withdrawn too."""
    with acting_as(system_user()):
        withdrawn, _ = _roles_set(user, frozenset())
        if withdrawn:
            accounts.account_event(user, event=EVENT_DIRECTORY_SYNC, actor=system_user(), reason=why,
                                   details={"roles": {"removed": [role_label(r) for r in withdrawn]}})
    user.__dict__.pop("_compliance_roles", None)
