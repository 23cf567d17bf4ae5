"""One index of every change to every regulated model, for the audit page and its CSV export.

simple_history keeps each model's full history in its own table; :class:`AuditEvent` is written
alongside each history row (``post_create_historical_record``) and for each signature, so that
compliance officers and inspectors can filter all changes by date, user, model and record in one
query. Events are append-only: the model refuses changes, and on PostgreSQL a trigger refuses too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NotRequired, Required, TypedDict, Unpack

from django.apps import apps
from django.conf import settings
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.utils import timezone

from compliance.bounds import ROW_ID
from compliance.models.base import AppendOnly, RegulatedQuerySet, _bulk_with_history
from compliance.models.chain import Sealed
from compliance.people import person_name

__all__ = ["AuditEvent", "ChangeLine"]


# What a signature or a correction event records about itself: not fields of the record, so named here.
_FACT_LABELS = {
    "slot": "Signature",
    "meaning": "Meaning",
    "content_hash": "Content fingerprint",
    "corrected_by": "Corrected by",
}


@dataclass(frozen=True)
class ChangeLine:
    """One line of an audit row in words: a field that changed (``old`` → ``new``), a many-to-many
    field (names ``added`` and ``removed``) or a fact of a signature or correction (``value``)."""

    label: str
    old: str = ""
    new: str = ""
    added: tuple[str, ...] = field(default_factory=tuple)
    removed: tuple[str, ...] = field(default_factory=tuple)
    value: str = ""
    kind: str = "diff"  # "diff", "m2m" or "fact"

    def as_json(self) -> dict[str, Any]:
        if self.kind == "m2m":
            return {"field": self.label, "added": list(self.added), "removed": list(self.removed)}
        if self.kind == "fact":
            return {"field": self.label, "value": self.value}
        return {"field": self.label, "old": self.old, "new": self.new}


def _instant_in_words(model_field: Any, value: Any) -> str | None:
    """A stored date or date-time as a person reads it, on the clock of the facility being read (the request's
    zone): "26 Nov 2026 06:21:33", never "2026-11-26 11:21:33.654320+00:00". ``None`` when it is not one."""
    from datetime import date, datetime

    if not isinstance(value, str) or not isinstance(model_field, models.DateField | models.DateTimeField):
        return None
    try:
        if isinstance(model_field, models.DateTimeField):
            moment = datetime.fromisoformat(value)
            if timezone.is_naive(moment):
                return f"{moment:%-d %b %Y %H:%M:%S}"
            return f"{timezone.localtime(moment):%-d %b %Y %H:%M:%S}"
        return f"{date.fromisoformat(value):%-d %b %Y}"
    except ValueError:
        return None


def _in_words(model_field: Any, value: Any) -> str:
    """A stored value as a person reads it: a choice's label, yes/no, a date on the facility's clock, a set of
    details as "Label: value" phrases, or the text itself."""
    if value is None or value == "":
        return ""
    if callable(words := getattr(model_field, "in_words", None)):  # a field that says its own value in words
        return str(words(value))
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, dict):
        return "; ".join(f"{_label(str(k))}: {_in_words(None, v) or '—'}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_in_words(None, v) for v in value)
    choices = dict(getattr(model_field, "flatchoices", None) or ())
    if value in choices:
        return str(choices[value])
    instant = _instant_in_words(model_field, value)
    return instant if instant is not None else str(value)


class AuditEventQuerySet(RegulatedQuerySet["AuditEvent"]):
    pass


class EventDetails(TypedDict, total=False):
    """The keywords of :meth:`AuditEvent.of` and :meth:`AuditEvent.log`: what happened, by whom, and when."""

    action: Required[str]
    actor: Required[Any]
    changes: NotRequired[dict[str, Any] | None]
    reason: NotRequired[str]
    occurred_at: NotRequired[Any]


class AuditEvent(Sealed, AppendOnly):
    append_only_what = "Audit events"

    class Action(models.TextChoices):
        CREATED = "created", "Created"
        CHANGED = "changed", "Changed"
        DELETED = "deleted", "Deleted"
        SIGNED = "signed", "Signed"
        CORRECTED = "corrected", "Corrected by a new record"

    occurred_at = models.DateTimeField(default=timezone.now, db_index=True)
    # No index of their own: the indexes below begin with each (every lookup and the foreign keys' checks use
    # them), and a table that gains a row at every write keeps no index it does not need (issue 27).
    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, null=True, related_name="+",
                                 db_index=False)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+",
                              db_index=False)
    action = models.CharField(max_length=12, choices=Action.choices)
    model_label = models.CharField(max_length=100, help_text="app_label.ModelName")
    model_name = models.CharField(max_length=100, help_text="Human name of the model")
    object_id = models.CharField(max_length=40)
    object_repr = models.CharField(max_length=200)
    history_id = models.BigIntegerField(null=True, validators=ROW_ID.validators)
    changes = models.JSONField(default=dict, blank=True)
    reason = models.TextField(blank=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["-occurred_at", "-pk"]
        indexes = [
            models.Index(fields=["facility", "-occurred_at"]),
            models.Index(fields=["model_label", "object_id"]),
            models.Index(fields=["actor", "-occurred_at"]),
            # The audit page filtered to a rare kind of change ("Corrected", "Deleted") in time order (issue 27).
            models.Index(fields=["action", "-occurred_at"]),
            # The trail of one person: its part of the events with no facility (the rosters' assignments, the
            # reference data: 181,589 of 8.6 million at 151 generated days) was found by reading every one of them
            # for the person's (140 ms a view; issue 27's pages).
            models.Index(fields=["actor", "-occurred_at"], condition=models.Q(facility__isnull=True),
                         name="audit_facilityless_actor"),
        ]
        constraints = ROW_ID.checks("history_id")

    def __str__(self) -> str:
        return f"{timezone.localtime(self.occurred_at):%-d %b %Y %H:%M} {self.action} {self.model_label} #{self.object_id}"

    @classmethod
    def belongs_to(cls, content: dict[str, Any]) -> str:
        return f"the audit trail of {content.get('model_label')} #{content.get('object_id')}"

    # Changes are stored as the code wrote them: ``{field: [old, new]}`` for a history row,
    # ``{field: {"added": [...], "removed": [...]}}`` for a many-to-many change, and plain facts
    # (``{"slot": ..., "content_hash": ...}``) for a signature or correction. They are put in words here,
    # once, for the page and the CSV alike: reading a facts dict as pairs gave "slot: e → x".

    ANOTHER_FACILITY = "A person of another facility"

    def actor_shown(self) -> tuple[str, str]:
        """Who acted, as a facility's trail shows it: name and credential; "" for the system. A change to a
        register shared by every facility (a provider, a game) made by someone who does not work here names no
        one (``actor_elsewhere``, set by ``compliance.selectors.audit_events``): one facility's trail does not
        show another's people (issue 22, item 4)."""
        if self.actor_id is None or self.actor is None:
            return "", ""
        if getattr(self, "actor_elsewhere", False):
            return self.ANOTHER_FACILITY, ""
        profile = getattr(self.actor, "profile", None)
        return person_name(self.actor), profile.credential_number if profile is not None else ""

    def change_lines(self) -> list[ChangeLine]:
        model = self._model()
        # A signature, a correction, a record's values when it was created and an account event state facts.
        facts = self.action in (self.Action.SIGNED, self.Action.CORRECTED, self.Action.CREATED) or self.is_account_event
        return [self._line(model, name, value, facts=facts) for name, value in (self.changes or {}).items()
                if not (self.is_account_event and name == "event")]

    @property
    def is_account_event(self) -> bool:
        """A sign-in, a refused signature, a password or role change (``compliance.accounts.account_event``)."""
        return isinstance(self.changes, dict) and isinstance(self.changes.get("event"), str)

    def summary(self) -> str:
        """The event in a sentence: "Sign-in refused: wrong username, password or code — Ann Lee (1234)",
        "Created coupon receipt Receipt of 1,000 coupons …", never "Changed profile #2"."""
        if self.is_account_event:
            return f"{self.changes['event']} — {self.object_repr}"
        return f"{self.get_action_display()} {self.model_name} {self.object_repr or '#' + self.object_id}"

    def actor_words(self) -> str:
        """Who acted, in words: a name, "another facility's staff", or who it was when no one was signed in."""
        name, credential = self.actor_shown()
        if name:
            return f"{name} ({credential})" if credential and credential not in name else name
        return "no one signed in" if self.is_account_event else "the system"

    def changes_json(self) -> list[dict[str, Any]]:
        return [line.as_json() for line in self.change_lines()]

    def _model(self) -> type[models.Model] | None:
        try:
            return apps.get_model(self.model_label)
        except (LookupError, ValueError):
            return None

    def _line(self, model: type[models.Model] | None, name: str, value: Any, *, facts: bool) -> ChangeLine:
        model_field = _field(model, name)
        label = str(model_field.verbose_name).capitalize() if model_field is not None else _label(name)
        if isinstance(value, dict) and not facts:
            return ChangeLine(label, added=tuple(value.get("added", ())), removed=tuple(value.get("removed", ())),
                              kind="m2m")
        if isinstance(value, list | tuple) and len(value) == 2 and not facts:
            return ChangeLine(label, old=_in_words(model_field, value[0]), new=_in_words(model_field, value[1]))
        return ChangeLine(label, value=_fact_in_words(model, name, value, model_field), kind="fact")

    @staticmethod
    def facility_id_of(instance: Any) -> int | None:
        from compliance.models.facility import Facility

        if isinstance(instance, Facility):
            return instance.pk
        through = getattr(instance, "facility_through", "")
        if through and not hasattr(instance, "facility_id"):
            return getattr(getattr(instance, through), "facility_id", None)
        return getattr(instance, "facility_id", None)

    @classmethod
    def facility_ids_of(cls, instances: Sequence[models.Model]) -> list[int | None]:
        """:meth:`facility_id_of` of many rows of one model, in one read of the records their facility comes
        through (a mailing's recipients through their campaign: one query for the list, not one a patron)."""
        through = getattr(instances[0], "facility_through", "")
        if not through or hasattr(instances[0], "facility_id"):
            return [cls.facility_id_of(obj) for obj in instances]
        field: Any = instances[0]._meta.get_field(through)
        parent: Any = field.related_model
        if not hasattr(parent, "facility_id"):
            return [cls.facility_id_of(obj) for obj in instances]  # a longer path: row by row, as one row's save
        wanted = {getattr(obj, field.attname) for obj in instances if not field.is_cached(obj)}
        known = dict(parent._default_manager.filter(pk__in=wanted).values_list("pk", "facility_id")) if wanted else {}
        return [getattr(getattr(obj, through), "facility_id", None) if field.is_cached(obj)
                else known.get(getattr(obj, field.attname)) for obj in instances]

    @classmethod
    def log(cls, instance: models.Model, **details: Unpack[EventDetails]) -> AuditEvent:
        """An event that is not a history row (a signature, a correction, an export): :meth:`of`, saved."""
        event = cls.of(instance, **details)
        event.save(force_insert=True)
        return event

    @classmethod
    def of(
        cls,
        instance: models.Model,
        *,
        action: str,
        actor: Any,
        changes: dict[str, Any] | None = None,
        reason: str = "",
        occurred_at: Any = None,
    ) -> AuditEvent:
        """The event :meth:`log` writes, not saved yet (a signature writes it in its own statement)."""
        return cls(
            occurred_at=occurred_at or timezone.now(),
            facility_id=cls.facility_id_of(instance),
            actor=actor,
            action=action,
            model_label=instance._meta.label,
            model_name=str(instance._meta.verbose_name),
            object_id=str(instance.pk),
            object_repr=str(instance)[:200],
            changes=changes or {},
            reason=reason,
        )

    @classmethod
    def record_bulk_created(cls, instances: Sequence[models.Model], histories: Sequence[Any]) -> None:
        """The "created" events of rows inserted in bulk (``compliance.models.regulated_bulk_create``), each the one
        the audit receiver writes for a row saved alone (``compliance.signals.audit_event_of``: the record's name,
        the values it was created with in words, its history row, its facility, the history's person and moment).
        The records they name are read once a related model, not once a row (:func:`_related_read_once`)."""
        from compliance.signals import audit_event_of

        if not instances:
            return
        _related_read_once(instances)
        events = [event for obj, history in zip(instances, histories, strict=True)
                  if (event := audit_event_of(obj, history)) is not None]
        token = _bulk_with_history.set(True)
        try:
            cls.objects.bulk_create(events, batch_size=1000)
        finally:
            _bulk_with_history.reset(token)

    @classmethod
    def record_bulk_changed(cls, instances: Sequence[models.Model], fields: Sequence[str], *,
                            before: dict[Any, dict[str, Any]], actor: Any) -> None:
        """The "changed" events of rows updated in bulk (``compliance.models.regulated_bulk_update``), each naming the
        fields that changed, old and new, in the words the audit receiver uses for one row's save."""
        from compliance.signals import _in_words

        if not instances:
            return
        now = timezone.now()
        meta = instances[0]._meta
        events = []
        # A foreign key's value is its id, as ``before`` holds it.
        stored = {name: getattr(meta.get_field(name), "attname", name) for name in fields}
        for obj, facility_id in zip(instances, cls.facility_ids_of(instances), strict=True):
            old = before.get(obj.pk, {})
            changes = {name: [_in_words(obj, name, old.get(name)), _in_words(obj, name, getattr(obj, stored[name]))]
                       for name in fields if old.get(name) != getattr(obj, stored[name])}
            if changes:
                events.append(cls(occurred_at=now, facility_id=facility_id, actor=actor,
                                  action=cls.Action.CHANGED, model_label=meta.label, model_name=str(meta.verbose_name),
                                  object_id=str(obj.pk), object_repr=str(obj)[:200], changes=changes))
        token = _bulk_with_history.set(True)
        try:
            cls.objects.bulk_create(events, batch_size=1000)
        finally:
            _bulk_with_history.reset(token)


