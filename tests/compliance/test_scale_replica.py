"""The generator's batches written as a replica applies rows (compliance/scale_replica.py): which login may, what the
catalog says must be checked then, and that the checks refuse what the foreign keys and the redemption guard would
have refused — with nothing of the batch kept."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from compliance.models import AuditEvent
from compliance.scale_replica import (
    checks_cover,
    foreign_keys,
    references_checked,
    replica_permitted,
    silenced_triggers,
)
from compliance.scale_sql import rows_as_saved_sql, written_as_replica
from compliance.testing import log_in, owner_login
from coupons.models import Redemption
from coupons.scale import GUARD_CHECKS, REDEMPTION
from tests.compliance.test_scale_sql import _row
from tests.vendors import postgresql_only

pytestmark = [postgresql_only("session_replication_role and the catalog are PostgreSQL's")]

TABLES = ("coupons_redemption", "coupons_historicalredemption", "compliance_auditevent")


@pytest.mark.django_db
def test_the_catalog_names_every_foreign_key_and_the_one_trigger_a_replica_silences():
    constrained = {f.column for f in Redemption._meta.concrete_fields if f.is_relation and f.db_constraint}
    assert {column for _name, column, _target, _key in foreign_keys("coupons_redemption") or []} == constrained
    assert {(column, target) for _n, column, target, _k in foreign_keys("compliance_auditevent") or []} == {
        ("facility_id", "compliance_facility"), ("actor_id", "auth_user")}
    silenced = silenced_triggers(TABLES)
    assert silenced == {("coupons_redemption", "coupons_redeem_only_distributed")}
    assert checks_cover(silenced, GUARD_CHECKS)
    assert not checks_cover(silenced, {})


@pytest.mark.django_db
def test_the_application_role_may_not_write_as_a_replica_so_the_generator_fires_the_triggers():
    assert not replica_permitted()
    assert not written_as_replica(Redemption, GUARD_CHECKS)


@pytest.mark.django_db
def test_a_missing_reference_is_refused_in_postgresqls_words(craps_table):
    table_key = next(k for k in foreign_keys("coupons_redemption") or [] if k[1] == "table_id")
    references_checked("coupons_redemption", table_key, {craps_table.pk})  # present: locked, no refusal
    with pytest.raises(IntegrityError, match=rf'violates foreign key constraint "{table_key[0]}": Key \(table_id\)='
                                              r'\(987654\) is not present in table "compliance_gamingtable"'):
        references_checked("coupons_redemption", table_key, {craps_table.pk, 987654})


@pytest.fixture
def as_the_owner():
    """The test's connection logged in as the database's owner, and back to the application role after."""
    owner, application = owner_login(), {k: connection.settings_dict[k] for k in ("USER", "PASSWORD", "HOST", "PORT")}
    if owner is None:
        pytest.skip("no owner login (DATABASE_OWNER_URL) in these settings")
    log_in(owner)
    try:
        if not replica_permitted():
            pytest.skip("the owner may not set session_replication_role here (not a superuser)")
        yield
    finally:
        log_in(application)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("coupon_clock", "coupon_tables_ready")
def test_a_batch_written_as_a_replica_is_checked_before_it_commits(program, handed_out, receive, craps_table,
                                                                    dealer, as_the_owner):
    handed_out(1, 10)
    receive(11, 20)
    moment = datetime(2026, 11, 3, 14, 30, 5, tzinfo=UTC)
    assert written_as_replica(Redemption, GUARD_CHECKS)
    events = AuditEvent.objects.count()

    def written(*rows: tuple) -> list[int]:
        with transaction.atomic():
            return rows_as_saved_sql(Redemption, REDEMPTION, list(rows), moment="redeemed_at", checks=GUARD_CHECKS)

    ids = written(_row(program, craps_table, dealer, 2, moment, "pass_line"))
    row = Redemption.objects.get(pk=ids[0])
    assert row.seal_intact() and row.history.get().history_user_id == dealer.pk
    # A coupon still in finance's stock (serial 15): the guard's words; nothing of the batch kept.
    with pytest.raises(DatabaseError, match="coupon_not_distributed: serial 15 "):
        written(_row(program, craps_table, dealer, 3, moment, "pass_line"),
                _row(program, craps_table, dealer, 15, moment, "pass_line"))
    # A dealer no one knows: the foreign key's words; nothing kept.
    stranger = list(_row(program, craps_table, dealer, 4, moment, "pass_line"))
    stranger[REDEMPTION.index("redeemed_by_id")] = stranger[len(REDEMPTION)] = 987654
    with pytest.raises(IntegrityError, match=r'Key \(redeemed_by_id\)=\(987654\) is not present in table "auth_user"'):
        written(tuple(stranger))
    assert list(Redemption.objects.values_list("serial", flat=True)) == [2]
    assert AuditEvent.objects.count() == events + 1
    with connection.cursor() as cursor:
        cursor.execute("SHOW session_replication_role")
        assert cursor.fetchone() == ("origin",)  # SET LOCAL: gone with each transaction
