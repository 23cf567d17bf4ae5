"""Directory sign-in (issue 26, item 6): people of the casino's LDAP directory or Active Directory sign in and sign
with their directory password; their roles follow their directory groups.

:class:`DirectoryBackend` is django-auth-ldap's backend, on when ``LDAP_SERVER_URI`` is set
(compliance/directory_settings.py). At each sign-in it binds as the person, reads their entry and groups, and brings
their account here up to date (compliance.directory_people): profile, roles and facilities, each change on the audit
trail. It never takes over a local account (the break-glass administrator, the embedded default's people): a
username held here by a local account signs in with its local password only. Signing re-binds
(:func:`directory_password_matches`, through :func:`compliance.accounts.password_matches`).
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import Any

import ldap
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.dispatch import receiver
from django_auth_ldap.backend import LDAPBackend, ldap_error

from compliance import accounts
from compliance.directory_people import DirectoryRefusal, person_from_entry, person_sync, roles_withdraw

__all__ = ["UNREACHABLE", "DirectoryBackend", "directory_password_matches"]

logger = logging.getLogger(__name__)

UNREACHABLE = ("The casino's directory did not answer, so your password could not be checked. Try again in a "
               "minute; if it goes on, tell the IT department.")

# What the sign-in under way was refused for, in words (read back by the sign-in form and by signing).
_said: ContextVar[list[str] | None] = ContextVar("directory_refusal", default=None)


def _say(words: str) -> None:
    said = _said.get()
    if said is not None and not said:
        said.append(words)


@receiver(ldap_error)
def _directory_unreachable(sender: Any, context: str, exception: Exception, **kwargs: Any) -> None:
    """django-auth-ldap reports a directory error and refuses: a directory that is down or slow is said as such,
    not as a wrong password."""
    if isinstance(exception, ldap.SERVER_DOWN | ldap.TIMEOUT | ldap.TIMELIMIT_EXCEEDED | ldap.CONNECT_ERROR):
        _say(UNREACHABLE)


class DirectoryBackend(LDAPBackend):
    """django-auth-ldap's backend, bound to this system's people: a directory account must have a credential
    number and a mapped group; its profile, roles and facilities are the directory's."""

    refusal = ""
    _existing: Any = None  # the account of the person signing in, when they had one before

    def authenticate(self, request: Any, username: str | None = None, password: str | None = None,
                     **kwargs: Any) -> Any:
        if not getattr(settings, "DIRECTORY_SIGN_IN", None) or not username:
            return None
        local = get_user_model()._default_manager.filter(username__iexact=username.strip()).first()
        if local is not None and not accounts.is_directory_account(local):
            return None  # a local account: its own password (compliance.auth.ActiveProfileBackend), never the directory's
        token = _said.set([])
        try:
            user = super().authenticate(request, username=username, password=password, **kwargs)
            self.refusal = next(iter(_said.get() or []), "")
        finally:
            _said.reset(token)
        if self.refusal and request is not None:
            request.directory_refusal = self.refusal
        return user

    def authenticate_ldap_user(self, ldap_user: Any, password: str) -> Any:
        """The directory's answer, then this system's: the person's account brought up to date, or refused in words
        (with a rollback of whatever was written for them)."""
        try:
            with transaction.atomic():
                user = ldap_user.authenticate(password)
                if user is None:
                    return None
                person_sync(user, ldap_user.compliance_person)
        except DirectoryRefusal as refusal:
            logger.warning("Directory sign-in refused for %s: %s", ldap_user._username, refusal)
            if self._existing is not None and refusal.withdraw_roles:
                roles_withdraw(self._existing, "The directory no longer puts them in a group that gives a role.")
            _say(str(refusal))
            return None
        if not self.user_can_authenticate(user):
            _say("Your account here is deactivated. An administrator of this system can tell you why.")
            return None
        return user

    def get_or_build_user(self, username: str, ldap_user: Any) -> tuple[Any, bool]:
        user, built = super().get_or_build_user(username, ldap_user)
        if not built and not accounts.is_directory_account(user):
            raise DirectoryRefusal("A local account of this system holds this username: sign in with its own "
                                   "password.")
        self._existing = None if built else user
        ldap_user.compliance_person = person_from_entry(
            username=username, attrs=ldap_user.attrs or {}, group_dns=set(ldap_user.group_dns))
        return user, built

    def user_can_authenticate(self, user: Any) -> bool:
        profile = getattr(user, "profile", None)
        return bool(user.is_active and profile is not None and profile.active)

    def get_user(self, user_id: Any) -> Any:
        """A session of a directory person lasts while they are one, active, with an active profile."""
        user = super().get_user(user_id)
        if user is None or not accounts.is_directory_account(user) or not self.user_can_authenticate(user):
            return None
        return user


def directory_password_matches(user: Any, password: str) -> bool:
    """Whether the directory accepts ``password`` for ``user`` now (their entry still found by the sign-in filter:
    a person disabled there cannot sign). Their account here is brought up to date as at a sign-in, so a role the
    directory took away signs nothing. A refusal that is not about the password is raised in words."""
    if not getattr(settings, "DIRECTORY_SIGN_IN", None):
        raise ValidationError("Your password is the casino directory's, and directory sign-in is off on this server, "
                              "so it cannot be checked. Tell the IT department.")
    backend = DirectoryBackend()
    signed = backend.authenticate(None, username=user.get_username(), password=password)
    if signed is None and backend.refusal:
        raise ValidationError(backend.refusal)
    return signed is not None and signed.pk == user.pk