def _field(model: type[models.Model] | None, name: str) -> Any:
    if model is None:
        return None
    try:
        return model._meta.get_field(name)
    except FieldDoesNotExist:
        return None


def _label(name: str) -> str:
    return _FACT_LABELS.get(name, name.replace("_", " ").capitalize())


def _fact_in_words(model: type[models.Model] | None, name: str, value: Any, model_field: Any) -> str:
    from compliance.models.signatures import Meaning

    if name == "slot" and model is not None and hasattr(model, "requirement"):
        requirement = model.requirement(value)
        return requirement.label if requirement is not None else str(value)
    if name == "meaning" and value in Meaning.values:
        return str(Meaning(value).label)
    if name == "corrected_by":
        return f"#{value}"
    return _in_words(model_field, value)


def _related_read_once(instances: Sequence[models.Model], depth: int = 2) -> None:
    """Each foreign key of ``instances`` (rows of one model) given its record, read with one query a related model
    (``in_bulk``) where the row does not already hold it, and those records' own keys likewise (``depth`` levels):
    an event's words (the record's name, a key's value as the related record's name — a table's name reads its
    game —, its facility through a parent) then ask the database nothing more a row or a related record."""
    fields: list[Any] = list(instances[0]._meta.concrete_fields)
    for model_field in fields:
        if not model_field.is_relation or not (model_field.many_to_one or model_field.one_to_one):
            continue
        wanted = {getattr(obj, model_field.attname) for obj in instances if not model_field.is_cached(obj)} - {None}
        if not wanted:
            continue
        related: Any = model_field.related_model
        target = model_field.target_field
        found = related._base_manager.in_bulk(wanted, field_name="pk" if target.primary_key else target.name)
        for obj in instances:
            record = found.get(getattr(obj, model_field.attname))
            if record is not None and not model_field.is_cached(obj):
                model_field.set_cached_value(obj, record)
        if depth > 1 and found:
            _related_read_once(list(found.values()), depth - 1)
