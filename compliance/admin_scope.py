"""Whom an administrator manages (issue 22, item 4): the people of the facilities they hold, never themselves.

An administrator of one facility may not rename, deactivate, re-role or re-assign a person who also works at a
facility the administrator does not hold: that person's other facility has its own administrators, and a change
here would change who signs there. An account without a profile (the console's superuser, the system account of
commands and scheduled work) holds every facility. The admin's lists, forms and choices ask this module; the receivers in ``compliance.signals``
hold the same rule for facility grants made by any path.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from compliance.models import Facility

__all__ = ["facilities_held", "facility_grant_refusal", "manages", "people_managed", "unbounded"]


def unbounded(user: Any) -> bool:
    """An account with no profile is the installation's own: the console's superuser, the system account of
    scheduled work and commands. Every person has a profile and is bounded by their facilities."""
    return user is not None and user.pk is not None and not hasattr(user, "profile")


def facilities_held(user: Any) -> QuerySet[Facility]:
    """The facilities an administrator holds (all, for the console's superuser)."""
    if unbounded(user):
        return Facility.objects.all()
    return Facility.objects.filter(staff__user=user).distinct()


def people_managed(user: Any) -> QuerySet[Any]:
    """Accounts ``user`` may change: everyone with a profile whose facilities are all theirs, not themselves."""
    people = get_user_model()._default_manager.all()
    if unbounded(user):
        return people.exclude(pk=user.pk)
    others = Facility.objects.exclude(pk__in=facilities_held(user).values("pk"))
    return (people.filter(profile__isnull=False, is_superuser=False)
            .exclude(profile__facilities__in=others).exclude(pk=user.pk))


def manages(user: Any, person: Any) -> bool:
    return person is not None and person.pk is not None and people_managed(user).filter(pk=person.pk).exists()


def facility_grant_refusal(actor: Any, facility_ids: set[Any]) -> str:
    """Words refusing ``actor`` a grant or withdrawal of facilities they do not hold ("" when allowed)."""
    if actor is None or unbounded(actor) or not facility_ids:
        return ""
    outside = Facility.objects.filter(pk__in=facility_ids).exclude(pk__in=facilities_held(actor).values("pk"))
    names = sorted(outside.values_list("name", flat=True))
    if not names:
        return ""
    return (f"You do not administer {', '.join(names)}: only an administrator of that facility assigns people to "
            "it or takes them off it.")
