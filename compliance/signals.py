"""Receivers that index every history row in the audit trail, and the guard that keeps each role in its
department."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from axes.signals import user_locked_out
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.signals import m2m_changed, pre_save
from django.dispatch import receiver
from simple_history.signals import post_create_historical_record

from compliance.actors import history_user_getter
from compliance.models.audit import AuditEvent
from compliance.models.base import AuditedModel

_ACTIONS = {"+": AuditEvent.Action.CREATED, "~": AuditEvent.Action.CHANGED, "-": AuditEvent.Action.DELETED}


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _in_words(instance: Any, field_name: str, value: Any) -> Any:
    """A foreign key's value as the related record's name (an id means nothing to a reader); other
    values as stored, made JSON-safe. Choices and yes/no are put in words when the row is shown."""
    model_field = instance._meta.get_field(field_name)
    if value is not None and isinstance(model_field, models.ForeignKey):
        if model_field.is_cached(instance) and getattr(getattr(instance, field_name), "pk", None) == value:
            return str(getattr(instance, field_name))  # the object the service already holds: no query
        related_model = cast("type[models.Model]", model_field.related_model)  # never 'self' once apps are loaded
        related = related_model._default_manager.filter(pk=value).first()
        return str(related) if related is not None else f"#{value} (no longer exists)"
    return _jsonable(value)


# What a created record's audit row leaves out: its id (the row names it), its facility (the trail is the
# facility's), the chain's seal and anything secret.
_NOT_SHOWN_ON_CREATION = ("password", "secret", "token", "seal", "mac", "digest", "key_id")


def _created_values(instance: Any) -> dict[str, Any]:
    """The values a record was created with, in words ("Created" alone told a reader nothing)."""
    return created_values(type(instance), lambda attname: getattr(instance, attname, None),
                          lambda name, value: _in_words(instance, name, value))


def created_values(model: type[models.Model], value_of: Callable[[str], Any],
                   words_of: Callable[[str, Any], Any]) -> dict[str, Any]:
    """:func:`_created_values` of a row given by ``value_of(attname)``, a foreign key's value put in words by
    ``words_of(field name, value)`` (the generator of a year, :mod:`compliance.scale`, writes rows without
    instances and names their related records from a dictionary)."""
    values: dict[str, Any] = {}
    for model_field in model._meta.concrete_fields:
        name = model_field.name
        if model_field.primary_key or name == "facility" or any(word in name for word in _NOT_SHOWN_ON_CREATION):
            continue
        value = value_of(model_field.attname)
        if value is None or value == "" or value == [] or value == {}:
            continue
        words = words_of(name, value)
        values[name] = words[:200] + "…" if isinstance(words, str) and len(words) > 200 else words
    return values


_PREVIOUS_READ = object()


def audit_event_of(instance: Any, history_instance: Any, previous: Any = _PREVIOUS_READ) -> AuditEvent | None:
    """The audit trail's row for one history row of ``instance``, not saved yet; None for a save that changed no
    field. :func:`index_history_row` saves it after every history row; ``compliance.raw_writes`` writes it beside
    the history row it builds the same way (the coupon scan's one statement). ``previous``: the history row before
    this one (a change's), when the caller holds it (``compliance.bulk_records``); else it is read."""
    changes: dict[str, Any] = {}
    if history_instance.history_type == "+":
        changes = _created_values(instance)
    if history_instance.history_type == "~":
        if previous is _PREVIOUS_READ:
            previous = history_instance.prev_record
        if previous is not None:
            delta = history_instance.diff_against(previous)
            changes = {
                c.field: [_in_words(instance, c.field, c.old), _in_words(instance, c.field, c.new)]
                for c in delta.changes
            }
        if not changes:
            # A save that changed no field (the admin saves a person before granting a facility, the
            # grant itself being a many-to-many change indexed below) is no change: an empty "changed"
            # row said nothing. simple_history keeps the row itself.
            return None
    return AuditEvent(
        occurred_at=history_instance.history_date,
        facility_id=AuditEvent.facility_id_of(instance),
        actor=history_instance.history_user,
        action=_ACTIONS[history_instance.history_type],
        model_label=instance._meta.label,
        model_name=str(instance._meta.verbose_name),
        object_id=str(instance.pk),
        object_repr=str(instance)[:200],
        history_id=history_instance.pk,
        changes=changes,
        reason=history_instance.history_change_reason or "",
    )


# ``@receiver``, not ``@signal.connect``: ``connect`` returns None, so the module kept no reference and the
# weakly held receiver died as soon as nothing else held it (with DEBUG off, in production, at once).
@receiver(post_create_historical_record)
def index_history_row(sender: Any, instance: Any, history_instance: Any, **kwargs: Any) -> None:
    event = audit_event_of(instance, history_instance)
    if event is not None:
        event.save(force_insert=True)


def _m2m_field(model: type[models.Model], through: Any) -> Any:
    return next((f for f in model._meta.many_to_many if f.remote_field.through is through), None)


@receiver(m2m_changed)
def index_many_to_many_change(
    sender: Any, instance: Any, action: str, reverse: bool, model: Any, pk_set: set[Any] | None, **kwargs: Any
) -> None:
    """A many-to-many change (a person granted a facility in the admin) as one audit row per record,
    naming what was added and removed. simple_history sees no field change there, so without this
    the grant left only an empty "changed" row."""
    if action not in ("post_add", "post_remove", "pre_clear"):
        return
    owner_model = type(instance) if not reverse else model
    if not issubclass(owner_model, AuditedModel):
        return
    m2m = _m2m_field(owner_model, sender)
    if m2m is None:
        return
    if action == "pre_clear":
        pk_set = set(getattr(instance, m2m.name if not reverse else m2m.remote_field.get_accessor_name()).values_list(
            "pk", flat=True))
    if not pk_set:
        return
    key = "added" if action == "post_add" else "removed"
    others = model._default_manager.filter(pk__in=pk_set).order_by("pk")
    actor = history_user_getter()
    if not reverse:
        names = sorted(str(other) for other in others)
        AuditEvent.log(instance, action=AuditEvent.Action.CHANGED, actor=actor, changes={m2m.name: {key: names}})
        return
    for owner in others:  # facility.staff.add(profile): the change is the profile's
        AuditEvent.log(owner, action=AuditEvent.Action.CHANGED, actor=actor, changes={m2m.name: {key: [str(instance)]}})


def grant_administrator_permissions(**kwargs: Any) -> None:
    """The administrator role manages the registers in the admin: view, add and change — never delete."""
    from django.contrib.auth.models import Group, Permission

    from compliance.roles import Role

    group = Group.objects.filter(name=Role.ADMINISTRATOR).first()
    if group is None:
        return
    from compliance.registry import administered_labels

    # The apps that declare their registers administered (their apps.py), and the accounts.
    wanted = Permission.objects.filter(
        content_type__app_label__in=[*administered_labels(), "auth"]
    ).exclude(codename__startswith="delete_")
    group.permissions.add(*wanted)


@receiver(m2m_changed, sender=get_user_model().groups.through)
def refuse_a_role_outside_its_department(
    sender: Any, instance: Any, action: str, reverse: bool, model: Any, pk_set: set[Any] | None, **kwargs: Any
) -> None:
    """A role is held only by a member of its department, however it is granted (admin, shell, service):
    the last line behind the forms, which say it in words first."""
    from django.contrib.auth.models import Group

    from compliance.models import Profile
    from compliance.roles import role_department_refusal

    if action != "pre_add" or not pk_set:
        return
    if reverse:  # group.user_set.add(user, ...)
        pairs = [(user, [instance.name]) for user in model._default_manager.filter(pk__in=pk_set)]
    else:
        pairs = [(instance, list(Group.objects.filter(pk__in=pk_set).values_list("name", flat=True)))]
    for user, names in pairs:
        profile = Profile.objects.filter(user=user).select_related("department").first()
        refusal = role_department_refusal(names, profile.department.code, who=profile.full_name) if profile else ""
        if refusal:
            raise ValidationError(refusal)


@receiver(pre_save, sender="compliance.Profile")
def refuse_a_department_its_roles_do_not_allow(sender: Any, instance: Any, **kwargs: Any) -> None:
    from compliance.roles import role_department_refusal

    if instance.user_id is None or instance.department_id is None:
        return
    names = list(instance.user.groups.values_list("name", flat=True))
    refusal = role_department_refusal(names, instance.department.code, who=instance.full_name or "This person")
    if refusal:
        raise ValidationError(refusal)


# People's accounts (issue 9, item 4): an administrator cannot act as another person nor give themselves
# more power, and every change to an account reaches the audit trail in words (compliance.accounts).

_ACCOUNT_FIELDS = ("username", "first_name", "last_name", "email", "is_active", "is_staff", "is_superuser")
_OWN_FLAGS = {"is_staff": "staff status", "is_superuser": "superuser status"}


def _acting_on_self(user: Any) -> bool:
    actor = history_user_getter()
    return actor is not None and user.pk is not None and actor.pk == user.pk


@receiver(pre_save, sender=get_user_model())
def audit_an_account_change(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    """A password set (temporary unless the person chose it), a flag changed, a name changed: each an audit
    event about the person; a person turning on their own staff or superuser status is refused."""
    from compliance import accounts

    if instance.pk is None or kwargs.get("raw"):
        return
    before = sender._default_manager.filter(pk=instance.pk).values(*_ACCOUNT_FIELDS).first()
    if before is None:
        return
    changed = {f: [before[f], getattr(instance, f)] for f in _ACCOUNT_FIELDS if before[f] != getattr(instance, f)}
    own = [label for f, label in _OWN_FLAGS.items() if f in changed]
    if own and _acting_on_self(instance):
        raise ValidationError(accounts.own_change_refused(instance.pk, own))
    actor = history_user_getter()
    from compliance.admin_scope import unbounded

    if "is_superuser" in changed and actor is not None and not unbounded(actor):
        # A superuser stands outside every facility's scope (and could approve a second-factor reset): only the
        # installation's console account grants it (issue 22).
        raise ValidationError("Only the installation's console account grants or removes superuser status.")
    if changed:
        accounts.account_event(instance, event="Account changed", actor=actor, details=changed)
    if "email" in changed and before["email"] and actor is not None and actor.pk != instance.pk:
        from compliance.password_links import email_change_tell_old_address

        email_change_tell_old_address(instance, old=before["email"], actor=actor)
    if getattr(instance, "_password", None) is not None:  # set_password() ran (not a hash upgrade)
        _audit_a_password(instance, actor)


def _audit_a_password(user: Any, actor: Any) -> None:
    from compliance import accounts

    # No one behind the change (a test factory, createsuperuser at the server's console): the person's own.
    own = actor is None or actor.pk == user.pk
    event = accounts.EVENT_PASSWORD_OWN if own else accounts.EVENT_PASSWORD_TEMPORARY
    accounts.account_event(user, event=event, actor=actor)


@receiver(m2m_changed, sender=get_user_model().groups.through)
def audit_a_role_change(
    sender: Any, instance: Any, action: str, reverse: bool, model: Any, pk_set: set[Any] | None, **kwargs: Any
) -> None:
    """Roles granted and withdrawn, named, on the person's audit trail; no one grants or withdraws their
    own roles, and the administrator role is held apart from every role that signs records."""
    from django.contrib.auth.models import Group

    from compliance import accounts
    from compliance.roles import role_combination_refusal

    if action not in ("pre_add", "post_add", "post_remove", "pre_clear") or (action != "pre_clear" and not pk_set):
        return
    if reverse:
        people = list(model._default_manager.filter(pk__in=pk_set or ()))
        pairs = [(user, [instance.name]) for user in people]
    else:
        names = [instance.groups.values_list("name", flat=True)] if action == "pre_clear" else [
            Group.objects.filter(pk__in=list(pk_set or ())).values_list("name", flat=True)]
        pairs = [(instance, list(names[0]))]
    for user, names in pairs:
        if action == "pre_add":
            if _acting_on_self(user):
                accounts.own_change_refused(user.pk, ["roles"])
                raise ValidationError("You cannot grant yourself a role; another administrator does that.")
            held = list(user.groups.values_list("name", flat=True))
            refusal = role_combination_refusal([*held, *names], who=_name_of(user))
            if refusal:
                raise ValidationError(refusal)
            continue
        if _acting_on_self(user) and names:
            accounts.own_change_refused(user.pk, ["roles"])
            raise ValidationError("You cannot withdraw your own roles; another administrator does that.")
        key = "added" if action == "post_add" else "removed"
        if names:
            accounts.account_event(user, event="Roles changed", actor=history_user_getter(),
                                   details={"roles": {key: sorted(_role_label(n) for n in names)}})


def _name_of(user: Any) -> str:
    from compliance.accounts import display_name

    return display_name(user)


def _role_label(name: str) -> str:
    from compliance.roles import Role

    return str(Role(name).label) if name in Role.values else name


@receiver(m2m_changed, sender="compliance.Profile_facilities")
def refuse_granting_oneself_a_facility(
    sender: Any, instance: Any, action: str, reverse: bool, model: Any, pk_set: set[Any] | None, **kwargs: Any
) -> None:
    """No one changes the facilities they are assigned to (the grant itself is audited by
    ``index_many_to_many_change``)."""
    from compliance.models import Profile

    if action not in ("pre_add", "pre_remove", "pre_clear"):
        return
    from compliance.admin_scope import facility_grant_refusal

    profiles = Profile.objects.filter(pk__in=list(pk_set or ())) if reverse else [instance]
    for profile in profiles:
        if _acting_on_self(profile.user):
            from compliance import accounts

            accounts.own_change_refused(profile.user_id, ["facilities"])
            raise ValidationError("You cannot change the facilities you are assigned to; another administrator "
                                  "does that.")
    # Only an administrator of a facility assigns people to it or takes them off it (issue 22, item 4).
    if reverse:
        touched = {instance.pk}
    elif action == "pre_clear":
        touched = set(instance.facilities.values_list("pk", flat=True))
    else:
        touched = set(pk_set or ())
    refusal = facility_grant_refusal(history_user_getter(), touched)
    if refusal:
        raise ValidationError(refusal)


@receiver(user_login_failed)
def audit_a_failed_sign_in(sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any) -> None:
    """Each refused sign-in, on the named person's trail (or as an unknown name, bounded); the page answers the
    same either way (compliance.accounts.sign_in_refused)."""
    from compliance import accounts

    accounts.sign_in_refused(request, str((credentials or {}).get("username") or ""))


@receiver(user_locked_out)
def audit_a_sign_in_lock_out(sender: Any, request: Any = None, username: str = "", ip_address: str = "",
                             **kwargs: Any) -> None:
    from compliance import accounts

    accounts.sign_in_locked(request, username or "")


@receiver(user_logged_in)
def note_whether_the_password_is_the_persons_own(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """Read once per session whether an administrator set the password; a person still on a temporary one
    is sent to change it on every page (compliance.middleware.AccountSecurityMiddleware)."""
    from compliance import accounts
    from compliance.middleware import AccountSecurityMiddleware

    if request is not None and hasattr(request, "session"):
        request.session[AccountSecurityMiddleware.OWN_PASSWORD_KEY] = not accounts.password_is_temporary(user)
        AccountSecurityMiddleware.seen_now(request)
