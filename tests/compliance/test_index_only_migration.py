"""The indexes that only cost (issue 27): the busiest tables keep no index a composite one already serves, the
redemptions' history no index on each foreign key, and the operation that dropped them touched nothing else."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection, connections
from django.db.migrations.executor import MigrationExecutor

from compliance.migration_ops import AlterFieldIndex
from compliance.testing import owner_login

pytestmark = pytest.mark.django_db

UNINDEXED = {
    "coupons_redemption": ["facility_id", "series_id", "table_id"],
    "coupons_historicalredemption": ["device_id", "drop_count_id", "facility_id", "game_id", "redeemed_by_id",
                                     "series_id", "table_id"],
    "compliance_auditevent": ["actor_id", "facility_id"],
}


def _constraints(table: str, through: Any = connection) -> dict[str, Any]:
    with through.cursor() as cursor:
        return dict(through.introspection.get_constraints(cursor, table))


def _alone(table: str, column: str, through: Any = connection) -> list[str]:
    """The indexes of ``table`` on ``column`` alone."""
    return [name for name, c in _constraints(table, through).items() if c["index"] and c["columns"] == [column]]


def _foreign_keys(table: str, through: Any = connection) -> dict[str, list[str]]:
    return {name: c["columns"] for name, c in _constraints(table, through).items() if c["foreign_key"]}


@contextmanager
def _owner_session() -> Iterator[Any]:
    """A connection of its own as the tables' owner (the application's role may not change them), in a
    transaction rolled back at the end: the test database is left as it was, whatever happens."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    # A settings dict of its own: the default connection's is shared with settings.DATABASES, and changing it
    # would log every later test of this process in as the owner.
    owner = DatabaseWrapper({**connections["default"].settings_dict, **(owner_login() or {})}, alias="default")
    owner.set_autocommit(False)
    try:
        yield owner
    finally:
        owner.rollback()
        owner.close()


def test_the_owners_session_leaves_the_suite_logged_in_as_the_application():
    with _owner_session() as owner, owner.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone()[0] == (owner_login() or {}).get("USER")
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone()[0] == connection.settings_dict["USER"] != (owner_login() or {}).get("USER")


def test_no_index_on_a_column_another_index_leads_or_a_history_key():
    for table, columns in UNINDEXED.items():
        for column in columns:
            assert _alone(table, column) == [], f"{table}.{column} still has an index of its own"
    # What serves each lookup by those columns, the foreign keys' checks included: an index that begins with it.
    leading = {c["columns"][0] for c in _constraints("coupons_redemption").values() if c["index"] or c["unique"]}
    assert {"facility_id", "series_id", "table_id"} <= leading
    leading = {c["columns"][0] for c in _constraints("compliance_auditevent").values() if c["index"]}
    assert {"actor_id", "facility_id"} <= leading
    # The history table is still read by the row's id and by time.
    assert _alone("coupons_historicalredemption", "id") and _alone("coupons_historicalredemption", "history_date")


def test_the_operation_only_drops_and_makes_the_index_and_the_foreign_key_stays():
    """Django's AlterField would drop the foreign key and add it again (validating every redemption under lock);
    the operation run backwards makes the index again, forwards drops it, and the constraint is the same one."""
    loader = MigrationExecutor(connection).loader
    before = loader.project_state(("coupons", "0031_redemption_check_by_statement"), at_end=True)
    after = loader.project_state(("coupons", "0032_redemption_keys_unindexed"), at_end=True)
    migration = loader.get_migration("coupons", "0032_redemption_keys_unindexed")
    operations = [op for op in migration.operations if isinstance(op, AlterFieldIndex)]
    assert len(operations) == 10
    with _owner_session() as owner:
        keys = _foreign_keys("coupons_redemption", owner)
        assert len(keys) == 7
        with owner.schema_editor(atomic=False) as editor:
            for op in operations:
                op.database_backwards("coupons", editor, after, before)
        assert _alone("coupons_redemption", "series_id", owner) and _alone("coupons_historicalredemption", "game_id",
                                                                           owner)
        assert _foreign_keys("coupons_redemption", owner) == keys  # the very constraints, not new ones
        with owner.schema_editor(atomic=False) as editor:
            for op in operations:
                op.database_forwards("coupons", editor, before, after)
        assert _alone("coupons_redemption", "series_id", owner) == []
        assert _alone("coupons_historicalredemption", "game_id", owner) == []
        assert _foreign_keys("coupons_redemption", owner) == keys


