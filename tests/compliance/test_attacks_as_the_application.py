"""Attacks by someone holding the application's database login (issue 21), one class at a time.

The suite is logged in as the application's role, which owns nothing; every statement below is what that
login could send by hand. Each must be refused by PostgreSQL itself, whoever's code sends it:

* a session's temporary table named like a table a guard reads (the guards pin ``search_path`` and name
  every table with its schema, and the role may not create temporary tables at all);
* renaming a content type or a role, which the guards use to find a record's signatures;
* changing, adding or deleting a row of a signed record's content (a form's lines);
* changing the current state of coupons without the ledger line that explains it (``tests/coupons``).
"""

from __future__ import annotations

import re
from typing import Any

import psycopg
import pytest
from django.db import connection

from compliance.db_guards import declared_guards
from compliance.models import SignedRecordError
from compliance.services import signature_sign
from tests.compliance.attack import as_app, refused, shadow
from tests.testapp.models import FormLine, TwoPersonForm

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own guarantees")]

GUARD_REFUSAL = psycopg.errors.IntegrityConstraintViolation


@pytest.fixture
def signed_form(facility: Any, marketing_supervisor: Any, password: str, as_user: Any) -> TwoPersonForm:
    with as_user(marketing_supervisor):
        form = TwoPersonForm.objects.create(facility=facility, note="Saturday promotion", quantity=500)
        FormLine.objects.create(form=form, text="500 coupons of $25")
    signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    return form


# --- the session's temporary objects -----------------------------------------------------------------


def test_the_application_role_may_not_create_a_temporary_table():
    refused("CREATE TEMPORARY TABLE compliance_signature (id bigint)")
    refused("CREATE TEMP TABLE anything (id int)")


def _our_functions() -> list[tuple[str, str, list[str]]]:
    return as_app(
        "SELECT p.proname, p.prosrc, coalesce(p.proconfig, '{}') FROM pg_proc p "
        "JOIN pg_language l ON l.oid = p.prolang WHERE p.pronamespace = 'public'::regnamespace "
        "AND l.lanname IN ('plpgsql', 'sql') "
        "AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')"
    )


def test_every_function_pins_its_search_path_and_names_tables_with_their_schema():
    functions = _our_functions()
    assert {"compliance_refuse_change", "compliance_refuse_signed_change", "compliance_is_signed",
            "coupons_range_follows_the_ledger", "testapp_formline_signed_part"} <= {name for name, _, _ in functions}
    # A statement trigger's transition tables have no schema, and no table of the session shadows them
    # (tests/coupons/test_redemption_guard_statement.py): each function may read those its triggers name.
    transition: dict[str, set[str]] = {}
    for function, *tables in as_app("SELECT p.proname, t.tgnewtable, t.tgoldtable FROM pg_trigger t "
                                    "JOIN pg_proc p ON p.oid = t.tgfoid WHERE t.tgnewtable IS NOT NULL "
                                    "OR t.tgoldtable IS NOT NULL"):
        transition.setdefault(function, set()).update(table for table in tables if table)
    for name, source, config in functions:
        assert "search_path=pg_catalog, public, pg_temp" in config, name
        code = re.sub(r"'(?:[^']|'')*'", "''", source)  # leave the messages out
        unqualified = [table for table in re.findall(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_][a-z0-9_.]*)\b(?!\s*\()", code)
                       if "." not in table and table not in {"line", "covered", "through", "held", "bad"}  # plpgsql targets
                       and table not in transition.get(name, set())]
        assert not unqualified, f"{name} reads {unqualified} without a schema"


def _tables_the_guards_read() -> set[str]:
    return {table for guard in declared_guards() for table in guard.reads}


def test_the_guards_say_which_tables_they_read():
    assert {"compliance_signature", "django_content_type", "reports_reportsignoff"} <= _tables_the_guards_read()


@pytest.mark.parametrize("table", ["compliance_signature", "django_content_type"])
def test_a_temporary_table_shadowing_what_a_guard_reads_switches_nothing_off(signed_form, table):
    shadow(table)  # empty: a guard reading it by bare name would find no signature
    assert "is signed" in refused("UPDATE testapp_twopersonform SET quantity = 1 WHERE id = %s", [signed_form.pk],
                                  error=GUARD_REFUSAL)
    line = signed_form.lines.get()
    assert "part of signed" in refused("UPDATE testapp_formline SET text = 'forged' WHERE id = %s", [line.pk],
                                       error=GUARD_REFUSAL)
    assert TwoPersonForm.objects.get(pk=signed_form.pk).quantity == 500


# --- the catalog rows the guards use -----------------------------------------------------------------


@pytest.mark.parametrize("table", ["django_content_type", "auth_group", "auth_permission", "auth_group_permissions",
                                   "auth_user_user_permissions", "django_migrations"])
def test_the_application_role_only_reads_content_types_and_roles(table):
    assert as_app(f'SELECT count(*) >= 0 FROM "{table}"') == [(True,)]  # noqa: S608 - our table names
    refused(f'UPDATE "{table}" SET id = id WHERE false')  # noqa: S608
    refused(f'DELETE FROM "{table}" WHERE false')  # noqa: S608
    assert as_app("SELECT has_table_privilege(current_user, %s, 'INSERT')", [table]) == [(False,)]


