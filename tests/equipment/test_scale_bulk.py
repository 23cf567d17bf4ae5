"""The generated year's equipment logs written in bulk (``equipment.scale_bulk``, ``compliance.bulk_records``) are the
rows the services write: the same days of a small generated casino written both ways, from the same state, give the
same records, history rows, signatures and audit events, value for value and in the same order (the ids aside, each
reference compared by what it refers to), the same number of rows in every table, and what the bulk path writes is sealed and verifies.
A batch refuses a model whose save would run more than it writes."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, models, transaction
from django.utils import timezone

from compliance.actors import acting_as, system_user
from compliance.bulk_records import RecordBatch
from compliance.chain import chain_link_all, chain_verify
from compliance.gaming_day import day_bounds, gaming_day
from compliance.models import AuditEvent, Facility, Signature
from compliance.raw_writes import history_model_of
from compliance.scale import ScalePlan, travel
from compliance.scale_floor import floor_scale_seed
from compliance.staffing.scale import staffing_scale_seed
from compliance.submissions.models import RulesSubmission
from equipment import selectors
from equipment.models import (
    DeckRemoval,
    DeckSet,
    DiceRegisterEntry,
    DiceRemoval,
    DiceSet,
    EquipmentAlert,
    EquipmentApproval,
    OpeningInspection,
    TableDiceMethod,
)
from equipment.scale import equipment_scale_seed
from equipment.scale_bulk import DICE, FloorChange, written_in_bulk
from tests.equipment.conftest import local, next_lot
from tests.factories import PASSWORD
from tests.vendors import postgresql_only

pytestmark = [pytest.mark.django_db, postgresql_only("the batch takes its ids from PostgreSQL's sequences")]

MODELS: tuple[Any, ...] = (DiceSet, DiceRemoval, DiceRegisterEntry, DeckSet, DeckRemoval,
                                          OpeningInspection, EquipmentAlert, EquipmentApproval, TableDiceMethod)
DAYS = 2


def _plan() -> ScalePlan:
    first_day = gaming_day(Facility(code="-", name="-")) - timedelta(days=DAYS)
    plan = ScalePlan(facility=Facility(code="bulk"), first_day=first_day, days=DAYS, tables=40,
                     redemptions_per_quarter=1000, seed=5, say=lambda words: None)
    with travel(day_bounds(plan.facility, first_day)[0] - timedelta(hours=12)), acting_as(system_user()):
        floor_scale_seed(plan=plan)
    staffing_scale_seed(plan=plan)
    return plan


class _Canon:
    """Rows in a form that does not depend on the ids: a reference to a record of ``MODELS`` is what that record
    holds, a signature's content hash and a seal whether they hold."""

    def __init__(self) -> None:
        self.memo: dict[tuple[Any, int], Any] = {}

    def record(self, model: Any, pk: int) -> Any:
        key = (model, pk)
        if key not in self.memo:
            self.memo[key] = self.values(model.objects.get(pk=pk), skip={"id"})
        return self.memo[key]

    def values(self, row: models.Model, skip: set[str]) -> tuple[Any, ...]:
        out = []
        for f in row._meta.concrete_fields:
            if f.attname in skip:
                continue
            value = getattr(row, f.attname)
            target = getattr(f, "related_model", None)
            if value is not None and target in MODELS:
                value = self.record(target, value)
            out.append((f.attname, value))
        return tuple(out)


def _snapshot(after: dict[str, int]) -> dict[str, Any]:
    """The records, history rows, signatures and events written since ``after`` (each table's largest id then)."""
    canon = _Canon()
    shot: dict[str, Any] = {}
    model: Any
    for model in MODELS:
        rows = model.objects.filter(pk__gt=after[model._meta.db_table]).order_by("pk")
        shot[model.__name__] = [canon.values(r, {"id"}) for r in rows]
        history = history_model_of(model)
        shot[f"{model.__name__} history"] = [
            (canon.record(model, h.id), canon.values(h, {"history_id", "id"}))
            for h in history.objects.filter(history_id__gt=after[history._meta.db_table]).order_by("history_id")]
    by_label = {m._meta.label: m for m in MODELS}
    signatures = []
    for s in Signature.objects.filter(pk__gt=after[Signature._meta.db_table]).select_related("content_type"
                                                                                          ).order_by("pk"):
        model = s.content_type.model_class()
        record = model.objects.get(pk=s.object_id)
        assert s.seal_intact()
        signatures.append((canon.record(model, s.object_id), s.content_hash == record.content_hash(),
                           canon.values(s, {"id", "object_id", "content_hash", "seal"})))
    shot["signatures"] = signatures
    events: list[Any] = []
    for e in AuditEvent.objects.filter(pk__gt=after[AuditEvent._meta.db_table]).order_by("pk"):
        assert e.seal_intact()
        model = by_label.get(e.model_label)
        if model is None:  # the people's passwords for signing, set and put back (now): the same people both times
            events.append((e.model_label, e.object_id, canon.values(e, {"id", "history_id", "seal", "occurred_at"})))
            continue
        changes = dict(e.changes)
        if "content_hash" in changes:
            changes["content_hash"] = changes["content_hash"] == model.objects.get(pk=e.object_id).content_hash()
        history = None
        if e.history_id is not None:
            row = history_model_of(model).objects.get(history_id=e.history_id)
            history = (row.history_type, row.history_date, row.id == int(e.object_id))
        events.append((canon.record(model, int(e.object_id)), history, sorted(changes.items(), key=repr),
                       canon.values(e, {"id", "object_id", "history_id", "changes", "seal"})))
    shot["events"] = events
    return shot


