"""What a migrated PostgreSQL database holds of the declared guards (:mod:`compliance.db_guards`), and the
migration that would install the rest.

Read by ``manage.py db_guards`` and by the test suite: a guard declared by a model but missing from the
migrated database (a new regulated table, a new ``signed_part_of``) is a failure that names the command
writing its migration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import connections
from django.db.migrations.loader import MigrationLoader

from compliance.db_guards import (
    PIN,
    SHARED_FUNCTIONS,
    Guard,
    declared_guards,
    shared_function_drop,
    shared_function_sql,
)

__all__ = ["GuardDifferences", "guard_differences", "migration_source"]

_MANAGED_SUFFIXES = ("_append_only", "_signed_frozen", "_signed_part")
_EVENT_BITS = {"INSERT": 4, "DELETE": 8, "UPDATE": 16}
_PINNED = PIN.removeprefix("SET search_path = ")


@dataclass
class GuardDifferences:
    """Declared guards missing or different in the database, installed ones no model declares, shared
    functions missing or different."""

    missing: list[Guard] = field(default_factory=list)
    undeclared: list[tuple[str, str]] = field(default_factory=list)  # (table, trigger)
    functions: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.missing or self.undeclared or self.functions)

    def lines(self) -> list[str]:
        return ([f"missing or different: trigger {g.name} on {g.table} ({g.app_label})" for g in self.missing]
                + [f"undeclared: trigger {name} on {table}" for table, name in self.undeclared]
                + [f"missing or different: function {name}" for name in self.functions])

    def apps(self) -> list[str]:
        labels = {g.app_label for g in self.missing} | {_app_of(table) for table, _ in self.undeclared}
        if self.functions:
            labels.add("compliance")
        return sorted(labels)


def _app_of(table: str) -> str:
    from django.apps import apps

    return next((m._meta.app_label for m in apps.get_models() if m._meta.db_table == table), "compliance")


def _tgtype(events: str) -> int:
    bits = 1 | (2 if events.startswith("BEFORE") else 0)  # FOR EACH ROW, BEFORE
    for word, bit in _EVENT_BITS.items():
        if word in events.split():
            bits |= bit
    return bits


def _installed_triggers(cursor: Any) -> dict[tuple[str, str], tuple[str, tuple[str, ...], int, str, list[str]]]:
    cursor.execute(
        "SELECT c.relname, t.tgname, p.proname, t.tgargs, t.tgtype, p.prosrc, coalesce(p.proconfig, '{}') "
        "FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid "
        "WHERE NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace"
    )
    found = {}
    for table, name, function, args, tgtype, source, config in cursor.fetchall():
        arguments = tuple(part.decode() for part in bytes(args).split(b"\x00") if part)
        found[(table, name)] = (function, arguments, int(tgtype), source, list(config))
    return found


def _pinned(config: list[str]) -> bool:
    return f"search_path={_PINNED}" in config


def _differs(guard: Guard, installed: tuple[str, tuple[str, ...], int, str, list[str]] | None) -> bool:
    if installed is None:
        return True
    function, args, tgtype, source, config = installed
    if (function, args, tgtype) != (guard.function, guard.args, _tgtype(guard.events)):
        return True
    return bool(guard.body) and (source != guard.body or not _pinned(config))


def _function_differences(cursor: Any) -> list[str]:
    cursor.execute(
        "SELECT p.proname, p.prosrc, coalesce(p.proconfig, '{}') FROM pg_proc p "
        "WHERE p.pronamespace = 'public'::regnamespace AND p.proname = ANY(%s)", [list(SHARED_FUNCTIONS)]
    )
    installed = {name: (source, list(config)) for name, source, config in cursor.fetchall()}
    return [name for name, (_, _, body) in SHARED_FUNCTIONS.items()
            if installed.get(name) is None or installed[name][0] != body or not _pinned(installed[name][1])]


def guard_differences(using: str = "default") -> GuardDifferences:
    """Compare the declarations with the database (PostgreSQL)."""
    connection = connections[using]
    with connection.cursor() as cursor:
        installed = _installed_triggers(cursor)
        functions = _function_differences(cursor)
        tables = set(connection.introspection.table_names(cursor))
    declared = [g for g in declared_guards() if g.table in tables]
    differences = GuardDifferences(functions=functions)
    differences.missing = [g for g in declared if _differs(g, installed.get((g.table, g.name)))]
    names = {(g.table, g.name) for g in declared}
    differences.undeclared = sorted(key for key in installed if key[1].endswith(_MANAGED_SUFFIXES) and key not in names)
    return differences


def _leaf(loader: MigrationLoader, app_label: str) -> str | None:
    leaves = loader.graph.leaf_nodes(app_label)
    return leaves[0][1] if leaves else None


def _literal(sql: str) -> str:
    """A triple-quoted Python literal of ``sql`` (ending in a newline, so a closing quote never meets one)."""
    escaped = sql.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return f'"""{escaped}\n"""'


def migration_source(app_label: str, differences: GuardDifferences, loader: MigrationLoader) -> tuple[str, str]:
    """The name and Python source of the migration that installs ``app_label``'s missing guards."""
    forward: list[str] = []
    backward: list[str] = []
    if app_label == "compliance":
        for name in differences.functions:
            forward.append(shared_function_sql(name))
            backward.insert(0, shared_function_drop(name))
    for guard in (g for g in differences.missing if g.app_label == app_label):
        forward.extend(guard.create_sql())
        backward[:0] = guard.drop_sql()
    for table, trigger in differences.undeclared:
        if _app_of(table) == app_label:
            forward.append(f'DROP TRIGGER IF EXISTS "{trigger}" ON public."{table}"')
    dependencies = [(app_label, _leaf(loader, app_label))]
    guards_of_compliance = _leaf(loader, "compliance")
    if app_label != "compliance" and guards_of_compliance:
        dependencies.append(("compliance", guards_of_compliance))
    leaf = dependencies[0][1] or "0000"
    number = int(leaf[:4]) + 1 if leaf[:4].isdigit() else 1
    name = f"{number:04d}_db_guards"
    body = "\n".join([
        '"""The database guards this app\'s models declare (compliance.db_guards), written by',
        "``manage.py db_guards --makemigrations``: append-only tables, signed records frozen, the rows of a",
        'signed record\'s content frozen with it. PostgreSQL only; every function pins its search_path."""',
        "",
        "from django.db import migrations",
        "",
        "from compliance.migration_ops import PostgresSQL",
        "",
        "SQL = [",
        *(f"    {_literal(statement)}," for statement in forward),
        "]",
        "",
        "REVERSE_SQL = [",
        *(f"    {_literal(statement)}," for statement in backward),
        "]",
        "",
        "",
        "class Migration(migrations.Migration):",
        "    dependencies = [",
        *(f"        ({label!r}, {migration!r})," for label, migration in dependencies if migration),
        "    ]",
        "",
        "    operations = [PostgresSQL(sql=SQL, reverse_sql=REVERSE_SQL)]",
        "",
    ])
    return name, body


def write_migrations(differences: GuardDifferences, using: str = "default") -> list[Path]:
    """Write one migration per app with something missing; the paths written."""
    from django.apps import apps

    written: list[Path] = []
    # compliance first: the others depend on its migration (the shared functions).
    for label in sorted(differences.apps(), key=lambda app: app != "compliance"):
        loader = MigrationLoader(connections[using], ignore_no_migrations=True)
        name, source = migration_source(label, differences, loader)
        path = Path(apps.get_app_config(label).path) / "migrations" / f"{name}.py"
        path.write_text(source)
        written.append(path)
    return written
