"""Second factors (issue 22, item 2): backup codes for a lost phone, and a reset that takes two administrators.

No administrator reads or changes a person's TOTP key (the admin lists devices without keys and edits none).
A person who lost their phone signs in with one of their backup codes (django-otp's static tokens, shown to
them once when made; each works once). A person who has neither asks an administrator, who records a reset
request with the reason; a second administrator approves it (or refuses); only then are the person's
authenticator and backup codes removed, so that they enrol anew at their next sign-in. Each step is an audit
event on the person's trail, and the person is e-mailed when it happens.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from compliance import accounts, admin_scope
from compliance.models import SecondFactorReset
from compliance.notifications import Notification
from compliance.roles import Role, roles_of

__all__ = [
    "BACKUP_CODES",
    "backup_codes_left",
    "backup_codes_make",
    "reset_decide",
    "reset_request",
    "second_factor_reset_mail",
]

BACKUP_CODES = 10
BACKUP_DEVICE_NAME = "Backup codes"


def backup_codes_make(user: Any) -> list[str]:
    """A new set of backup codes for ``user`` (the old set stops working); returned once, to show them once."""
    with transaction.atomic():
        device, _ = StaticDevice.objects.get_or_create(user=user, name=BACKUP_DEVICE_NAME,
                                                       defaults={"confirmed": True})
        device.token_set.all().delete()
        codes = [StaticToken.random_token() for _ in range(BACKUP_CODES)]
        StaticToken.objects.bulk_create([StaticToken(device=device, token=code) for code in codes])
        accounts.account_event(user, event="Backup codes made (the earlier ones no longer work)", actor=user,
                               details={"codes": BACKUP_CODES})
    return codes


def backup_codes_left(user: Any) -> int:
    return StaticToken.objects.filter(device__user=user, device__confirmed=True).count()


def _may_administer(actor: Any, person: Any) -> str:
    if actor is None or not (actor.is_superuser or Role.ADMINISTRATOR in roles_of(actor)):
        return "Only an administrator asks for or approves a second-factor reset."
    if actor.pk == person.pk:
        return "You cannot reset your own second factor: ask two other administrators."
    if not admin_scope.manages(actor, person):
        return (f"You do not administer every facility {accounts.display_name(person)} works at: an administrator "
                "of their facilities does this.")
    return ""


def reset_request(person: Any, *, actor: Any, reason: str) -> SecondFactorReset:
    refusal = _may_administer(actor, person)
    reason = (reason or "").strip()
    if not refusal and not reason:
        refusal = "Say why (for example: “phone lost on 24 Nov, reported by the person in person”)."
    if not refusal and not (TOTPDevice.objects.filter(user=person).exists()
                            or StaticDevice.objects.filter(user=person).exists()):
        refusal = (f"{accounts.display_name(person)} has no authenticator app or backup codes: they enrol one "
                   "at their next sign-in, no reset is needed.")
    if refusal:
        raise ValidationError(refusal)
    try:
        with transaction.atomic():
            reset = SecondFactorReset.objects.create(person=person, reason=reason, requested_by=actor)
            accounts.account_event(person, event="Second-factor reset asked (waiting for a second administrator)",
                                   actor=actor, reason=reason)
    except IntegrityError:
        raise ValidationError(f"A reset of {accounts.display_name(person)}'s second factor is already waiting for "
                              "a second administrator.") from None
    transaction.on_commit(lambda: _tell(reset.pk))
    return reset


def reset_decide(reset: SecondFactorReset, *, actor: Any, approve: bool) -> SecondFactorReset:
    with transaction.atomic():
        reset = SecondFactorReset.objects.select_for_update().get(pk=reset.pk)
        refusal = _may_administer(actor, reset.person)
        if not refusal and reset.outcome != SecondFactorReset.Outcome.PENDING:
            refusal = f"This request was already decided ({reset.get_outcome_display().lower()})."
        if not refusal and reset.requested_by_id == actor.pk:
            refusal = "You asked for this reset: a second administrator approves or refuses it."
        if refusal:
            raise ValidationError(refusal)
        reset.outcome = SecondFactorReset.Outcome.APPROVED if approve else SecondFactorReset.Outcome.REFUSED
        reset.decided_by = actor
        reset.decided_at = timezone.now()
        reset.save()
        if approve:
            removed = TOTPDevice.objects.filter(user=reset.person).count()
            TOTPDevice.objects.filter(user=reset.person).delete()
            StaticDevice.objects.filter(user=reset.person).delete()
            accounts.account_event(reset.person, event="Second factor reset: authenticator and backup codes removed",
                                   actor=actor, details={"asked by": accounts.display_name(reset.requested_by),
                                                         "approved by": accounts.display_name(actor),
                                                         "authenticators removed": removed},
                                   reason=reset.reason)
        else:
            accounts.account_event(reset.person, event="Second-factor reset refused", actor=actor,
                                   details={"asked by": accounts.display_name(reset.requested_by)})
    transaction.on_commit(lambda: _tell(reset.pk))
    return reset


def second_factor_reset_mail(reset_id: int) -> Notification | None:
    """The e-mail telling the person what happened to their second factor (asked, approved or refused)."""
    reset = SecondFactorReset.objects.select_related("person", "requested_by", "decided_by").filter(
        pk=reset_id).first()
    if reset is None or not reset.person.email:
        return None
    name = accounts.display_name(reset.person)
    if reset.outcome == SecondFactorReset.Outcome.PENDING:
        what = (f"{accounts.display_name(reset.requested_by)} asked to remove your authenticator app and backup "
                f"codes (reason given: {reset.reason}). A second administrator must approve it.")
    elif reset.outcome == SecondFactorReset.Outcome.APPROVED:
        what = ("Your authenticator app and backup codes were removed (asked by "
                f"{accounts.display_name(reset.requested_by)}, approved by {accounts.display_name(reset.decided_by)}). "
                "At your next sign-in you will enrol your authenticator app again.")
    else:
        what = "The request to remove your authenticator app was refused."
    body = (f"Hello {name},\n\n{what}\n\nIf you did not ask for this, tell your compliance officer at once.\n")
    return Notification.to([reset.person.email], subject="Your second factor", body=body)


def _tell(reset_id: int) -> None:
    from compliance.tasks import second_factor_reset_tell

    second_factor_reset_tell.delay(reset_id)
