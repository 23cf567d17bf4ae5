"""Reads of the foundation, always scoped to what the user may see."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, time, timedelta
from functools import cache, lru_cache
from typing import Any

from django.db import connection
from django.db.models import (
    BigIntegerField,
    BooleanField,
    CharField,
    Exists,
    ExpressionWrapper,
    Func,
    OuterRef,
    Q,
    QuerySet,
)
from django.db.models.functions import Cast
from django.utils import timezone

from compliance.keyset import Keyset
from compliance.models import AuditEvent, Facility, GamingTable, Profile, SecondFactorReset, Signature
from compliance.roles import Role

__all__ = [
    "audit_event_page",
    "audit_events",
    "facilities_for",
    "latest_audit_events",
    "may_sign",
    "no_audit_events",
    "people_emails",
    "people_holding",
    "profiles_of",
    "recent_signatures_of",
    "records_awaiting_signature",
    "regulated_record",
    "signature_in",
    "signature_page",
    "tables_of",
]


def facilities_for(user: Any) -> QuerySet[Facility]:
    """Facilities the user works at, or, for a Board inspector, those they are assigned to."""
    if not user.is_authenticated:
        return Facility.objects.none()
    if user.is_superuser and not hasattr(user, "profile"):
        return Facility.objects.all()
    return Facility.objects.filter(staff__user=user).distinct().order_by("name")


def people_holding(
    facility: Facility, roles: Iterable[Role] = (), *, department: str | None = None
) -> QuerySet[Any]:
    """Active people assigned to ``facility`` who hold one of ``roles`` (any role when none is named),
    optionally of one department, by name. The one query that reads roles from group names, beside
    :func:`compliance.roles.roles_of`."""
    from django.contrib.auth import get_user_model

    people = get_user_model().objects.filter(is_active=True, profile__active=True, profile__facilities=facility)
    wanted = [Role(role).value for role in roles]
    if wanted:
        people = people.filter(groups__name__in=wanted)
    if department:
        people = people.filter(profile__department__code=department)
    return people.select_related("profile").distinct().order_by("profile__full_name")


def people_emails(facility: Facility, roles: Iterable[Role]) -> list[str]:
    """The e-mail addresses of :func:`people_holding` ``roles`` at ``facility`` (people without one skipped)."""
    emails = people_holding(facility, roles).exclude(email="").values_list("email", flat=True)
    return sorted(set(emails))


@cache
def _shared_register_labels() -> tuple[str, ...]:
    """Audited models that belong to no facility (besides people): shown on every facility's trail. A model whose
    rows belong to a facility through another record (``facility_through``) is not one: its changes carry that
    facility (``AuditEvent.facility_id_of``); a person's second-factor reset is theirs (:func:`_audit_branches`)."""
    from django.apps import apps

    from compliance.models import AuditedModel

    return tuple(
        m._meta.label
        for m in apps.get_models()
        if issubclass(m, AuditedModel)
        and m not in (Profile, Facility, SecondFactorReset)
        and not m.facility_through
        and "facility" not in {f.name for f in m._meta.get_fields()}
    )


@cache
def _through_models() -> dict[str, tuple[type[Any], str]]:
    """By label, (the model, its foreign key to the record with the facility) of every audited model whose rows
    belong to a facility through another record."""
    from django.apps import apps

    from compliance.models import AuditedModel

    return {m._meta.label: (m, m.facility_through) for m in apps.get_models()
            if issubclass(m, AuditedModel) and m.facility_through
            and "facility" not in {f.name for f in m._meta.get_fields()}}


class _NumericKey(Func):
    """An audit event's ``object_id`` as the integer key it names, NULL where it is not one: no row matches then,
    and no text makes the cast fail."""

    template = "(CASE WHEN %(expressions)s ~ '^[0-9]{1,18}$' THEN (%(expressions)s)::bigint END)"
    output_field = BigIntegerField()

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        # SQLite casts any text: one that is not a number is 0, which no row's key is.
        return super().as_sql(compiler, connection, template="CAST(%(expressions)s AS integer)", **extra)


def _through_here(facility: Facility, label: str) -> Q:
    """The changes of ``label``'s rows written without a facility whose record is this facility's. Until 30 Nov 2026
    five models that reach theirs through another record (an assignment through its roster, a camera's coverage
    and outages, a mailing's screening and list import) were taken for shared registers: their changes carried no
    facility and every facility's trail showed them. Audit events are sealed and never rewritten, so the trail
    reads those through their record: one probe of its primary key each."""
    model, through = _through_models()[label]
    mine = model._base_manager.filter(pk=_NumericKey(OuterRef("object_id")), **{f"{through}__facility": facility})
    return Q(facility__isnull=True, model_label=label) & Q(Exists(mine))