def _largest_ids() -> dict[str, int]:
    """Each table's largest id (its primary key, if a number) and its rows (``"<table> rows"``)."""
    largest = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            if table.startswith(("django_", "auth_")):
                continue
            column = connection.introspection.get_primary_key_column(cursor, table)
            cursor.execute(f'SELECT count(*) FROM "{table}"')  # noqa: S608 (the database's own table names)
            largest[f"{table} rows"] = int(cursor.fetchone()[0])
            if column in ("id", "history_id"):
                cursor.execute(f'SELECT coalesce(max("{column}"), 0) FROM "{table}"')  # noqa: S608
                largest[table] = int(cursor.fetchone()[0])
    return largest


def _written(plan: ScalePlan, *, through_services: bool) -> tuple[dict[str, Any], dict[str, int]]:
    """The equipment logs of the plan's days written one way, what they wrote, and how many rows each table gained;
    all of it rolled back after."""
    plan.floor_through_services = through_services
    before = _largest_ids()
    with transaction.atomic():
        equipment_scale_seed(plan=plan)
        after = _largest_ids()
        shot = _snapshot(before)
        grown = {t[:-5]: after[t] - before[t] for t in after if t.endswith(" rows") and after[t] != before[t]}
        if not through_services:
            chain_link_all()
            report = chain_verify()
            assert report.intact, report.findings
        transaction.set_rollback(True)
    return shot, grown


def test_the_floors_days_in_bulk_are_the_rows_the_services_write():
    plan = _plan()
    assert not RulesSubmission.objects.exists()  # the tables play their standard games (no variation in force)
    services_shot, services_grown = _written(plan, through_services=True)
    bulk_shot, bulk_grown = _written(plan, through_services=False)
    assert bulk_grown == services_grown
    assert services_grown["equipment_diceset"] > 0 and services_grown["equipment_deckset"] > 0
    assert services_grown["equipment_openinginspection"] > 0 and services_grown["compliance_signature"] > 0
    assert services_grown["equipment_diceremoval"] > 0 and services_grown["equipment_deckremoval"] > 0
    for part, rows in services_shot.items():
        assert bulk_shot[part] == rows, part


def test_a_batch_refuses_a_model_whose_save_runs_more_than_it_writes():
    from django.db.models.signals import post_save

    def listener(**kwargs: Any) -> None:
        pass

    post_save.connect(listener, sender=OpeningInspection, weak=False)
    try:
        batch = RecordBatch()
        batch.create(OpeningInspection(), actor=None, at=timezone.now())
        with pytest.raises(ValueError, match="its save runs more than this batch writes"):
            batch.write()
    finally:
        post_save.disconnect(listener, sender=OpeningInspection)


def test_an_open_alert_on_the_set_taken_out_is_resolved_as_the_service_resolves_it(tdf, place_dice, floorperson,
                                                                                     dealer):
    """The generator never leaves an alert open, but a batch that takes a set out of play resolves its alerts as
    ``removal_finish`` does: the same history row and "changed" event, from the alert's stored history, the alert
    named as at that moment (its name reads the clock: "overdue since 10:00" that day)."""
    placed = place_dice(tdf, local(2026, 11, 2, 10, 0))
    with travel(placed.due_at):  # raised by the sweep when the set fell due
        EquipmentAlert.objects.create(facility=tdf.facility, table=tdf, dice_set=placed, due_at=placed.due_at,
                                      raised_at=placed.due_at)
    requirement = selectors.requirement_for(tdf)
    change = FloorChange(DICE, tdf, requirement, local(2026, 11, 3, 11, 0), floorperson, dealer,
                         {"identifiers": next_lot(), "dice_count": requirement.dice_count,
                          "colours": requirement.dice_colours})
    shots = []
    for write in (lambda: change.through_services(PASSWORD), lambda: written_in_bulk([change])):
        before = _largest_ids()
        with transaction.atomic():
            write()
            shots.append(_snapshot(before))
            transaction.set_rollback(True)
    for part, rows in shots[0].items():
        for n, (got, want) in enumerate(zip(shots[1][part], rows, strict=True)):
            assert got == want, (part, n)
    resolved = [values for _alert, values in shots[1]["EquipmentAlert history"]]
    assert [dict(v)["resolved_at"] for v in resolved] == [local(2026, 11, 3, 11, 0)]
    changed = [event for event in shots[1]["events"] if dict(event[-1])["model_label"] == "equipment.EquipmentAlert"]
    assert [dict(event[-1])["action"] for event in changed] == ["changed"]
    assert [key for key, _words in changed[0][2]] == ["resolved_at"]
