"""People's accounts: who must prove a second factor, temporary passwords, lock-outs, and the account
events of the audit trail.

Every change to a person's account (a password set, a role granted, a flag turned on) and every refused
sign-in or signature is an :class:`~compliance.models.AuditEvent` on the person's profile, so the
audit page that inspectors read shows it beside the person's other changes. The trail is also the
record the rules below read: a password is temporary when the last one was set by someone else, and a
signer is locked out for 15 minutes once five wrong passwords were typed in their name.

A refusal raised inside a service rolls the service's transaction back, and with it an event written
there. So an event written while a transaction is open is kept aside for the request and written by
:class:`compliance.middleware.AccountSecurityMiddleware` once the view has returned.
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from compliance.models import AuditEvent, Profile
from compliance.people import person_name
from compliance.roles import Role, roles_of

__all__ = [
    "DIRECTORY_PASSWORD",
    "EVENT_LOCKED_OUT",
    "EVENT_PASSWORD_OWN",
    "EVENT_PASSWORD_TEMPORARY",
    "EVENT_REFUSED_OWN",
    "EVENT_SIGNING_LOCKED",
    "EVENT_SIGNIN_FAILED",
    "EVENT_SIGN_FAILED",
    "LOCKED_OUT_MESSAGE",
    "SECOND_FACTOR_ROLES",
    "SigningState",
    "account_event",
    "backup_device",
    "code_already_used",
    "confirmed_device",
    "deferred_account_events",
    "device_confirm",
    "display_name",
    "events_about",
    "is_directory_account",
    "needs_second_factor",
    "own_change_refused",
    "password_is_temporary",
    "password_matches",
    "sign_in_locked",
    "sign_in_refused",
    "signing_failure_record",
    "signing_locked",
    "signing_state",
    "totp_secret",
    "unconfirmed_device",
]

LOCKED_OUT_MESSAGE = "Too many attempts; try again in 15 minutes."
SIGNING_FAILURE_LIMIT = 5
SIGNING_LOCK = timedelta(minutes=15)

# What happened, in words: stored as the event's ``changes["event"]`` and read back by the rules below.
EVENT_SIGNIN_FAILED = "Sign-in refused: wrong username, password or code"
EVENT_LOCKED_OUT = "Sign-in locked for 15 minutes after repeated failures"
EVENT_SIGN_FAILED = "Signature refused: wrong password"
EVENT_SIGNING_LOCKED = "Signing locked for 15 minutes after 5 wrong passwords"
EVENT_PASSWORD_TEMPORARY = "Password set by another person (temporary: to be changed at the next sign-in)"  # noqa: S105
EVENT_PASSWORD_OWN = "Password chosen by the person"  # noqa: S105
EVENT_REFUSED_OWN = "Refused: a person tried to change their own roles, status or facilities"

# Roles that sign for money or oversee (the list): supervisors, shift managers, compliance
# officers, Board inspectors and administrators sign in with a TOTP code as well as their password.
SECOND_FACTOR_ROLES = frozenset(
    {
        Role.FINANCE_SUPERVISOR,
        Role.MARKETING_SUPERVISOR,
        Role.SHIFT_MANAGER,
        Role.COMPLIANCE_OFFICER,
        Role.BOARD_INSPECTOR,
        Role.ADMINISTRATOR,
    }
)

# The password field of a person who signs in through the casino's directory (compliance.directory): no password
# is kept here (Django reads any value starting with "!" as unusable), and signing binds to the directory.
DIRECTORY_PASSWORD = "!directory: the password is the directory's"  # noqa: S105


def is_directory_account(user: Any) -> bool:
    return getattr(user, "password", None) == DIRECTORY_PASSWORD


_proven: ContextVar[frozenset[tuple[Any, bytes]]] = ContextVar("passwords_proven", default=frozenset())


def _proof(user: Any, password: str) -> tuple[Any, bytes]:
    return user.pk, hashlib.sha256(password.encode()).digest()


@contextmanager
def password_checked_first(user: Any, password: str | None) -> Iterator[None]:
    """For a service that signs while holding a lock others wait on (finance's daily processing holds the
    facility's exclusive lock, and every scan on the floor waits for it): the signer's password checked now, before
    the lock, and inside the block the signature's own check (:func:`password_matches`) takes that answer instead of
    hashing again — a third of a second of PBKDF2 on a free core, a directory bind for a directory account. Only a
    match is remembered, for this person and this password, within the block: a wrong password is refused inside as
    always (the failure counted, the signing lock-out applied)."""
    if not password or not password_matches(user, password):
        yield
        return
    token = _proven.set(_proven.get() | {_proof(user, password)})
    try:
        yield
    finally:
        _proven.reset(token)


def password_matches(user: Any, password: str) -> bool:
    """Whether ``password`` is ``user``'s: for a person of the directory, a bind to the directory as them (a
    ValidationError in words when the directory cannot say); for a local account, the hash kept here (or the match
    :func:`password_checked_first` already found within its block)."""
    if not password:
        return False
    if (proven := _proven.get()) and _proof(user, password) in proven:
        return True
    if is_directory_account(user):
        try:
            from compliance.directory import directory_password_matches
        except ImportError:  # django-auth-ldap (the ``ldap`` extra) is not installed on this server
            from django.core.exceptions import ValidationError

            raise ValidationError("Your password is the casino directory's, and this server cannot reach a "
                                  "directory. Tell the IT department.") from None
        return directory_password_matches(user, password)
    return bool(user.check_password(password))


_pending: ContextVar[list[dict[str, Any]] | None] = ContextVar("pending_account_events", default=None)


def _subject(user: Any) -> Any:
    """The row an account event is about: the person's profile (so the audit page shows it at their
    facilities), or the account itself for someone without one."""
    profile = Profile.objects.filter(user_id=user.pk).first() if user is not None and user.pk else None
    return profile if profile is not None else user


def account_event(
    user: Any, *, event: str, actor: Any, details: dict[str, Any] | None = None, reason: str = ""
) -> None:
    """Record an account event about ``user`` (``None``: a sign-in under a name no one holds)."""
    subject = _subject(user)
    kwargs: dict[str, Any] = {
        "action": AuditEvent.Action.CHANGED,
        "actor": actor if actor is not None and getattr(actor, "pk", None) else None,
        "changes": {"event": event, **(details or {})},
        "reason": reason,
    }
    pending = _pending.get()
    if pending is not None and transaction.get_connection().in_atomic_block:
        pending.append({"subject": subject, **kwargs})
        return
    _write(subject, **kwargs)


def display_name(user: Any) -> str:
    """The person's name as their profile gives it, or their username."""
    profile = Profile.objects.filter(user_id=user.pk).select_related("user").first() if user.pk else None
    return person_name(profile or user)


