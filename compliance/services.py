"""Writes of the foundation: signatures, corrections, people, facility choice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Group
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.dispatch import Signal
from django.http import HttpRequest
from django.utils import timezone

from compliance import accounts, signing_reads
from compliance.actors import acting_as, current_actor
from compliance.models import (
    AuditEvent,
    Department,
    Facility,
    Profile,
    RegulatedRecord,
    Signature,
    SignatureRequirement,
)
from compliance.people import person_name
from compliance.roles import (
    Capability,
    Role,
    is_inspector,
    require_capability,
    role_combination_refusal,
    role_department_refusal,
    roles_of,
)

__all__ = [
    "CoSigner",
    "action_only_refusal",
    "facility_select",
    "profile_create",
    "record_correct",
    "record_cosign",
    "record_sign",
    "record_signed",
    "signature_sign",
]


def _local(dt: Any) -> str:
    return f"{timezone.localtime(dt):%d %b %Y %H:%M}"


def _is(who: str) -> str:
    """ "you are" for the signed-in signer, "Dana Dealer is" for a co-signer at their screen."""
    return "you are" if who == "you" else f"{who} is"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _eligible_role(user: Any, requirement: SignatureRequirement, who: str) -> Role:
    """The role the user signs in, or a refusal that says who may sign."""
    held = roles_of(user)
    profile = user.profile
    if requirement.departments and profile.department.code not in requirement.departments:
        raise PermissionDenied(
            f"This signature must be given by {requirement.describe_who()}; "
            f"{_is(who)} in the {profile.department.name} department."
        )
    if not requirement.roles:
        return min(held, key=lambda r: r.value) if held else Role.ADMINISTRATOR
    matching = sorted(held & requirement.roles, key=lambda r: r.value)
    if not matching:
        theirs = ", ".join(sorted(r.label.lower() for r in held)) or "no role"
        raise PermissionDenied(f"This signature must be given by {requirement.describe_who()}; {_is(who)} {theirs}.")
    return matching[0]


# Sent inside the signing transaction once a signature is given (sender: the record's class; ``record``,
# ``signature``): a domain app that must act when a record becomes complete (coupons received become
# finance stock once both departments examined them) connects here, so the foundation imports no app.
record_signed = Signal()


def _check_signer(*, record: RegulatedRecord, requirement: SignatureRequirement, user: Any,
                  co_signer: bool) -> tuple[Profile, str]:
    """The signer's profile and how refusals name them, or the refusal: inspector, inactive person,
    another facility (the password is checked before, by :func:`_check_password`). The record is locked
    until the signing transaction ends."""
    profile = getattr(user, "profile", None)
    name = person_name(user)
    who = name if co_signer else "you"
    if profile is None or not profile.active or not user.is_active:
        raise PermissionDenied("Only an active person with a Board-issued credential number can sign.")
    # The record is locked here too, in the same statement (so two signers cannot race past the checks that follow).
    if not signing_reads.record_locked_signer_assigned(record, profile):
        raise PermissionDenied(f"{_sentence(_is(who))} not assigned to {record.facility} and cannot sign its records.")
    return profile, who


def _check_slot_free(*, record: RegulatedRecord, requirement: SignatureRequirement, existing: list[Signature],
                     user: Any, who: str) -> None:
    """The slot is not signed yet, the slot it follows is, and, where the record needs different people, this
    person has not signed another of its slots."""
    if requirement.after and not any(sig.slot == requirement.after for sig in existing):
        first = type(record).requirement(requirement.after)
        raise ValidationError(f"The “{requirement.label}” signature comes after "
                              f"“{first.label if first else requirement.after}”, which is not given yet.")
    for sig in existing:
        if sig.slot == requirement.slot:
            raise ValidationError(
                f"The “{requirement.label}” signature was already given by {sig.printed_name} on {_local(sig.signed_at)}."
            )
    if not requirement.distinct:
        return
    for sig in existing:
        if sig.distinct_person and sig.signer_id == user.pk:
            raise ValidationError(
                f"{_sentence(who)} already signed this {record._meta.verbose_name} as "
                f"“{sig.get_meaning_display().lower()}”. "
                f"It needs a different person for “{requirement.label}” (segregation of duties)."
            )


def _check_password(*, requirement: SignatureRequirement, user: Any, password: str, co_signer: bool) -> None:
    """The signer's own password, refused in words; five wrong ones in 15 minutes lock their signing for
    15 minutes, and each failure and lock is an audit event (written even though the refusal rolls the
    signing back: compliance.accounts keeps it aside until the transaction has ended)."""
    name = person_name(user)
    state = accounts.signing_state(user)  # both questions in one read of the trail
    if state.locked:
        raise ValidationError(f"{name}: {accounts.LOCKED_OUT_MESSAGE}" if co_signer else accounts.LOCKED_OUT_MESSAGE)
    if accounts.password_matches(user, password):
        if state.temporary:
            whose = f"{name}'s password was" if co_signer else "Your password was"
            raise ValidationError(
                f"{whose} set by an administrator and is temporary: choose your own password "
                "(Change your password, /accounts/password/) before signing."
            )
        return
    accounts.signing_failure_record(user, co_signer=co_signer)
    if co_signer:
        raise ValidationError(
            f"{name}'s password is not correct; {name} re-enters their own password to sign as "
            f"the {requirement.label.lower()}."
        )
    raise ValidationError("That password is not correct. Re-enter your own password to sign.")


def signature_sign(
    *, record: RegulatedRecord, slot: str, user: Any, password: str, co_signer: bool = False, on_its_form: bool = False
) -> Signature:
    """Give the signature ``slot`` on ``record`` as ``user``, who re-enters their password (see
    :func:`_signature_give`). The password is checked outside the signing transaction, so that a
    wrong one is counted even though the signing rolls back.

    A slot bound to an action (a mailing's release) is given only by that action's service, which says so with
    ``on_its_form=True`` after its own checks; anywhere else (the common signing page) it is refused."""
    requirement = type(record).requirement(slot)
    if requirement is None:
        raise ValidationError(f"A {record._meta.verbose_name} has no signature called {slot!r}.")
    if is_inspector(user):
        raise PermissionDenied("Board inspectors have read-only access and cannot sign records.")
    if requirement.given_by_action and not on_its_form:
        raise ValidationError(action_only_refusal(record, requirement))
    _check_password(requirement=requirement, user=user, password=password, co_signer=co_signer)
    return _signature_give(record=record, requirement=requirement, user=user, co_signer=co_signer)


def action_only_refusal(record: RegulatedRecord, requirement: SignatureRequirement) -> str:
    """Why a slot bound to an action is not signed on the signing page, and where it is."""
    what = record._meta.verbose_name
    return (f"The “{requirement.label}” signature is given by the action itself: use “{requirement.action}” on the "
            f"{what}'s page, which checks that the action may be done before it is signed. Nothing was signed here.")


@transaction.atomic
def _signature_give(
    *, record: RegulatedRecord, requirement: SignatureRequirement, user: Any, co_signer: bool
) -> Signature:
    """Give the signature ``slot`` on ``record`` as ``user``, who re-enters their password.

    ``co_signer=True`` when ``user`` is a second person typing their password at someone else's
    screen (the dealer at the floorperson's tablet): refusals then name them instead of saying
    "you", which would read as the signed-in person's mistake.

    Refuses, saying why: a wrong password (or one an administrator set), too many wrong passwords,
    an inactive person, a person not assigned to the record's facility, a role the slot does not accept,
    a slot already signed, the same person signing twice where the record needs two people, or a record
    changed since it was first signed.
    """
    slot = requirement.slot
    profile, who = _check_signer(record=record, requirement=requirement, user=user, co_signer=co_signer)
    role = _eligible_role(user, requirement, who)

    content_type = ContentType.objects.get_for_model(record)
    # Read after the lock taken by _check_signer, in a statement of its own (compliance.signing_reads says why).
    existing = signing_reads.signatures_on(content_type.pk, record.pk)
    _check_slot_free(record=record, requirement=requirement, existing=existing, user=user, who=who)
    content_hash = record.content_hash()
    if existing and any(sig.content_hash != content_hash for sig in existing):
        raise ValidationError("This record changed after it was first signed; it cannot be signed again.")
    signature = Signature(
        facility_id=record.facility_id,
        content_type=content_type,
        object_id=record.pk,
        slot=slot,
        meaning=requirement.meaning,
        signer=user,
        printed_name=profile.full_name,
        credential_number=profile.credential_number,
        department=profile.department.name,
        role=role,
        content_hash=content_hash,
        distinct_person=requirement.distinct,
        citation=requirement.citation or type(record).citation,
    )
    event = AuditEvent.of(
        record,
        action=AuditEvent.Action.SIGNED,
        actor=user,
        occurred_at=signature.signed_at,
        changes={"slot": slot, "meaning": requirement.meaning, "content_hash": content_hash},
    )
    # The signature and its event in one statement. A refusal by the database (the slot signed, or this person
    # signed, by a transaction that committed meanwhile) leaves this transaction aborted: the ValidationError
    # leaving this function's atomic block rolls it back to where the signing began, as a savepoint of its own would.
    try:
        signing_reads.signature_write(signature, event)
    except IntegrityError:
        raise ValidationError(
            "This signature could not be given: the slot was just signed, or you already signed this record."
        ) from None
    record.after_signature(signature)
    record_signed.send(sender=type(record), record=record, signature=signature)
    return signature


@dataclass(frozen=True)
class CoSigner:
    """A second person signing at the same window: who, and the password they typed."""

    user: Any
    password: str


def record_sign(*, record: RegulatedRecord, slot: str, user: Any, password: str | None) -> Signature | None:
    """The signature of the person who writes the record, given in the same transaction (a wrong
    password saves nothing). ``password=None``: they sign later, on the signing page."""
    if password is None:
        return None
    with acting_as(user):
        return signature_sign(record=record, slot=slot, user=user, password=password, on_its_form=True)


def record_cosign(*, record: RegulatedRecord, slot: str, co_signer: CoSigner | None) -> Signature | None:
    """A second person's signature at the same window (the dealer at the floorperson's tablet, the
    receiving supervisor at the issuing one's). Every refusal names them and is said on the form,
    not as a 403 page: it is about the person beside the signed-in one, not about what the
    signed-in person may do."""
    if co_signer is None or co_signer.user is None:
        return None
    name = person_name(co_signer.user)
    requirement = record.requirement(slot)
    label = requirement.label.lower() if requirement is not None else slot
    try:
        with acting_as(co_signer.user):
            return signature_sign(
                record=record, slot=slot, user=co_signer.user, password=co_signer.password, co_signer=True,
                on_its_form=True,
            )
    except PermissionDenied as error:
        raise ValidationError(f"{name} cannot sign as the {label}: {error}") from None


_NOT_COPIED = {"id", "created_at", "created_by", "corrects", "correction_reason"}


@transaction.atomic
def record_correct(*, original: RegulatedRecord, reason: str, user: Any, changes: dict[str, Any]) -> RegulatedRecord:
    """Correct a signed record with a new, linked record; the original stays as it was, visible.

    The correction starts unsigned and needs its own signatures. A record is corrected once;
    to change it again, correct the correction.
    """
    require_capability(user, Capability.CORRECT_RECORDS)
    if not reason.strip():
        raise ValidationError("Say why the record is being corrected.")
    original = type(original).objects.select_for_update().get(pk=original.pk)
    if not original.is_signed():
        raise ValidationError("This record is not signed yet; change it directly instead of correcting it.")
    if original.is_superseded:
        raise ValidationError(
            f"This record was already corrected by #{original.corrected_by.pk}; correct that record instead."
        )
    unknown = set(changes) - {f.name for f in original._meta.concrete_fields}
    if unknown:
        raise ValidationError(f"Unknown fields: {', '.join(sorted(unknown))}.")
    values = {
        f.attname: getattr(original, f.attname)
        for f in original._meta.concrete_fields
        if f.name not in _NOT_COPIED and f.attname not in _NOT_COPIED
    }
    correction = type(original)(**values)
    for name, value in changes.items():
        setattr(correction, name, value)
    correction.corrects = original
    correction.correction_reason = reason.strip()
    correction.created_by = user
    with acting_as(user):
        correction.save()
    AuditEvent.log(
        original,
        action=AuditEvent.Action.CORRECTED,
        actor=user,
        changes={"corrected_by": correction.pk},
        reason=correction.correction_reason,
    )
    return correction


@transaction.atomic
def profile_create(
    *,
    username: str,
    full_name: str,
    credential_number: str,
    department_code: str,
    roles: list[Role],
    facilities: list[Facility],
    password: str | None = None,
    email: str = "",
) -> AbstractBaseUser:
    """Create a person with their Board credential, department, roles and facilities.

    A ``password`` given here is temporary: the person chooses their own at their first sign-in before
    they can sign anything (an administrator must not know a password that signs)."""
    credential_number = credential_number.strip()
    if not credential_number:
        raise ValidationError("A Board-issued credential number is required.")
    existing = Profile.objects.filter(credential_number=credential_number).select_related("user").first()
    if existing is not None:
        raise ValidationError(f"Credential number {credential_number} already belongs to {existing.full_name}.")
    try:
        department = Department.objects.get(code=department_code)
    except Department.DoesNotExist:
        raise ValidationError(f"There is no department {department_code!r}.") from None
    refusal = role_department_refusal(roles, department.code, who=full_name or username) or role_combination_refusal(
        roles, who=full_name or username)
    if refusal:
        raise ValidationError(refusal)
    user_model = get_user_model()
    user = user_model.objects.create_user(username=username, email=email, password=password)
    if password is None:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    user.groups.set(Group.objects.filter(name__in=[r.value for r in roles]))
    if Role.ADMINISTRATOR in roles:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    profile = Profile.objects.create(
        user=user, full_name=full_name, credential_number=credential_number, department=department
    )
    profile.facilities.set(facilities)
    if password is not None:
        accounts.account_event(user, event=accounts.EVENT_PASSWORD_TEMPORARY, actor=current_actor())
    return user


def facility_select(*, request: HttpRequest, facility_id: int) -> Facility:
    from compliance.middleware import FacilityMiddleware
    from compliance.selectors import facilities_for

    facility = facilities_for(request.user).filter(pk=facility_id).first()
    if facility is None:
        raise PermissionDenied("You are not assigned to that facility.")
    request.session[FacilityMiddleware.SESSION_KEY] = facility.pk
    return facility
