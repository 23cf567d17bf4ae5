"""The restore drill's machinery on the test database (a few signed and sealed rows): the documented restore makes a
whole copy, and a copy changed behind the application's back is caught. ``make restore-drill`` runs the same on the
demo (CI, ``.ci/run``); this test keeps to a small database, about half a minute (three ``manage.py`` runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from compliance.chain import chain_link_all
from compliance.db_guarantees import append_only_tables
from compliance.restore_drill import (
    Copy,
    Login,
    compare_counts,
    count_rows,
    drop_database,
    drop_role,
    guards_refusals,
    manage,
    rehearse,
)

pytestmark = [
    pytest.mark.usefixtures("coupon_clock"),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_dump and pg_restore are PostgreSQL's"),
    pytest.mark.django_db(transaction=True),  # pg_dump reads what is committed
]


@pytest.fixture
def copy_of_the_test_database() -> Any:
    source_name = connection.settings_dict["NAME"]
    owner = Login.from_settings({**(settings.DATABASE_OWNER or connection.settings_dict), "NAME": source_name})
    source = Copy(owner, Login.from_settings({**connection.settings_dict, "NAME": source_name}))
    name = f"{source_name[:40]}_drill"
    # The copy's own application role: the suite's is shared by every xdist worker, and db_roles alters it.
    copy = Copy(owner.on(name), Login(user=f"{name}_app", database=name, host=owner.host, port=owner.port))
    drop_database(owner, name)
    yield source, copy
    drop_database(owner, name)
    drop_role(owner, copy.application.user)


def test_a_restored_copy_is_whole_and_a_copy_changed_behind_the_apps_back_is_caught(
        program, receive, copy_of_the_test_database, tmp_path: Path):
    receive(1, 100)  # signed receipts: signatures, ledger lines, audit events, history
    chain_link_all()
    source, copy = copy_of_the_test_database

    found = rehearse(source, copy, append_only=append_only_tables(), workdir=tmp_path)

    assert found.problems == [], found.verification
    assert "intact" in found.verification and "NOT intact" not in found.verification
    counted = {table: int(before.replace(",", "")) for table, before, _, _ in found.rows}
    assert all(equal for *_, equal in found.rows) and counted["coupons_ledgerline"] > 0
    assert counted["compliance_signature"] > 0 and counted["compliance_chainlink"] > 0

    with copy.owner.connect() as owner:  # the owner's password and the triggers off: what a backup's thief can do
        before = count_rows(owner.cursor())  # the verification the drill kept is one row more than the source's
        owner.execute("SET session_replication_role = replica")
        owner.execute("UPDATE coupons_ledgerline SET quantity = quantity + 1 WHERE id = (SELECT min(id) FROM "
                      "coupons_ledgerline)")
        owner.execute("DELETE FROM compliance_auditevent WHERE id = (SELECT max(id) FROM compliance_auditevent)")
        owner.execute("ALTER TABLE compliance_signature DISABLE TRIGGER USER")
        after = count_rows(owner.cursor())

    verified = manage(copy, "verify_audit_chain", "--no-record")
    assert verified.returncode == 1, verified.stdout
    assert "NOT intact" in verified.stdout + verified.stderr and "ledger line" in verified.stderr.lower()
    rows, differing = compare_counts(before, after)
    assert differing == 1 and [row[0] for row in rows if not row[3]] == ["compliance_auditevent"]
    assert guards_refusals(copy, ["compliance_signature"]) == [
        "the owner changed a row of compliance_signature: its append-only trigger is missing"]