def test_renaming_a_content_type_to_hide_a_records_signatures_is_refused(signed_form):
    refused("UPDATE django_content_type SET model = 'somethingelse' "
            "WHERE app_label = 'testapp' AND model = 'twopersonform'")
    refused("INSERT INTO django_content_type (app_label, model) VALUES ('testapp', 'decoy')")
    assert "is signed" in refused("DELETE FROM testapp_twopersonform WHERE id = %s", [signed_form.pk],
                                  error=GUARD_REFUSAL)


def test_renaming_a_role_is_refused():
    refused("UPDATE auth_group SET name = 'compliance_officer' WHERE name = 'administrator'")
    refused("INSERT INTO auth_group (name) VALUES ('auditor')")
    refused("INSERT INTO auth_group_permissions (group_id, permission_id) SELECT g.id, p.id FROM auth_group g, "
            "auth_permission p LIMIT 1")


def test_no_permission_can_be_given_to_a_person_directly():
    # An administrator holding the database login still cannot give themselves the TOTP-device permissions.
    refused("INSERT INTO auth_user_user_permissions (user_id, permission_id) SELECT u.id, p.id FROM auth_user u, "
            "auth_permission p WHERE p.codename = 'view_totpdevice' LIMIT 1")


# --- the rows of a signed record's content -------------------------------------------------------------


def test_a_line_of_a_signed_form_is_frozen_with_it(signed_form):
    line = signed_form.lines.get()
    assert "part of signed" in refused("UPDATE testapp_formline SET text = 'forged' WHERE id = %s", [line.pk],
                                       error=GUARD_REFUSAL)
    assert "part of signed" in refused("DELETE FROM testapp_formline WHERE id = %s", [line.pk], error=GUARD_REFUSAL)
    assert "nothing is added" in refused("INSERT INTO testapp_formline (form_id, text) VALUES (%s, 'extra')",
                                         [signed_form.pk], error=GUARD_REFUSAL)
    other = TwoPersonForm.objects.create(facility=signed_form.facility, note="draft")
    assert "part of signed" in refused("UPDATE testapp_formline SET form_id = %s WHERE id = %s", [other.pk, line.pk],
                                       error=GUARD_REFUSAL)
    assert signed_form.lines.get().text == "500 coupons of $25"
    assert not signed_form.altered_since_signed


def test_the_model_refuses_too_in_words(signed_form):
    line = signed_form.lines.get()
    line.text = "forged"
    with pytest.raises(SignedRecordError, match="which is signed"):
        line.save()
    with pytest.raises(SignedRecordError, match="which is signed"):
        FormLine.objects.create(form=signed_form, text="extra")


def test_the_lines_of_an_unsigned_form_may_still_change(facility):
    form = TwoPersonForm.objects.create(facility=facility, note="draft")
    line = FormLine.objects.create(form=form, text="first")
    as_app("UPDATE testapp_formline SET text = 'second' WHERE id = %s", [line.pk])
    as_app("INSERT INTO testapp_formline (form_id, text) VALUES (%s, 'third')", [form.pk])
    assert form.lines.count() == 2


# Each table a guard's function reads, and the test that shadows it and attacks the guard anyway. A function
# that comes to read another table fails here until its attack is written.
SHADOW_ATTACKS = {
    "compliance_signature": "test_a_temporary_table_shadowing_what_a_guard_reads_switches_nothing_off",
    "django_content_type": "test_a_temporary_table_shadowing_what_a_guard_reads_switches_nothing_off",
    "reports_reportsignoff": "tests/reports/test_quarterly_report.py::test_a_shadowed_sign_off_still_freezes_its_version",
    "coupons_ledgerline": "tests/coupons/test_range_follows_the_ledger.py::test_shadowed_tables_switch_nothing_off",
    "coupons_couponrange": "tests/coupons/test_range_follows_the_ledger.py::test_shadowed_tables_switch_nothing_off",
    "coupons_financedayprocessing":
        "tests/coupons/test_redemption_guard_shadows.py::test_a_shadowed_processing_table_still_closes_the_day",
    "compliance_facility":
        "tests/coupons/test_redemption_guard_shadows.py::test_a_shadowed_facility_table_still_takes_the_share_lock",
    "coupons_redemption":
        "tests/coupons/test_redemption_guard_shadows.py::test_a_shadowed_redemption_table_still_checks_the_rows_inserted",
    "coupons_scannerdevice":
        "tests/coupons/test_scanner_revocation.py::test_a_shadowed_scanner_table_still_refuses_a_revoked_scanners_row",
}


def test_every_table_a_guard_reads_has_its_shadow_attack():
    read = set()
    for _, source, _ in _our_functions():
        read |= set(re.findall(r"\bpublic\.([a-z_][a-z0-9_]*)\b(?!\s*\()", source))
    assert read == set(SHADOW_ATTACKS), f"tables read by guards with no shadow attack: {read - set(SHADOW_ATTACKS)}"