def _resets_of(staff: QuerySet[Profile]) -> QuerySet[Any]:
    """The second-factor resets of ``staff``, their keys as audit events name them."""
    return (SecondFactorReset.objects.filter(person__profile__in=staff).annotate(key=Cast("pk", CharField()))
            .values("key"))


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def _audit_branches(facility: Facility, model_label: str = "") -> list[Q]:
    """The changes a facility's trail shows, in disjoint parts, each one an index reads in time order: the facility's
    own, and those without a facility that are its too. A record type filter keeps only the part it can be in (a
    shared register's or a person's change never carries a facility: ``AuditEvent.facility_id_of``).

    Changes to shared registers (departments, games, program types) carry no facility and belong to every
    facility; a person's profile and second-factor resets belong to the facilities they work at, so an inspector of
    one facility does not read the staff changes of another; a record that reaches its facility through another
    carries that facility, and where an earlier version wrote it without one it is read through its record
    (:func:`_through_here`)."""
    shared, profile, reset = _shared_register_labels(), Profile._meta.label, SecondFactorReset._meta.label
    staff_here = Profile.objects.filter(facilities=facility)
    of_shared = Q(facility__isnull=True, model_label__in=shared)
    of_staff = Q(facility__isnull=True, model_label=profile,
                 object_id__in=staff_here.annotate(key=Cast("pk", CharField())).values("key"))
    of_resets = Q(facility__isnull=True, model_label=reset, object_id__in=_resets_of(staff_here))
    through = _through_models()
    if model_label in shared:
        return [of_shared]
    if model_label == profile:
        return [of_staff]
    if model_label == reset:
        return [of_resets]
    if model_label in through:
        # One part, not two: the facility's changes of that type and the older ones without a facility are read in
        # one walk back through time. Apart, the first part would read back through every older change of the
        # facility for the type's changes from before it carried one (358 ms on 12 generated days; about 30 s a year).
        return [Q(facility=facility) | _through_here(facility, model_label)]
    if model_label:
        return [Q(facility=facility)]
    # The older changes read through their record are a part of their own. In the part of the shared registers'
    # and the staff's changes, the probes of those record types (seventeen) made the planner read every change
    # without a facility and sort them for each page: 1.2 s a page on 2,000,000 changes (bench/audit_page_bench.py,
    # 30 Nov 2026), against 1 ms before. Apart, that part walks its index in time order again, and this one finds
    # its few rows (none in a database written since) by the record types' index.
    parts = [Q(facility=facility), of_shared | of_staff | of_resets]
    if through:
        through_here = _through_here(facility, min(through))
        for label in sorted(through)[1:]:
            through_here |= _through_here(facility, label)
        parts.append(through_here)
    return parts


def _audit_filtered(
    events: QuerySet[AuditEvent],
    *,
    date_from: date | None = None,
    date_to: date | None = None,
    actor_id: int | None = None,
    model_label: str = "",
    object_id: str = "",
    action: str = "",
) -> QuerySet[AuditEvent]:
    if date_from:
        events = events.filter(occurred_at__gte=_day_start(date_from))
    if date_to:
        events = events.filter(occurred_at__lt=_day_start(date_to) + timedelta(days=1))
    if actor_id:
        events = events.filter(actor_id=actor_id)
    if model_label:
        events = events.filter(model_label=model_label)
    if object_id:
        events = events.filter(object_id=object_id)
    if action:
        events = events.filter(action=action)
    return events


def _audit_shown(events: QuerySet[AuditEvent], facility: Facility) -> QuerySet[AuditEvent]:
    """The events with what their rows show: the actor and whether they work here."""
    # Who changed a shared register is named only if they work here (AuditEvent.actor_shown).
    works_here = Profile.objects.filter(user_id=OuterRef("actor_id"), facilities=facility)
    return events.select_related("actor__profile").annotate(actor_elsewhere=ExpressionWrapper(
        Q(facility__isnull=True, actor__profile__isnull=False) & ~Exists(works_here), output_field=BooleanField()))


def audit_events(*, facility: Facility, **filters: Any) -> QuerySet[AuditEvent]:
    """Every change in the facility, newest first, with the filters of the audit page (``date_from``, ``date_to``,
    ``actor_id``, ``model_label``, ``object_id``, ``action``): the exports, streamed."""
    branches = _audit_branches(facility)
    anywhere = branches[0]
    for branch in branches[1:]:
        anywhere |= branch
    return _audit_filtered(_audit_shown(AuditEvent.objects.filter(anywhere), facility), **filters)


