"""factory_boy factories for the foundation's registers."""

from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from compliance.models import Department, Facility, Game, GamingTable, Profile
from compliance.roles import Role

PASSWORD = "correct horse battery staple"


class FacilityFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Facility
        django_get_or_create = ("code",)

    code = factory.Sequence(lambda n: f"fac{n}")
    name = factory.Sequence(lambda n: f"Casino {n}")
    certificate_holder = factory.LazyAttribute(lambda o: f"{o.name} LLC")


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.test")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def persist(obj: Any, create: bool, extracted: Any, **kwargs: Any) -> None:
        if create:
            obj.save()


_DEPARTMENT_OF = {
    Role.FINANCE_STAFF: Department.FINANCE,
    Role.FINANCE_SUPERVISOR: Department.FINANCE,
    Role.MARKETING_STAFF: Department.MARKETING,
    Role.MARKETING_SUPERVISOR: Department.MARKETING,
    Role.DEALER: Department.TABLE_GAMES,
    Role.FLOORPERSON: Department.TABLE_GAMES,
    Role.SHIFT_MANAGER: Department.TABLE_GAMES,
    Role.SURVEILLANCE: Department.SURVEILLANCE,
    Role.COMPLIANCE_OFFICER: Department.COMPLIANCE,
    Role.BOARD_INSPECTOR: Department.COMPLIANCE,
    Role.ADMINISTRATOR: Department.COMPLIANCE,
}


def make_person(role: Role, facility: Facility, *, full_name: str = "", department: str = "") -> Any:
    """A signed-in-able person with one role, a profile and a credential, assigned to ``facility``."""
    user: Any = UserFactory()
    user.groups.add(Group.objects.get(name=role.value))
    if role == Role.ADMINISTRATOR:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    profile = Profile.objects.create(
        user=user,
        full_name=full_name or f"{role.label.split(' (')[0]} {user.pk}",
        credential_number=f"PGCB-{user.pk:06d}",
        department=Department.objects.get(code=department or _DEPARTMENT_OF[role]),
    )
    profile.facilities.add(facility)
    return user


class GamingTableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = GamingTable

    facility = factory.SubFactory(FacilityFactory)
    number = factory.Sequence(lambda n: f"T-{n}")
    game = factory.LazyFunction(lambda: Game.objects.get(code="sic-bo"))
    pit = "Pit 1"
