"""Set-password links: how a person gets a password no administrator knows (issue 22, item 1; 21 CFR 11.300).

Creating an account or resetting a password never lets an administrator type or see the password. The
service takes the account's password away (unusable: the account signs in to nothing and signs nothing) and
records that a link was issued; a Celery task makes the link and sends it to the person's own e-mail address.
The link is Django's password-reset token: it holds a hash of the password it replaces and of the last sign-in,
so it works once (the new password changes the hash), for ``PASSWORD_RESET_TIMEOUT`` (24 hours), and a newer
link replaces every older one. It is made inside the task and exists only in the e-mail: no page, message or
audit event the administrator reads holds it. The person's second factor is untouched by a reset.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from compliance import accounts
from compliance.notifications import Notification

__all__ = [
    "EMAIL_CHANGE_WAIT",
    "EVENT_LINK_ISSUED",
    "EVENT_LINK_USED",
    "email_change_mail",
    "email_change_tell_old_address",
    "email_changed_by_another_since",
    "masked_address",
    "set_password_link_issue",
    "set_password_link_mail",
]

EVENT_LINK_ISSUED = "Set-password link sent to the person's own e-mail (password cleared until they choose one)"
EVENT_LINK_USED = "Password chosen by the person through their set-password link"
# After someone else changed a person's e-mail address, no link goes to the new one for this long: the old address
# is told at once, and its owner can object before the account can be taken over through the new address.
EMAIL_CHANGE_WAIT = timedelta(hours=24)


def masked_address(address: str) -> str:
    """``j***@casino.example``: enough for a reader to know which address, not enough to reuse it."""
    name, _, domain = address.partition("@")
    return f"{name[:1]}***@{domain}" if domain else "***"


def set_password_link_issue(user: Any, *, actor: Any, base_url: str, why: str) -> None:
    """Clear ``user``'s password and send them a link to choose one; ``why``: "account created", "reset"."""
    if accounts.is_directory_account(user):
        raise ValidationError(f"{accounts.display_name(user)} signs in with the casino directory's password: it is "
                              "set or reset in the directory, not here.")
    address_refusal = _address_refusal(user, actor)
    if address_refusal:
        raise ValidationError(address_refusal)
    if not user.email or "@" not in user.email:
        raise ValidationError(
            f"{accounts.display_name(user)} has no e-mail address: enter theirs on the account first. The link to "
            "choose a password goes to the person alone, never to an administrator.")
    if actor is not None and actor.pk == user.pk:
        raise ValidationError("Change your own password on your password page (your current password is asked).")
    if why != "account created":
        changed_at = email_changed_by_another_since(user, timezone.now() - EMAIL_CHANGE_WAIT)
        if changed_at is not None:
            until = timezone.localtime(changed_at + EMAIL_CHANGE_WAIT)
            raise ValidationError(
                f"{accounts.display_name(user)}'s e-mail address was changed by someone else on "
                f"{timezone.localtime(changed_at):%-d %b at %H:%M}; their old address was told. A link can go to the "
                f"new address from {until:%-d %b at %H:%M}, so that a changed address cannot take over the account "
                "before its owner can object.")
    with transaction.atomic():
        user.set_unusable_password()
        user.save(update_fields=["password"])
        accounts.account_event(user, event=EVENT_LINK_ISSUED, actor=actor, details={
            "why": why, "sent to": masked_address(user.email),
            "valid for": f"{settings.PASSWORD_RESET_TIMEOUT // 3600} hours, once"})
        address = user.email
        transaction.on_commit(lambda: _send(user.pk, base_url.rstrip("/"), address))


def _send(user_id: int, base_url: str, address: str) -> None:
    from compliance.tasks import set_password_link_send

    set_password_link_send.delay(user_id, base_url, address)


def email_changed_by_another_since(user: Any, since: Any) -> Any:
    """When someone other than the person last changed their e-mail address, if after ``since``."""
    events = accounts.events_about(user).filter(
        changes__event="Account changed", changes__has_key="email", occurred_at__gt=since).exclude(actor_id=user.pk)
    return events.order_by("-occurred_at").values_list("occurred_at", flat=True).first()


def email_change_tell_old_address(user: Any, *, old: str, actor: Any) -> None:
    """An administrator changed the person's e-mail: the old address is told (on commit, by a task)."""
    transaction.on_commit(lambda: _tell_old_address(user.pk, old, actor.pk))


def _tell_old_address(user_id: int, old: str, actor_id: int) -> None:
    from compliance.tasks import email_change_tell

    email_change_tell.delay(user_id, old, actor_id)


def email_change_mail(user_id: int, old: str, actor_id: int) -> Notification | None:
    users = get_user_model()._default_manager
    user, actor = users.filter(pk=user_id).first(), users.filter(pk=actor_id).first()
    if user is None or actor is None or not old:
        return None
    body = (f"Hello {accounts.display_name(user)},\n\n{accounts.display_name(actor)} changed the e-mail address of "
            f"your account on the table games compliance system from this address to {masked_address(user.email)}. "
            "Links to set your password now go there. If you did not ask for this, tell your compliance officer at "
            "once: no link can be sent to the new address for 24 hours.\n")
    return Notification.to([old], subject="Your e-mail address was changed", body=body)


def _address_refusal(user: Any, actor: Any) -> str:
    """A link never goes to an address the administrator holds, or that belongs to anyone else's account."""
    email = (user.email or "").strip().lower()
    if not email:
        return ""
    if actor is not None and (actor.email or "").strip().lower() == email:
        return ("That is your own e-mail address: the link goes to the person alone. Enter their own address on "
                "the account.")
    others = get_user_model()._default_manager.filter(email__iexact=email).exclude(pk=user.pk)
    if others.exists():
        return ("That e-mail address belongs to another account: each person has their own. Enter this person's "
                "own address.")
    return ""


def set_password_link_mail(user_id: int, base_url: str, address: str = "") -> Notification | None:
    """The e-mail holding a fresh link (``compliance.tasks.set_password_link_send`` sends it; a retry after a
    mail failure makes another, equally valid: the password it hashes has not changed)."""
    user = get_user_model()._default_manager.filter(pk=user_id).first()
    if user is None or user.has_usable_password() or not user.email:
        return None  # chosen already, or the address was taken away: nothing to send
    if address and user.email != address:
        return None  # the address changed after the link was asked for: a link never follows a new address
    path = reverse("password-set", kwargs={"uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
                                           "token": default_token_generator.make_token(user)})
    hours = settings.PASSWORD_RESET_TIMEOUT // 3600
    body = (
        f"Hello {accounts.display_name(user)},\n\n"
        "An account on the table games compliance system is waiting for you to choose its password. Open this "
        f"link within {hours} hours and choose it; the link works once:\n\n{base_url}{path}\n\n"
        f"Your username is {user.get_username()}.\n\n"
        "Your password is yours alone: it signs records in your name. No administrator knows it or can see it. "
        "If you did not expect this message, tell your compliance officer.\n")
    return Notification.to([user.email], subject="Choose your password", body=body)