def audit_event_page(*, facility: Facility, keyset: Keyset, limit: int, **filters: Any) -> list[AuditEvent]:
    """Up to ``limit`` changes of :func:`audit_events` from where ``keyset`` starts, in its order (issue 27: keyset
    pagination, no count).

    Two statements. The first finds the page's keys: each part of the trail (:func:`_audit_branches`) read on
    its own, ordered and cut to ``limit``, then merged; as one ``OR`` the planner can follow no index in the
    page's order and sorts every matching row. The second reads those rows with what the page shows."""
    keys = [keyset.applied(_audit_filtered(AuditEvent.objects.filter(branch), **filters), "occurred_at")
            .values_list("occurred_at", "pk")[:limit] for branch in _audit_branches(facility, filters.get(
                "model_label", ""))]
    order = ("occurred_at", "pk") if keyset.newer else ("-occurred_at", "-pk")
    if len(keys) == 1:
        merged: Any = keys[0]
    elif connection.features.supports_slicing_ordering_in_compound:
        merged = keys[0].union(*keys[1:], all=True).order_by(*order)[:limit]
    else:  # SQLite (the embedded default) refuses a LIMIT inside a UNION: each part's few keys merged here
        merged = sorted((key for part in keys for key in part), reverse=not keyset.newer)[:limit]
    ids = [pk for _, pk in merged]
    if not ids:
        return []
    return list(_audit_shown(AuditEvent.objects.filter(pk__in=ids), facility).order_by(*order))


def latest_audit_events(*, facility: Facility, limit: int = 8) -> list[AuditEvent]:
    """The newest ``limit`` changes of :func:`audit_events`, newest first: the dashboard's latest changes.

    Two statements, as a page of the trail (:func:`audit_event_page`): the keys, then the rows with what they show.
    The first is :func:`audit_events`'s own query, compiled once a database, facility and limit and kept: it reads
    nothing but the facility's id and the app registry, neither of which changes while a process runs. Building its
    twenty-odd parts (one for each record type read through another) was 15 of the 19 ms the latest changes took on
    every compliance officer's and inspector's dashboard on a generated year; the statement itself runs in 4."""
    sql, params = _latest_keys_statement(connection.alias, facility.pk, limit)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        ids = [row[0] for row in cursor.fetchall()]
    if not ids:
        return []
    return list(_audit_shown(AuditEvent.objects.filter(pk__in=ids), facility).order_by("-occurred_at", "-pk"))


@lru_cache(maxsize=256)
def _latest_keys_statement(alias: str, facility_id: int, limit: int) -> tuple[str, tuple[Any, ...]]:
    keys = audit_events(facility=Facility(pk=facility_id)).order_by("-occurred_at", "-pk").values_list("pk")[:limit]
    sql, params = keys.query.get_compiler(using=alias).as_sql()
    return sql, tuple(params)


def no_audit_events() -> QuerySet[AuditEvent]:
    """The answer to a filter the person typed wrong: nothing, rather than everything."""
    return AuditEvent.objects.none()


def recent_signatures_of(user: Any, *, limit: int = 5) -> QuerySet[Signature]:
    return Signature.objects.filter(signer_id=user.pk).order_by("-signed_at")[:limit]


def signature_in(facility: Facility, pk: Any) -> Signature | None:
    return Signature.objects.select_related("content_type", "signer").filter(pk=pk, facility=facility).first()


def regulated_record(facility: Facility, content_type_id: Any, object_id: Any) -> Any | None:
    """A signed-record type's record of the facility (``None``: no such type, or not in this facility)."""
    from django.contrib.contenttypes.models import ContentType

    from compliance.models import RegulatedRecord

    content_type = ContentType.objects.filter(pk=content_type_id).first()
    model = content_type.model_class() if content_type is not None else None
    if model is None or not issubclass(model, RegulatedRecord):
        return None
    return model._default_manager.filter(pk=object_id, facility=facility).first()


def tables_of(facility: Facility) -> QuerySet[GamingTable]:
    return GamingTable.objects.filter(facility=facility).select_related("game")


def profiles_of(facility: Facility) -> QuerySet[Profile]:
    """The people who work at the facility, with their department and roles, by name."""
    return (
        Profile.objects.filter(facilities=facility)
        .select_related("department", "user")
        .prefetch_related("user__groups")
        .order_by("full_name")
    )


