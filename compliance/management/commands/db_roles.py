"""Create or update the application's PostgreSQL role and grant it exactly what the application needs.

Run as the role that owns the tables (``DATABASE_OWNER_URL``), after every ``migrate``; running it
twice changes nothing. ``--migrate`` migrates first, as the owner. The application role (the user of
``DATABASE_URL``, or ``--role``) owns nothing and is not a superuser. It may:

* read, add, change and delete rows of the ordinary tables (sessions, registers, forms before signing —
  the signed-frozen triggers of :mod:`compliance.db_guarantees` hold the rest);
* only read and add rows of the append-only tables (signatures, audit events, ledger lines, every
  history table) — no UPDATE, no DELETE;
* only read ``django_migrations``, ``django_content_type`` and the roles (``auth_group``,
  ``auth_permission``, ``auth_group_permissions``): roles are code, made by migrations as the owner; and
  ``auth_user_user_permissions``: no one holds a permission directly, only through a role;
* use the sequences;
* only read the archive (``archive`` schema, :mod:`compliance.archive`): a closed year's audit events and history.

It gets no TRUNCATE, REFERENCES or TRIGGER privilege, no CREATE on the schema and no TEMPORARY on the
database (revoked from PUBLIC), so it cannot run DDL (``ALTER TABLE … DISABLE TRIGGER``), empty a table,
switch triggers off with ``session_replication_role`` or shadow a table with a temporary one. Tables created by later migrations start with SELECT and INSERT only
(default privileges) until this command runs again.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections, transaction
from psycopg import sql

from compliance.archive import archive_grants
from compliance.db_guarantees import append_only_tables

_CREDENTIALS = ("USER", "PASSWORD", "HOST", "PORT")  # the database itself (NAME) stays the application's
_ROLE_ATTRIBUTES = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT"
# Roles are code: the groups, their permissions and the content types are made by migrations (as the owner),
# so the application only reads them. (The signed-record triggers find a record's signatures through
# django_content_type: a writable row there would let the application point them elsewhere.)
_READ_ONLY_TABLES = ("django_migrations", "django_content_type", "auth_group", "auth_permission",
                     "auth_group_permissions", "auth_user_user_permissions")


@contextmanager
def connected_as_owner() -> Iterator[Any]:
    """The default connection, logged in as the owner for the duration (``DATABASE_OWNER_URL``, if set),
    to the application's database (the settings hold both to the same one)."""
    connection = connections["default"]
    owner = getattr(settings, "DATABASE_OWNER", None)
    if not owner or owner.get("USER") == connection.settings_dict.get("USER"):
        yield connection
        return
    if connection.in_atomic_block:
        raise CommandError("Switching to the owner's login needs the connection outside any transaction.")
    saved = {key: connection.settings_dict.get(key) for key in _CREDENTIALS}
    connection.close()
    connection.settings_dict.update({key: owner.get(key, "") for key in _CREDENTIALS})
    try:
        yield connection
    finally:
        connection.close()
        connection.settings_dict.update(saved)


def _ensure_role(cursor: Any, role: str, password: str) -> None:
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
    verb = "ALTER" if cursor.fetchone() else "CREATE"
    statement = sql.SQL(f"{verb} ROLE {{}} {_ROLE_ATTRIBUTES}").format(sql.Identifier(role))
    if password:
        statement = sql.SQL("{} PASSWORD {}").format(statement, sql.Literal(password))
    cursor.execute(statement)


def _grant(cursor: Any, role: str, owner: str, schema: str, tables: set[str]) -> None:
    r, o, s = sql.Identifier(role), sql.Identifier(owner), sql.Identifier(schema)
    database = sql.Identifier(cursor.connection.info.dbname)
    statements = [
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(database, r),
        # No temporary tables: a session's temporary table is searched before the real ones by any
        # statement that does not name its schema.
        sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM PUBLIC").format(database),
        sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM {}").format(database, r),
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(s, r),
        sql.SQL("REVOKE CREATE ON SCHEMA {} FROM {}").format(s, r),
        sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA {} FROM {}").format(s, r),
        sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {} TO {}").format(s, r),
        sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA {} FROM {}").format(s, r),
        sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {} TO {}").format(s, r),
        sql.SQL("ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA {} GRANT SELECT, INSERT ON TABLES TO {}").format(
            o, s, r
        ),
        sql.SQL("ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA {} GRANT USAGE, SELECT ON SEQUENCES TO {}").format(
            o, s, r
        ),
    ]
    for table in sorted(set(_READ_ONLY_TABLES) & tables):
        statements.append(sql.SQL("REVOKE INSERT, UPDATE, DELETE ON {} FROM {}").format(sql.Identifier(table), r))
    for table in sorted(set(append_only_tables()) & tables):
        statements.append(sql.SQL("REVOKE UPDATE, DELETE ON {} FROM {}").format(sql.Identifier(table), r))
    for statement in statements:
        cursor.execute(statement)


def _check_owns_nothing(cursor: Any, role: str) -> None:
    cursor.execute(
        "SELECT r.rolsuper, (SELECT count(*) FROM pg_class c WHERE c.relowner = r.oid) "
        "+ (SELECT count(*) FROM pg_namespace n WHERE n.nspowner = r.oid) FROM pg_roles r WHERE r.rolname = %s",
        [role],
    )
    superuser, owned = cursor.fetchone()
    if superuser or owned:
        raise CommandError(
            f"The application role {role} {'is a superuser' if superuser else f'owns {owned} objects'}: "
            "use a role that owns nothing for DATABASE_URL and the owner for DATABASE_OWNER_URL."
        )


def grant_application_role(connection: Any, role: str, password: str) -> None:
    """On ``connection`` (the owner's): the role exists, owns nothing, and holds exactly the grants above."""
    owner = connection.settings_dict["USER"] or connection.get_connection_params().get("user", "")
    if not role or role == owner:
        raise CommandError(
            f"The application role ({role or 'none given'}) must differ from the owner ({owner}): set "
            "DATABASE_URL to the application's role and DATABASE_OWNER_URL to the owner, or pass --role."
        )
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.execute("SELECT current_user, current_schema()")
        current_owner, schema = cursor.fetchone()
        tables = set(connection.introspection.table_names(cursor))
        _ensure_role(cursor, role, password)
        _grant(cursor, role, current_owner, schema, tables)
        archive_grants(cursor, role)
        _check_owns_nothing(cursor, role)


class Command(BaseCommand):
    help = "Create the application's database role and grant it only what the application needs (PostgreSQL)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--migrate", action="store_true", help="Run migrate as the owner first.")
        parser.add_argument("--role", default="", help="Application role (default: the user of DATABASE_URL).")
        parser.add_argument("--password", default=None, help="Its password (default: the one in DATABASE_URL).")

    def handle(self, *args: Any, migrate: bool = False, role: str = "", password: str | None = None,
               **options: Any) -> None:
        app = connections["default"].settings_dict
        if app["ENGINE"] != "django.db.backends.postgresql":
            self.stdout.write("Embedded SQLite: no database roles to manage.")
            return
        role = role or str(app.get("USER") or "")
        password = str(app.get("PASSWORD") or "") if password is None else password
        with connected_as_owner() as connection:
            if migrate:
                call_command("migrate", interactive=False, verbosity=options.get("verbosity", 1))
            grant_application_role(connection, role, password)
        self.stdout.write(self.style.SUCCESS(f"Role {role}: owns nothing, no temporary tables; append-only tables: "
                                             "SELECT, INSERT; roles and content types: SELECT."))
