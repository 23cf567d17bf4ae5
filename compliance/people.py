"""The one way a person is printed on a page, in a document, a CSV, a choice or a refusal."""

from __future__ import annotations

from typing import Any

__all__ = ["person_name"]


def person_name(person: Any, *, credential: bool = False) -> str:
    """A person (an account or its profile) as they are printed everywhere: the full name their profile gives
    (the name the Board knows them by), or, for an account with no profile (the console's superuser, the system
    account), the username. ``credential=True`` adds the Board-issued credential number where the person must be
    identified beyond doubt (a document printed for them, the choice of a co-signer, the profile itself):
    "Jane Doe (EMP-1001)", as a signature prints its signer. No person prints as ""."""
    if person is None:
        return ""
    is_profile = hasattr(person, "credential_number")
    profile = person if is_profile else getattr(person, "profile", None)
    name = getattr(profile, "full_name", "")
    if not name:  # no profile (or an unsaved one): the account's username, read only then
        user = getattr(person, "user", None) if is_profile else person
        name = user.get_username() if user is not None else ""
    if credential and profile is not None and profile.credential_number:
        return f"{name} ({profile.credential_number})"
    return name