def signature_page(facility: Facility, keyset: Keyset, limit: int) -> list[Signature]:
    """Up to ``limit`` of the facility's signatures from where ``keyset`` starts, newest first (issue 27: keyset
    pagination on the index (facility, signed_at), no count)."""
    return list(keyset.applied(Signature.objects.filter(facility=facility), "signed_at")
                .select_related("content_type")[:limit])


def regulated_models() -> list[type[Any]]:
    from django.apps import apps

    from compliance.models import RegulatedRecord

    return [m for m in apps.get_models() if issubclass(m, RegulatedRecord)]


def records_awaiting_signature(user: Any, facility: Facility, *, limit: int = 20) -> list[tuple[Any, Any]]:
    """(record, requirement) pairs in the facility that still lack a signature this user could give.

    One query per (record type, signature slot) the user's roles can sign: a fixed number, not one
    per record, each reading only the records from the first one not yet settled, and none for a type with nothing
    unsettled (``compliance.awaiting``: a year's signed records are not read again on every view). Superseded
    records (corrected by a newer one) are left out. A slot bound to an action (a mailing's release) is listed like
    any other — it is this person's work — and linked to the action's form
    (``compliance.templatetags.compliance.signature_url``); a slot after it waits until the action is done.
    """
    from django.contrib.contenttypes.models import ContentType

    from compliance.awaiting import unsettled_from
    from compliance.roles import roles_of

    profile = _signing_profile(user)
    if profile is None:
        return []
    held = roles_of(user)
    to_give = {model: slots for model in regulated_models()
               if (slots := [r for r in model.signature_requirements if _fits(r, held, profile)])}
    found: list[tuple[Any, Any]] = []
    # Only the types that may hold an unsettled record, each from its first one (compliance.awaiting).
    for model, below in unsettled_from(to_give, facility).items():
        content_type = ContentType.objects.get_for_model(model)
        signatures = Signature.objects.filter(content_type=content_type, object_id__gte=below)
        for requirement in to_give[model]:
            pending = (
                model.objects.filter(facility=facility, corrected_by__isnull=True, pk__gte=below)
                .exclude(pk__in=signatures.filter(slot=requirement.slot).values("object_id"))
            )
            if requirement.after:  # a slot that follows another waits for it
                pending = pending.filter(pk__in=signatures.filter(slot=requirement.after).values("object_id"))
            pending = model.still_awaited(pending)
            if requirement.distinct:  # records this person already signed need someone else
                mine = signatures.filter(signer_id=user.pk, distinct_person=True)
                pending = pending.exclude(pk__in=mine.values("object_id"))
            if model.named_with:  # each name's rows joined, not a query a name (no arguments would join every key)
                pending = pending.select_related(*model.named_with)
            found.extend((record, requirement) for record in pending.order_by("-created_at")[:limit])
    found.sort(key=lambda pair: pair[0].created_at, reverse=True)
    return found[:limit]


def _signing_profile(user: Any) -> Profile | None:
    """The profile a person signs with, or ``None`` for who signs nothing: a Board inspector, an
    inactive person, an account without a Board-issued credential."""
    from compliance.roles import is_inspector

    if not getattr(user, "is_authenticated", False) or not user.is_active or is_inspector(user):
        return None
    profile = getattr(user, "profile", None)
    return profile if profile is not None and profile.active else None


def _fits(requirement: Any, held: frozenset[Role], profile: Profile) -> bool:
    """The person's role and department are among those the signature asks for."""
    if requirement.roles and not (requirement.roles & held):
        return False
    return not (requirement.departments and profile.department.code not in requirement.departments)


def may_sign(user: Any, record: Any, requirement: Any, given: Iterable[Signature] | None = None, *,
             on_its_form: bool = False) -> bool:
    """Whether ``user`` may give the signature ``requirement`` on ``record`` now: the checks of
    ``compliance.services.signature_sign`` short of the password, so a Sign button is offered only where
    signing would be accepted (``tests/compliance/test_shown_to_each_person.py`` holds the two together).
    ``given``: the record's signatures when the caller already has them. A slot bound to an action is never
    signed on the signing page; ``on_its_form=True`` asks whether this person would sign it by the action."""
    from compliance.roles import roles_of

    if requirement.given_by_action and not on_its_form:
        return False
    profile = _signing_profile(user)
    if profile is None or not _fits(requirement, roles_of(user), profile):
        return False
    signatures = list(given) if given is not None else record.signature_list()
    if any(s.slot == requirement.slot for s in signatures):
        return False
    if requirement.after and not any(s.slot == requirement.after for s in signatures):
        return False
    if requirement.distinct and any(s.distinct_person and s.signer_id == user.pk for s in signatures):
        return False
    return profile.facilities.filter(pk=record.facility_id).exists()
