"""Django's ``flush``, run as the database's owner: a transactional test empties the test database
after it with TRUNCATE, which the application role the suite connects as may not do (``db_roles``).

The roles (groups), the content types and the permissions are the owner's too: the application role only
reads them (roles are code, made by migrations). So after emptying the database the owner puts them back,
as the migrations and ``post_migrate`` made them; the rest of the reference data is restored by the tests'
fixtures (``tests/conftest.py``). The test settings leave ``auth`` and ``contenttypes`` out of the
serialized copy a ``serialized_rollback`` test restores, for the same reason.

On PostgreSQL the tables are emptied by DELETE, only those holding rows, with the triggers off
(``session_replication_role = replica``, which the owner may set): a transactional test leaves rows in a few dozen
of some 460 tables, and TRUNCATE of all of them (new files for every table and index) cost 2.6 s of each such
test's teardown, a tenth of the whole suite. Sequences are left as TRUNCATE without RESTART IDENTITY leaves them;
a test asking for its sequences reset gets Django's own flush. The reference tables the application role may only
read — the content types, the permissions, the roles' groups and their permissions (``db_roles``) — are left as
the migrations made them (no test can change them), so only the system account is put back: rebuilding them cost
another 1.3 s a test.

Only the test settings install this app; production has no flush to run.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core.management.commands.flush import Command as Flush
from django.core.management.sql import emit_post_migrate_signal
from django.db import DatabaseError, connections, transaction

from compliance.management.commands.db_roles import connected_as_owner
from compliance.reference import ROLES
from compliance.signals import grant_administrator_permissions


def restore_roles() -> None:
    """The content types and permissions (a flush before a serialized_rollback test skips ``post_migrate``),
    the groups of every role and the system account, as migration 0002 made them."""
    from django.contrib.auth.management import create_permissions
    from django.contrib.contenttypes.management import create_contenttypes

    for app_config in apps.get_app_configs():
        create_contenttypes(app_config, verbosity=0)
        create_permissions(app_config, verbosity=0)
    group_model = apps.get_model("auth", "Group")
    for name in ROLES:
        group_model.objects.get_or_create(name=name)
    _system_account()
    grant_administrator_permissions()


# Only the owner writes these (the migrations, post_migrate): a test cannot change them, so they need no emptying.
KEPT = frozenset({"django_content_type", "auth_permission", "auth_group", "auth_group_permissions"})


def _tables_with_rows(connection: Any) -> list[str]:
    tables = sorted(set(connection.introspection.django_table_names(only_existing=True, include_views=False)) - KEPT)
    quote = connection.ops.quote_name
    probes = " UNION ALL ".join(f"SELECT {i} WHERE EXISTS (SELECT 1 FROM public.{quote(t)})"  # noqa: S608 - names
                                for i, t in enumerate(tables))
    with connection.cursor() as cursor:
        cursor.execute(probes)
        return [tables[i] for (i,) in cursor.fetchall()]


def _deleted(options: dict[str, Any]) -> bool:
    """Empty the tables holding rows by DELETE with the triggers off, as the owner; False if this cannot be done
    here (another database, a sequence reset asked for, a login that may not switch the triggers off)."""
    connection = connections[options["database"]]
    if connection.vendor != "postgresql" or options.get("reset_sequences", True) or options.get("interactive"):
        return False
    try:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = replica")
            for table in _tables_with_rows(connection):
                cursor.execute(f"DELETE FROM public.{connection.ops.quote_name(table)}")  # noqa: S608 - a name
    except DatabaseError:
        return False
    if not options.get("inhibit_post_migrate", False) and not _receivers_write_only_kept_tables():
        emit_post_migrate_signal(options["verbosity"], False, connection.alias)
    return True


# post_migrate's receivers that write only the tables a flush keeps (KEPT): nothing for them to do after it.
_KEPT_WRITERS = {("django.contrib.auth.management", "create_permissions"),
                 ("django.contrib.contenttypes.management", "create_contenttypes"),
                 ("compliance.signals", "grant_administrator_permissions")}


def _receivers_write_only_kept_tables() -> bool:
    from django.db.models.signals import post_migrate

    live = [receiver() for _, receiver, *_ in post_migrate.receivers]
    return all((getattr(r, "__module__", None), getattr(r, "__name__", None)) in _KEPT_WRITERS for r in live)


def _system_account() -> None:
    user_model = apps.get_model("auth", "User")
    user_model.objects.get_or_create(username="system",
                                     defaults={"password": "!system-account-no-login", "is_active": False})


class Command(Flush):
    def handle(self, **options: Any) -> None:
        with connected_as_owner():
            if _deleted(options):
                _system_account()
            else:
                super().handle(**options)
                restore_roles()
