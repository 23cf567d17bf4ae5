"""Audit trail: history with the acting user from the web, commands and tasks; the audit page and CSV."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command
from django.db import IntegrityError, ProgrammingError, connection, transaction

from compliance.actors import SYSTEM_USERNAME
from compliance.models import AuditEvent, Facility, GamingTable, RegulatedWriteError, regulated_bulk_create
from compliance.roles import Role
from compliance.services import signature_sign
from compliance.testing import behind_the_applications_back
from tests.factories import GamingTableFactory, make_person
from tests.testapp.models import TwoPersonForm
from tests.testapp.tasks import renote_form

pytestmark = pytest.mark.django_db


def test_a_web_change_records_the_acting_user_in_history(facility, administrator, client_for):
    table = GamingTableFactory(facility=facility, number="SB-9")
    client = client_for(administrator)
    response = client.post(
        f"/admin/compliance/gamingtable/{table.pk}/change/",
        {"facility": facility.pk, "number": "SB-10", "game": table.game_id, "pit": "Pit 7", "is_open": "on"},
    )
    assert response.status_code == 302, response.content[:500]
    latest = GamingTable.history.filter(id=table.pk).latest("history_date")
    assert latest.number == "SB-10"
    assert latest.is_open is False  # opening a table is the equipment services' job, not the admin's
    assert latest.history_user == administrator
    event = AuditEvent.objects.filter(model_label="compliance.GamingTable", object_id=str(table.pk)).first()
    assert event is not None and event.action == "changed" and event.actor == administrator
    assert event.changes["number"] == ["SB-9", "SB-10"]


def test_a_celery_task_records_the_user_who_enqueued_it(facility, marketing_supervisor, as_user):
    with as_user(marketing_supervisor):
        form = TwoPersonForm.objects.create(facility=facility, note="before", quantity=1)
        renote_form.delay(form.pk, "after")
    latest = TwoPersonForm.history.filter(id=form.pk).latest("history_date")
    assert latest.note == "after"
    assert latest.history_user == marketing_supervisor


def test_a_management_command_records_the_system_account(db):
    call_command("seed_demo", stdout=io.StringIO())
    facility = Facility.objects.get(code="demo")
    created = Facility.history.filter(id=facility.pk, history_type="+").get()
    assert created.history_user.username == SYSTEM_USERNAME


def test_plain_bulk_writes_and_updates_on_regulated_models_are_refused(facility):
    with pytest.raises(RegulatedWriteError):
        TwoPersonForm.objects.bulk_create([TwoPersonForm(facility=facility, note="x")])
    TwoPersonForm.objects.create(facility=facility, note="x")
    with pytest.raises(RegulatedWriteError):
        TwoPersonForm.objects.filter(facility=facility).update(note="y")
    with pytest.raises(RegulatedWriteError):
        TwoPersonForm.objects.filter(facility=facility).delete()
    with pytest.raises(RegulatedWriteError):
        TwoPersonForm.objects.first().delete()


def test_regulated_bulk_create_keeps_history_and_audit_events(facility, finance_supervisor, as_user):
    with as_user(finance_supervisor):
        created = regulated_bulk_create(
            TwoPersonForm, [TwoPersonForm(facility=facility, note=f"n{i}") for i in range(25)]
        )
    ids = [f.pk for f in created]
    assert TwoPersonForm.history.filter(id__in=ids, history_user=finance_supervisor).count() == 25
    assert AuditEvent.objects.filter(model_label="testapp.TwoPersonForm", actor=finance_supervisor).count() == 25


def test_audit_page_filters_by_user_model_and_record(
    facility, compliance_officer, marketing_supervisor, finance_supervisor, password, client_for, as_user
):
    with as_user(marketing_supervisor):
        mine = TwoPersonForm.objects.create(facility=facility, note="mine")
    with as_user(finance_supervisor):
        TwoPersonForm.objects.create(facility=facility, note="theirs")
    signature_sign(record=mine, slot="prepared", user=marketing_supervisor, password=password)
    client = client_for(compliance_officer)

    by_user = client.get("/audit/", {"actor": marketing_supervisor.pk}).context["page"].object_list
    assert {e.actor_id for e in by_user} == {marketing_supervisor.pk}
    assert {e.action for e in by_user} == {"created", "signed"}

    by_record = client.get("/audit/", {"model": "testapp.TwoPersonForm", "object_id": mine.pk}).context["page"]
    assert {e.object_id for e in by_record} == {str(mine.pk)}


def test_audit_page_explains_a_reversed_date_range(facility, compliance_officer, client_for):
    response = client_for(compliance_officer).get("/audit/", {"date_from": "2026-11-10", "date_to": "2026-11-01"})
    assert "swap them" in response.content.decode()


def test_audit_csv_exports_what_the_filters_show(
    facility, compliance_officer, marketing_supervisor, client_for, as_user
):
    with as_user(marketing_supervisor):
        form = TwoPersonForm.objects.create(facility=facility, note="exported")
    response = client_for(compliance_officer).get(
        "/audit/export.csv", {"model": "testapp.TwoPersonForm", "object_id": form.pk}
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert rows[0][:4] == ["occurred_at", "user", "credential", "action"]
    assert len(rows) == 2
    assert rows[1][1] == marketing_supervisor.profile.full_name
    assert rows[1][2] == marketing_supervisor.profile.credential_number
    assert rows[1][3] == "created"


def test_audit_page_is_refused_to_roles_without_audit_access(facility, dealer, client_for):
    assert client_for(dealer).get("/audit/").status_code == 403


def test_audit_page_renders_in_a_constant_number_of_queries(
    facility, compliance_officer, marketing_supervisor, client_for, as_user, django_assert_max_num_queries
):
    client = client_for(compliance_officer)

    def add(count: int) -> None:
        with as_user(marketing_supervisor):
            regulated_bulk_create(TwoPersonForm, [TwoPersonForm(facility=facility, note="n") for _ in range(count)])

    add(5)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        client.get("/audit/")
    add(300)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get("/audit/")
    assert len(response.context["page"].object_list) == 50


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the append-only triggers are PostgreSQL's")
def test_history_rows_cannot_be_changed_even_with_raw_sql(facility, marketing_supervisor, as_user):
    with as_user(marketing_supervisor):
        form = TwoPersonForm.objects.create(facility=facility, note="original")
    table = TwoPersonForm.history.model._meta.db_table
    for statement in (f"UPDATE {table} SET note = 'forged'", f"DELETE FROM {table}"):  # noqa: S608
        # the application's role holds no UPDATE or DELETE on a history table ...
        with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic(), connection.cursor() as c:
            c.execute(statement)
        # ... and the append-only trigger refuses even the tables' owner
        with pytest.raises(IntegrityError, match="append-only"):
            behind_the_applications_back(statement, triggers_off=False)
    assert TwoPersonForm.history.get(id=form.pk).note == "original"


def test_an_inspector_reads_staff_changes_of_their_own_facility_only(
    facility, other_facility, inspector, client_for, as_user, administrator
):
    here = make_person(Role.DEALER, facility, full_name="Here Dealer")
    elsewhere = make_person(Role.DEALER, other_facility, full_name="Elsewhere Dealer")
    for person in (here, elsewhere):
        with as_user(administrator):
            person.profile.active = False
            person.profile.save()
    events = client_for(inspector).get("/audit/", {"model": "compliance.Profile"}).context["page"].object_list
    ids = {e.object_id for e in events}
    assert str(here.profile.pk) in ids and str(elsewhere.profile.pk) not in ids
