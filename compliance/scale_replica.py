"""The generator's batches written as a replica applies rows, and checked as the triggers would have checked them
(``manage.py generate_casino``, issue 27).

PostgreSQL checks a foreign key row by row: each inserted row queues one trigger event a foreign key, run at commit,
which looks the referenced row up and locks it ``FOR KEY SHARE``. A redemption has ten (seven of its own, its
history row's person, its audit event's facility and person): 550,000 events a generated day, which measured some
40 % of the coupons' time (6 gaming days: 121 s with them, 76 s without; docs/scale.md). A batch of 1,700
redemptions names about 130 tables, dealers, series and games: the same references, looked up a thousand times.

So when the generator's login may set ``session_replication_role`` (a superuser; or a role granted ``SET`` on it,
PostgreSQL 15), each batch is written with it at ``replica`` — what ``pg_restore`` and a logical replica do — and
then checked, in the same transaction, before it commits:

* every foreign key of the three tables, read from the catalog (not the models: a constraint added by a later
  migration is checked too): the batch's distinct references, each referenced row locked ``FOR KEY SHARE`` as the
  foreign key's own check locks it, and any reference missing refused in PostgreSQL's words;
* every trigger the replica role silences on INSERT must be one the caller checks itself (``checks``: the trigger's
  name and the statement that makes the same checks over the batch's ids, e.g. the redemption guard's
  ``coupons_redemptions_check``); any other such trigger on the tables and the batch is written as before, the
  triggers firing.

NOT NULL, CHECK and unique constraints are not triggers: they hold in either role. The role is set with ``SET LOCAL``
and put back before the checks, so nothing else of the transaction runs without its triggers. The application's own
role may not set it (``tests/compliance/test_database_guarantees.py``): run as that role, the generator writes as
before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db import IntegrityError, connection

__all__ = ["Reference", "checks_cover", "foreign_keys", "references_checked", "replica_permitted",
           "silenced_triggers"]

Reference = tuple[str, str, str, str]  # (constraint, column, referenced table, referenced column)

_PERMITTED: dict[str, bool] = {}


def replica_permitted() -> bool:
    """Whether this login may set ``session_replication_role`` (asked once a process, login and database)."""
    name = f'{connection.settings_dict["USER"]}@{connection.settings_dict["NAME"]}'
    if name not in _PERMITTED:
        allowed = False
        if connection.vendor == "postgresql" and connection.pg_version >= 150000:  # type: ignore[attr-defined]
            with connection.cursor() as cursor:
                cursor.execute("SELECT has_parameter_privilege(current_user, 'session_replication_role', 'SET')")
                allowed = bool(cursor.fetchone()[0])
        _PERMITTED[name] = allowed
    return _PERMITTED[name]


def silenced_triggers(tables: Sequence[str]) -> set[tuple[str, str]]:
    """The triggers on INSERT into ``tables`` the replica role would silence (enabled for the origin only), with
    the foreign keys' own left out; and any that fires only as a replica (which the batch must not fire either:
    returned too, so a caller refuses the role)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = ANY(%s) AND NOT t.tgisinternal "
            "AND (t.tgtype & 4) = 4 AND t.tgenabled IN ('O', 'R')", [list(tables)])
        return {(table, name) for table, name in cursor.fetchall()}


def foreign_keys(table: str) -> list[Reference] | None:
    """The table's foreign keys from the catalog; None when one spans several columns or is not an integer (not
    checked here)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.conname, a.attname, ft.relname, fa.attname, cardinality(c.conkey), "
            "a.atttypid IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype) FROM pg_constraint c "
            "JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class ft ON ft.oid = c.confrelid "
            "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] "
            "JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1] "
            "WHERE c.contype = 'f' AND t.relnamespace = current_schema()::regnamespace AND t.relname = %s "
            "ORDER BY c.conname", [table])
        found = cursor.fetchall()
    if any(columns != 1 or not integer for *_rest, columns, integer in found):
        return None
    return [(name, column, target, key) for name, column, target, key, _columns, _integer in found]


def references_checked(table: str, key: Reference, values: set[int]) -> None:
    """The foreign key ``key`` of ``table`` holds for ``values`` (the distinct references the batch's rows hold,
    as its INSERT returned them): each referenced row is locked ``FOR KEY SHARE`` until the transaction ends, as
    the foreign key's own check locks it; a missing one raises IntegrityError in PostgreSQL's words."""
    if not values:
        return
    name, column, target, target_key = key
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT "{target_key}" FROM "{target}" WHERE "{target_key}" = ANY(%s) '  # noqa: S608
                       "ORDER BY 1 FOR KEY SHARE", [sorted(values)])
        missing = sorted(values - {row[0] for row in cursor.fetchall()})
    if missing:
        raise IntegrityError(
            f'insert or update on table "{table}" violates foreign key constraint "{name}": Key ({column})='
            f'({missing[0]}) is not present in table "{target}" ({len(missing)} such value(s): '
            f"{', '.join(map(str, missing[:10]))})")


def checks_cover(silenced: set[tuple[str, str]], checks: Mapping[str, str]) -> bool:
    """Whether ``checks`` (by trigger name) make every silenced trigger's checks."""
    return all(name in checks for _table, name in silenced)
