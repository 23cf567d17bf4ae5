"""What PostgreSQL refuses by itself: signed records frozen, and the application's role held to least privilege.

The owner (``DATABASE_OWNER_URL``) creates and migrates the test database and ``db_roles`` makes the
application role; every test, these included, then logs in as that role (``tests/conftest.py``), so the
refusals below are the ones the application itself meets.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from compliance.db_guarantees import append_only_tables, regulated_models, unsigned_marker_columns
from compliance.db_guards import declared_guards
from compliance.guards_installed import guard_differences
from compliance.services import signature_sign
from equipment.models import DiceSet
from tests.factories import GamingTableFactory
from tests.testapp.models import TwoPersonForm

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own guarantees")


@pytest.fixture
def signed_form(facility: Any, marketing_supervisor: Any, password: str, as_user: Any) -> TwoPersonForm:
    with as_user(marketing_supervisor):
        form = TwoPersonForm.objects.create(facility=facility, note="Saturday promotion", quantity=500)
    signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    return form


@pytest.fixture
def signed_dice(facility: Any, dealer: Any, floorperson: Any, password: str, as_user: Any) -> DiceSet:
    table = GamingTableFactory(facility=facility)
    now = timezone.now()
    with as_user(dealer):
        dice = DiceSet.objects.create(
            facility=facility, table=table, placed_at=now, due_at=now + timedelta(hours=24), floorperson=floorperson,
            dealer=dealer, identifiers="A-1 to A-5", dice_count=5, container="box",
        )
    signature_sign(record=dice, slot="dealer", user=dealer, password=password)
    return dice


def _execute(sql: str, params: list[Any] | None = None) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


# --- signed means frozen (any role) -------------------------------------------------------------------


@pytest.mark.django_db
def test_every_regulated_table_carries_the_signed_frozen_trigger():
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgrelid::regclass::text FROM pg_trigger WHERE tgname LIKE '%%_signed_frozen'")
        guarded = {row[0] for row in cursor.fetchall()}
    assert guarded == {model._meta.db_table for model in regulated_models()}


@pytest.mark.django_db
def test_every_guard_the_models_declare_is_installed_by_the_migrations():
    """The test database is built by the migrations alone (no receiver adds triggers after migrate): a model
    declaring a guard with no migration for it fails here, naming the command that writes it."""
    differences = guard_differences()
    assert not differences, "\n".join([*differences.lines(), "run: manage.py db_guards --makemigrations"])
    kinds = {guard.name.rsplit("_", 2)[-2] + "_" + guard.name.rsplit("_", 1)[-1] for guard in declared_guards()}
    assert kinds == {"append_only", "signed_frozen", "signed_part"}


@pytest.mark.django_db
def test_the_unsigned_marker_columns_are_the_named_ones():
    assert unsigned_marker_columns() == {
        "coupons_formcorrection": ["applied_on"],
        "equipment_deckset": ["removed_at"],
        "equipment_diceset": ["removed_at"],
        "staffing_staffingoverride": ["used_at"],  # when the table opened under the signed override
    }


@pytest.mark.django_db
def test_the_database_refuses_to_update_or_delete_a_signed_record(signed_form):
    with pytest.raises(IntegrityError, match="is signed: UPDATE refused"):
        _execute("UPDATE testapp_twopersonform SET quantity = 1 WHERE id = %s", [signed_form.pk])
    with pytest.raises(IntegrityError, match="is signed: DELETE refused"):
        _execute("DELETE FROM testapp_twopersonform WHERE id = %s", [signed_form.pk])
    assert TwoPersonForm.objects.get(pk=signed_form.pk).quantity == 500


@pytest.mark.django_db
def test_an_unsigned_record_can_still_be_changed(facility, marketing_supervisor, as_user):
    with as_user(marketing_supervisor):
        form = TwoPersonForm.objects.create(facility=facility, note="draft", quantity=5)
    _execute("UPDATE testapp_twopersonform SET quantity = 6 WHERE id = %s", [form.pk])
    assert TwoPersonForm.objects.get(pk=form.pk).quantity == 6


@pytest.mark.django_db
def test_only_the_unsigned_marker_of_a_signed_record_may_change(signed_dice):
    signed_dice.mark_removed(timezone.now())
    with pytest.raises(IntegrityError, match="is signed: UPDATE refused"):
        _execute("UPDATE equipment_diceset SET removed_at = now(), dice_count = 4 WHERE id = %s", [signed_dice.pk])
    assert DiceSet.objects.get(pk=signed_dice.pk).removed_at is not None


# --- the application's role ---------------------------------------------------------------------------


@pytest.fixture
def app_role(db: Any) -> str:
    """The role the suite is logged in as: the application's, made by ``db_roles`` at setup."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT session_user, current_user")
        session_user, current_user = cursor.fetchone()
    assert session_user == current_user == connection.settings_dict["USER"]
    return str(session_user)