def test_the_operation_refuses_a_change_beyond_the_index():
    from django.db import models

    loader = MigrationExecutor(connection).loader
    state = loader.project_state(("coupons", "0032_redemption_keys_unindexed"), at_end=True)
    wider = AlterFieldIndex(model_name="redemption", name="table",
                            field=models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT,
                                                    related_name="+", db_index=True, null=True))
    changed = state.clone()
    wider.state_forwards("coupons", changed)
    with _owner_session() as owner, owner.schema_editor(atomic=False) as editor, pytest.raises(
            ValueError, match="changes only db_index"):
        wider.database_forwards("coupons", editor, state, changed)


def test_on_sqlite_the_operation_drops_the_index_alone_and_the_tables_triggers_stay():
    """The embedded default: Django's AlterField rebuilds a SQLite table for any change, which drops the triggers
    the migrations put on it (a redemption's seal, a closed day, a coupon not distributed). The operation drops
    the index alone: run on a SQLite database holding the redemptions' table as migration 0031 left it."""
    from django.db.backends.sqlite3.base import DatabaseWrapper

    probe = DatabaseWrapper({**connections["default"].settings_dict, "ENGINE": "django.db.backends.sqlite3",
                             "NAME": ":memory:", "OPTIONS": {}, "USER": "", "PASSWORD": "", "HOST": "", "PORT": ""},
                            alias="default")
    loader = MigrationExecutor(connection).loader
    before = loader.project_state(("coupons", "0031_redemption_check_by_statement"), at_end=True)
    after = loader.project_state(("coupons", "0032_redemption_keys_unindexed"), at_end=True)
    migration = loader.get_migration("coupons", "0032_redemption_keys_unindexed")
    try:
        with probe.schema_editor() as editor:
            editor.create_model(before.apps.get_model("coupons", "Redemption"))
            editor.create_model(before.apps.get_model("coupons", "HistoricalRedemption"))
        with probe.cursor() as cursor:
            cursor.execute("CREATE TRIGGER coupons_redemption_sealed BEFORE INSERT ON coupons_redemption "
                           "WHEN NEW.seal IS NULL BEGIN SELECT RAISE(ABORT, 'unsealed'); END")
        assert _alone("coupons_redemption", "series_id", probe)
        with probe.schema_editor() as editor:
            for op in migration.operations:
                op.database_forwards("coupons", editor, before, after)
        assert _alone("coupons_redemption", "series_id", probe) == []
        assert _alone("coupons_historicalredemption", "game_id", probe) == []
        assert _alone("coupons_historicalredemption", "history_date", probe)
        with probe.cursor() as cursor:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            assert cursor.fetchall() == [("coupons_redemption_sealed",)]
    finally:
        probe.close()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plan")
def test_the_redemptions_drop_count_index_holds_the_counts_rows_alone_and_serves_a_counts_lookup():
    """A table's scan names no drop count: the partial index takes no entry for it, and a count's redemptions (and
    the foreign key's check when a count would be deleted) are still found by the index."""
    on_count = [name for name, c in _constraints("coupons_redemption").items()
                if c["index"] and c["columns"] == ["drop_count_id"]]
    assert on_count == ["coupon_redemption_counted"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_indexdef('coupon_redemption_counted'::regclass)")
        assert cursor.fetchone()[0].endswith("WHERE (drop_count_id IS NOT NULL)")
        cursor.execute("SET LOCAL enable_seqscan = off")  # an empty table: the plan the index makes possible
        cursor.execute("EXPLAIN SELECT 1 FROM coupons_redemption WHERE drop_count_id = %s", [1])
        plan = " ".join(row[0] for row in cursor.fetchall())
    assert "coupon_redemption_counted" in plan, plan