def own_change_refused(user_id: Any, what: list[str]) -> str:
    """Record that a person tried to change their own roles, status or facilities; the refusal in words."""
    from django.contrib.auth import get_user_model

    user = get_user_model()._default_manager.filter(pk=user_id).first()
    if user is not None:
        account_event(user, event=EVENT_REFUSED_OWN, actor=user, details={"tried to change": ", ".join(what)})
    return (f"You cannot change your own {', '.join(what)}: another administrator does that, so that no one "
            "gives themselves more power than they were given.")


def _write(subject: Any, **kwargs: Any) -> None:
    if subject is None:
        AuditEvent.objects.create(
            model_label="auth.User", model_name="user", object_id="", object_repr="(no such account)", **kwargs
        )
        return
    AuditEvent.log(subject, **kwargs)


@contextmanager
def deferred_account_events() -> Iterator[None]:
    """Keep account events raised inside transactions until the block ends, then write them (a refused
    signature's rollback must not take its record with it)."""
    token = _pending.set([])
    try:
        yield
    finally:
        events = _pending.get() or []
        _pending.reset(token)
        for event in events:
            _write(event.pop("subject"), **event)


def _about(user: Any) -> Any:
    """Account events about ``user``: on their profile, or on the account itself (written before the
    profile existed, as profile_create's password is)."""
    profile = Profile.objects.filter(user_id=user.pk).values_list("pk", flat=True).first()
    where = Q(model_label="auth.User", object_id=str(user.pk))
    if profile is not None:
        where |= Q(model_label=Profile._meta.label, object_id=str(profile))
    return AuditEvent.objects.filter(where)


def events_about(user: Any) -> Any:
    """Every account event about ``user`` (their profile's and their account's)."""
    return _about(user)


def _events_about(user: Any, event: str) -> Any:
    return _about(user).filter(changes__event=event)


@dataclass(frozen=True)
class SigningState:
    """What the audit trail says of a person's account before they sign: ``locked``, five wrong passwords within
    15 minutes (:func:`signing_failure_record`); ``temporary``, their password was last set by someone else."""

    locked: bool = False
    temporary: bool = False