def _as_app(role: str, sql: str, params: list[Any] | None = None) -> list[Any]:
    """Run ``sql`` on the suite's connection, logged in as ``role`` (a savepoint: a refusal leaves the
    test's transaction usable)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone() == (role,)
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _refused(role: str, sql: str, error: type[Exception] = psycopg.errors.InsufficientPrivilege,
             params: list[Any] | None = None) -> str:
    with pytest.raises(DatabaseError) as refusal:
        _as_app(role, sql, params)
    assert isinstance(refusal.value.__cause__, error), refusal.value
    return str(refusal.value)


def test_the_application_role_owns_nothing_and_is_no_superuser(app_role):
    assert _as_app(
        app_role,
        "SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, "
        "(SELECT count(*) FROM pg_class WHERE relowner = r.oid) FROM pg_roles r WHERE rolname = current_user",
    ) == [(False, False, False, False, 0)]
    _refused(app_role, "CREATE TABLE evil (id int)")


def test_the_application_role_cannot_disable_a_trigger(app_role):
    for table in ("compliance_signature", "compliance_auditevent", "coupons_ledgerline", "testapp_twopersonform"):
        assert "must be owner" in _refused(app_role, f"ALTER TABLE {table} DISABLE TRIGGER ALL")


def test_the_application_role_cannot_switch_triggers_off_for_its_session(app_role):
    _refused(app_role, "SET session_replication_role = replica")


def test_the_application_role_cannot_truncate(app_role):
    for table in ("compliance_signature", "compliance_auditevent", "coupons_ledgerline", "coupons_couponrange",
                  "testapp_twopersonform", "testapp_historicaltwopersonform", "django_session"):
        _refused(app_role, f"TRUNCATE {table}")


def test_the_application_role_may_only_add_to_the_append_only_tables(app_role):
    tables = append_only_tables()
    assert {"compliance_signature", "compliance_auditevent", "coupons_ledgerline",
            "testapp_historicaltwopersonform"} <= set(tables)
    for table in tables:
        _refused(app_role, f'UPDATE "{table}" SET id = id WHERE false')  # noqa: S608 (a table name of ours)
        _refused(app_role, f'DELETE FROM "{table}" WHERE false')  # noqa: S608
        assert _as_app(app_role, "SELECT has_table_privilege(current_user, %s, 'SELECT, INSERT')", [table]) == [
            (True,)
        ]


def test_the_application_role_cannot_change_or_delete_a_signed_record(app_role, signed_form, signed_dice):
    error = psycopg.errors.IntegrityConstraintViolation
    form_sql = "UPDATE testapp_twopersonform SET quantity = 1 WHERE id = %s"
    assert "is signed" in _refused(app_role, form_sql, error, [signed_form.pk])
    assert "is signed" in _refused(app_role, "DELETE FROM testapp_twopersonform WHERE id = %s", error, [signed_form.pk])
    dice_sql = "UPDATE equipment_diceset SET identifiers = 'X' WHERE id = %s"
    assert "is signed" in _refused(app_role, dice_sql, error, [signed_dice.pk])


def test_the_application_role_may_set_the_unsigned_marker_of_a_signed_record(app_role, signed_dice):
    _as_app(app_role, "UPDATE equipment_diceset SET removed_at = now() WHERE id = %s", [signed_dice.pk])
    assert DiceSet.objects.get(pk=signed_dice.pk).removed_at is not None


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # db_roles logs in as the owner
def test_db_roles_runs_again_without_change_and_never_makes_the_owner_the_application_role():
    role = str(connection.settings_dict["USER"])
    grants = (
        "SELECT table_name, privilege_type FROM information_schema.role_table_grants "
        "WHERE grantee = current_user ORDER BY 1, 2"
    )
    before = _as_app(role, grants)
    call_command("db_roles", password="", verbosity=0)
    assert _as_app(role, grants) == before
    assert not [grant for grant in before if grant[1] in {"TRUNCATE", "TRIGGER", "REFERENCES"}]
    owner = settings.DATABASE_OWNER["USER"]
    with pytest.raises(CommandError, match="must differ from the owner"):
        call_command("db_roles", role=owner, password="", verbosity=0)
    assert connection.settings_dict["USER"] == role  # back to the application's login


@pytest.mark.django_db
def test_the_suite_logs_in_as_the_application_role_and_is_refused(app_role):
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = session_user")
        assert cursor.fetchone() == (False,)
    for statement in ("SET session_replication_role = replica", "TRUNCATE compliance_signature",
                      "ALTER TABLE compliance_signature DISABLE TRIGGER ALL", "DELETE FROM compliance_auditevent",
                      "CREATE TABLE evil (id int)", "SET ROLE postgres"):
        _refused(app_role, statement)
