"""Rows inserted in bulk (``compliance.models.regulated_bulk_create``: a receipt's ledger lines and ranges, a drop
count's redemptions, a roster's carried assignments, a mailing's recipients) get the audit event a row saved alone
gets — the record's name, the values it was created with in words, its history row, the person and the moment —
and asking for them costs the same number of queries for five rows as for fifty."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from compliance.models import AuditEvent, Game, GamingTable, regulated_bulk_create
from tests.testapp.models import TwoPersonForm

pytestmark = pytest.mark.django_db

# What differs between two rows written a moment apart with the same values.
_OWN = {"id", "seal", "object_id", "history_id", "occurred_at", "object_repr"}


def _event(model: Any, pk: int) -> AuditEvent:
    return AuditEvent.objects.get(model_label=model._meta.label, object_id=str(pk), action="created")


def _same(event: AuditEvent) -> dict[str, Any]:
    return {f.attname: getattr(event, f.attname) for f in AuditEvent._meta.concrete_fields if f.attname not in _OWN}


def test_a_table_created_in_bulk_has_the_event_a_saved_table_has(facility, administrator, as_user):
    sic_bo = Game.objects.get(code="sic-bo")
    with as_user(administrator):
        saved = GamingTable.objects.create(facility=facility, number="SB-1", game=sic_bo, pit="Pit 3")
        # Given only its keys' ids, as a service builds rows in bulk: the event names the game all the same.
        [bulk] = regulated_bulk_create(GamingTable, [GamingTable(facility_id=facility.pk, number="SB-2",
                                                                  game_id=sic_bo.pk, pit="Pit 3")])
    one, many = _event(GamingTable, saved.pk), _event(GamingTable, bulk.pk)
    assert {**_same(many), "changes": None} == {**_same(one), "changes": None}
    assert many.changes == {**one.changes, "number": "SB-2"}
    assert many.changes["game"] == "Sic Bo" and many.changes["pit"] == "Pit 3"  # a key's value as its record's name
    assert many.object_repr == "Table SB-2 (Sic Bo)" and one.object_repr == "Table SB-1 (Sic Bo)"
    history = GamingTable.history.get(id=bulk.pk)
    assert many.history_id == history.history_id and many.occurred_at == history.history_date
    assert many.actor_id == administrator.pk == history.history_user_id and many.facility_id == facility.pk
    assert many.seal_intact()


def test_a_form_created_in_bulk_has_the_event_a_saved_form_has(facility, finance_supervisor, as_user):
    with as_user(finance_supervisor):
        saved = TwoPersonForm.objects.create(facility=facility, note="count the drop")
        [bulk] = regulated_bulk_create(TwoPersonForm, [TwoPersonForm(facility=facility, note="count the drop")])
    one, many = _event(TwoPersonForm, saved.pk), _event(TwoPersonForm, bulk.pk)
    assert bulk.created_by_id == finance_supervisor.pk  # stamped as save() stamps a new record
    assert {**_same(many), "changes": None} == {**_same(one), "changes": None}
    assert many.changes == {**one.changes, "created_at": str(bulk.created_at)}
    assert many.changes["note"] == "count the drop" and many.changes["created_by"] == str(finance_supervisor)
    assert many.object_repr == str(bulk)[:200]
    assert many.history_id == TwoPersonForm.history.get(id=bulk.pk).history_id


def test_the_events_of_fifty_rows_ask_the_database_what_five_rows_ask(facility, administrator, as_user):
    """The records the events name (each table's game) are read once a related model, not once a row: a row given
    only its keys' ids would otherwise read its game for its name and for the value of its key."""
    games = list(Game.objects.filter(banking=True).values_list("pk", flat=True)[:3])
    counted = []
    for size, prefix in ((5, "A"), (50, "B")):
        tables = [GamingTable(facility_id=facility.pk, number=f"{prefix}-{n}", game_id=games[n % len(games)])
                  for n in range(size)]
        with as_user(administrator), CaptureQueriesContext(connection) as queries:
            regulated_bulk_create(GamingTable, tables)
        counted.append(len(queries))
        events = AuditEvent.objects.filter(model_label="compliance.GamingTable",
                                           object_id__in=[str(t.pk) for t in tables])
        assert events.count() == size
        assert all(e.object_repr.startswith(f"Table {prefix}-") and e.changes["game"] for e in events)
    assert counted[0] == counted[1], counted