def signing_state(user: Any) -> SigningState:
    """Both answers in one read: the person's row with two subqueries over their account events (the events on
    their profile or on the account itself, as :func:`_about`), rather than a lookup of the profile and a read
    of the trail for each question. Every signature asks both (compliance.services._check_password).

    Written as SQL (:func:`_signing_state_sql`): the database answers in a quarter of a millisecond, but building
    the same query with the ORM (a subquery, an ``Exists``, a cast and a JSON key on each side) took several
    milliseconds of Python a signature, a fifth of a generated year's dice and deck changes (issue 27)."""
    if user is None or not user.pk:
        return SigningState()
    since = connection.ops.adapt_datetimefield_value(timezone.now() - SIGNING_LOCK)
    with connection.cursor() as cursor:
        cursor.execute(_signing_state_sql(), {
            "user": user.pk, "user_text": str(user.pk), "user_label": "auth.User", "profile_label": Profile._meta.label,
            "temporary": EVENT_PASSWORD_TEMPORARY, "own": EVENT_PASSWORD_OWN, "locked": EVENT_SIGNING_LOCKED,
            "since": since})
        row = cursor.fetchone()
    if row is None:
        return SigningState()
    last_password, locked = row
    temporary = user.has_usable_password() and last_password == EVENT_PASSWORD_TEMPORARY
    return SigningState(locked=bool(locked), temporary=temporary)


def _signing_state_sql() -> str:
    """The person's last password event and whether a signing lock is in force, from the audit events about their
    account or their profile (the index on the events' model and object), on either database."""
    q = connection.ops.quote_name
    users, profiles, events = get_user_model()._meta, Profile._meta, AuditEvent._meta
    event = ("e.changes ->> 'event'" if connection.vendor == "postgresql"
             else "json_extract(e.changes, '$.event')")
    about = (f"((e.{q('model_label')} = %(user_label)s AND e.{q('object_id')} = %(user_text)s) OR "
             f"(e.{q('model_label')} = %(profile_label)s AND e.{q('object_id')} = CAST(p.{q('id')} AS TEXT)))")
    return (f"SELECT (SELECT {event} FROM {q(events.db_table)} e WHERE {about} AND {event} IN (%(temporary)s, %(own)s) "  # noqa: S608 - the models' names
            f"ORDER BY e.{q('occurred_at')} DESC, e.{q('id')} DESC LIMIT 1), "
            f"EXISTS (SELECT 1 FROM {q(events.db_table)} e WHERE {about} AND {event} = %(locked)s "
            f"AND e.{q('occurred_at')} > %(since)s) "
            f"FROM {q(users.db_table)} u LEFT JOIN {q(profiles.db_table)} p ON p.{q('user_id')} = u.{q('id')} "
            f"WHERE u.{q('id')} = %(user)s")


def password_is_temporary(user: Any) -> bool:
    """The person's password was last set by someone else (an administrator, a command)."""
    return signing_state(user).temporary


def signing_locked(user: Any) -> bool:
    """Five wrong passwords typed in the person's name within 15 minutes: their signing waits 15 minutes."""
    return signing_state(user).locked


def signing_failure_record(user: Any, *, co_signer: bool = False, where: str = "") -> None:
    """Count a wrong password typed to sign as ``user`` (or to change their password: the same password, the
    same lock); the fifth within 15 minutes (since the last lock) locks their signing for 15 minutes."""
    now = timezone.now()
    where = where or ("as a co-signer at another person's screen" if co_signer else "at their own screen")
    account_event(user, event=EVENT_SIGN_FAILED, actor=user, reason=f"Wrong password typed {where}.")
    since = now - SIGNING_LOCK
    last_lock = _events_about(user, EVENT_SIGNING_LOCKED).order_by("-occurred_at").values_list(
        "occurred_at", flat=True).first()
    if last_lock is not None and last_lock > since:
        since = last_lock
    # The event just written may still be pending (kept for after the rollback): count it by hand.
    written = _events_about(user, EVENT_SIGN_FAILED).filter(occurred_at__gt=since).count()
    pending = sum(1 for e in (_pending.get() or []) if e["changes"]["event"] == EVENT_SIGN_FAILED
                  and e["subject"] == _subject(user))
    if written + pending >= SIGNING_FAILURE_LIMIT:
        account_event(user, event=EVENT_SIGNING_LOCKED, actor=user,
                      reason=f"{SIGNING_FAILURE_LIMIT} wrong passwords within 15 minutes.")


# Refused sign-ins under names no one holds are evidence of guessing, not of a person: one event per address
# per quarter of an hour, and at most UNKNOWN_NAME_EVENTS_PER_HOUR of them in all, so an anonymous caller
# cannot grow the audit trail without bound (the counts themselves are django-axes' records).
UNKNOWN_NAME_WINDOW = timedelta(minutes=15)
UNKNOWN_NAME_EVENTS_PER_HOUR = 60
EVENT_UNKNOWN_NAMES = "Sign-ins refused under names no one holds"


def _recorded_once_per_window(key: str, window: timedelta) -> bool:
    """True the first time ``key`` is seen in ``window`` (the cache remembers; Redis in production)."""
    from django.core.cache import cache

    return bool(cache.add(f"accounts:{key}", 1, timeout=int(window.total_seconds())))


def _within_hourly_budget() -> bool:
    from django.core.cache import cache

    hour = timezone.now().strftime("%Y%m%d%H")
    key = f"accounts:unknown-names:{hour}"
    cache.add(key, 0, timeout=3600)
    try:
        return int(cache.incr(key)) <= UNKNOWN_NAME_EVENTS_PER_HOUR
    except ValueError:  # expired between add and incr
        return _within_hourly_budget()


def sign_in_refused(request: Any, username: str) -> None:
    """A refused sign-in, on the trail: every one for a person's account until it locks (django-axes then
    refuses before any password is read, and the lock is the one event); names no one holds, bounded."""
    from django.contrib.auth import get_user_model

    from compliance.client_address import client_address

    # Refused by the lock before any password was read (django-axes counted nothing): the lock is the record.
    # The failure that set the lock was counted (``axes_failures_since_start``) and is written.
    if (request is not None and getattr(request, "axes_locked_out", False)
            and getattr(request, "axes_failures_since_start", None) is None):
        return
    username = username[:150]
    address = client_address(request) if request is not None else ""
    user = get_user_model()._default_manager.filter(username=username).first() if username else None
    if user is not None:
        account_event(user, event=EVENT_SIGNIN_FAILED, actor=None, details={"username": username, "address": address})
        return
    if _recorded_once_per_window(f"unknown:{address}", UNKNOWN_NAME_WINDOW) and _within_hourly_budget():
        account_event(None, event=EVENT_UNKNOWN_NAMES, actor=None, details={
            "address": address, "first name tried": username,
            "recorded": "once per address per 15 minutes; django-axes counts every try"})


def sign_in_locked(request: Any, username: str) -> None:
    """A username locked after repeated failures: on the person's trail, or once in the bounded record of
    unknown names."""
    from django.contrib.auth import get_user_model

    from compliance.client_address import client_address

    address = client_address(request) if request is not None else ""
    user = get_user_model()._default_manager.filter(username=username[:150]).first() if username else None
    if user is not None:
        # django-axes says so again at each try during the lock: the lock is one event.
        if not _events_about(user, EVENT_LOCKED_OUT).filter(occurred_at__gt=timezone.now() - SIGNING_LOCK).exists():
            account_event(user, event=EVENT_LOCKED_OUT, actor=None,
                          details={"username": username, "address": address})
    elif _recorded_once_per_window(f"unknown-lock:{address}", UNKNOWN_NAME_WINDOW) and _within_hourly_budget():
        account_event(None, event=EVENT_LOCKED_OUT, actor=None, details={"username": username[:150],
                                                                          "address": address})


def needs_second_factor(user: Any) -> bool:
    return bool(user.is_superuser or user.is_staff or roles_of(user) & SECOND_FACTOR_ROLES)


def confirmed_device(user: Any) -> Any:
    from django_otp.plugins.otp_totp.models import TOTPDevice

    return TOTPDevice.objects.filter(user=user, confirmed=True).first()


def unconfirmed_device(user: Any) -> Any:
    """The authenticator app the person is enrolling: the one not yet confirmed, made when there is none."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    return device or TOTPDevice.objects.create(user=user, name="Authenticator app", confirmed=False)


def device_confirm(device: Any) -> None:
    """The person typed a right code from ``device``: it is their authenticator app now, the others they began
    enrolling are dropped, and the audit trail says so."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    device.confirmed = True
    device.save(update_fields=["confirmed"])
    TOTPDevice.objects.filter(user=device.user, confirmed=False).delete()
    account_event(device.user, event="Authenticator app enrolled", actor=device.user)


def backup_device(user: Any) -> Any:
    """The person's backup codes (django-otp's static device), if they made any."""
    from django_otp.plugins.otp_static.models import StaticDevice

    return StaticDevice.objects.filter(user=user, confirmed=True).first()


def code_already_used(device: Any, token: str) -> bool:
    """``token`` is the device's code for a time step it has already accepted (django-otp takes each once)."""
    from django_otp.oath import hotp

    if not token.isascii() or not token.isdigit() or device.last_t < 0:
        return False
    now = (int(time.time()) - device.t0) // device.step + device.drift
    return any(hotp(device.bin_key, step, digits=device.digits) == int(token)
               for step in range(now - device.tolerance, min(now + device.tolerance, device.last_t) + 1))


def totp_secret(device: Any) -> str:
    """The device's key as authenticator apps take it (base32, no padding)."""
    return base64.b32encode(device.bin_key).decode().rstrip("=")


def idle_limit() -> timedelta:
    return timedelta(minutes=settings.SESSION_IDLE_MINUTES)
