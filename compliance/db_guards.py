"""The triggers the models declare, as SQL: what migrations install and what the check compares.

Three kinds of guard follow from declarations on the models (nothing is registered by hand):

* ``<table>_append_only``: every append-only table (``AppendOnly`` models and every history table) refuses
  UPDATE and DELETE (``compliance_refuse_change()``);
* ``<table>_signed_frozen``: every ``RegulatedRecord`` table refuses UPDATE and DELETE of a signed row, but
  a change confined to the model's ``unsigned_fields`` (``compliance_refuse_signed_change()``);
* ``<table>_signed_part``: every model declaring ``signed_part_of`` (a form's figures, an inventory's
  counts) refuses INSERT, UPDATE and DELETE of a row of a signed record (a function of its own, written
  from the declaration's lookup path).

Every function pins ``search_path`` to ``pg_catalog, public, pg_temp`` (the temporary schema searched
last, so a session's temporary table never stands in for a real one) and names every table with its
schema. ``manage.py db_guards --makemigrations`` writes the migration that installs what a migrated
database lacks; ``manage.py db_guards --check`` (and the test suite) fails while anything declared is
missing or differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import models

from compliance.db_guarantees import append_only_tables, regulated_models, signed_frozen_trigger_args

__all__ = [
    "ARCHIVE_SETTING",
    "PIN",
    "SCHEMA",
    "SHARED_FUNCTIONS",
    "Guard",
    "declared_guards",
    "signed_part_models",
]

SCHEMA = "public"
# The temporary schema is searched first unless named: naming it last keeps a session's temporary
# tables (which the application's role may not create anyway) from shadowing the real ones.
PIN = "SET search_path = pg_catalog, public, pg_temp"
_RAISE = "USING ERRCODE = 'integrity_constraint_violation'"
# The setting (for its transaction only) under which the archive step, as the owner, moves rows out of a live
# append-only table (compliance.archive).
ARCHIVE_SETTING = "compliance.archive_move"
# The append-only trigger's one way out, for the yearly archive (compliance.archive): a live row moved, by the
# statement that deletes it, into its year's table in the archive schema (its chain and seal unchanged, read as
# before through the live table). Only for the table's owner (who could switch the trigger off anyway; the
# application's role has no DELETE privilege at all), only out of a table of the public schema (never out of the
# archive), and only under ARCHIVE_SETTING, set by the archive step for its own transaction, naming that table.
_ARCHIVE_WAY_OUT = """
    IF TG_OP = 'DELETE' AND TG_TABLE_SCHEMA = 'public'
            AND current_setting('compliance.archive_move', true) = TG_TABLE_NAME
            AND pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID),
                            'USAGE') THEN
        RETURN OLD;
    END IF;"""

# The functions the guards share, defined by compliance's migrations: name -> (arguments, returns, body).
SHARED_FUNCTIONS: dict[str, tuple[str, str, str]] = {
    "compliance_refuse_change": ("()", "trigger", f"""
BEGIN{_ARCHIVE_WAY_OUT}
    RAISE EXCEPTION '% rows are append-only: % refused', TG_TABLE_NAME, TG_OP
        {_RAISE};
END;
"""),
    "compliance_is_signed": ("(p_app_label text, p_model text, p_record_id bigint)", "boolean", """
BEGIN
    RETURN EXISTS (
        SELECT 1 FROM public.compliance_signature s
        JOIN public.django_content_type c ON c.id = s.content_type_id
        WHERE c.app_label = p_app_label AND c.model = p_model AND s.object_id = p_record_id
    );
END;
"""),
    "compliance_refuse_signed_change": ("()", "trigger", f"""
DECLARE
    -- TG_ARGV: app label, model name, key column, then the unsigned marker columns.
    unsigned text[] := TG_ARGV[3:];
    record_id bigint := (to_jsonb(OLD) ->> TG_ARGV[2])::bigint;
BEGIN
    IF NOT public.compliance_is_signed(TG_ARGV[0], TG_ARGV[1], record_id) THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - unsigned) = (to_jsonb(OLD) - unsigned) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% #% is signed: % refused (record a correction instead)', TG_TABLE_NAME, record_id, TG_OP
        {_RAISE};
END;
"""),
    # Whether a row with this xmin was written by the current transaction (or one of its subtransactions):
    # a visible row whose transaction is still in progress can only be our own. The 32-bit xmin is put in
    # the epoch of the current transaction (rows older than 2^31 transactions are frozen long before).
    "compliance_written_in_this_transaction": ("(row_xmin xid)", "boolean", """
DECLARE
    top bigint := pg_current_xact_id()::text::bigint;
    low bigint := top & 4294967295;
    epoch bigint := top >> 32;
    x bigint := row_xmin::text::bigint;
    candidate bigint;
BEGIN
    IF x < 3 THEN
        RETURN false;  -- frozen or bootstrap rows
    END IF;
    IF x >= low THEN
        IF x - low >= 2147483648 THEN RETURN false; END IF;
        candidate := (epoch << 32) | x;
    ELSE
        IF low - x < 2147483648 THEN RETURN false; END IF;  -- older than this transaction
        candidate := ((epoch + 1) << 32) | x;
    END IF;
    RETURN pg_xact_status(candidate::text::xid8) = 'in progress';
END;
"""),
}

_SHARED_READS = {
    "compliance_is_signed": ("compliance_signature", "django_content_type"),
    "compliance_refuse_signed_change": ("compliance_signature", "django_content_type"),
}


def shared_function_sql(name: str) -> str:
    arguments, returns, body = SHARED_FUNCTIONS[name]
    return (f"CREATE OR REPLACE FUNCTION {SCHEMA}.{name}{arguments} RETURNS {returns} LANGUAGE plpgsql "
            f"{PIN} AS $${body}$$")


def shared_function_drop(name: str) -> str:
    arguments = SHARED_FUNCTIONS[name][0]
    types = ", ".join(part.strip().split(" ")[-1] for part in arguments.strip("()").split(",") if part.strip())
    return f"DROP FUNCTION IF EXISTS {SCHEMA}.{name}({types})"


@dataclass(frozen=True)
class Guard:
    """One trigger (and the function of its own, if it has one) a model's declaration asks for."""

    app_label: str
    table: str
    name: str
    function: str
    events: str  # e.g. "BEFORE UPDATE OR DELETE"
    args: tuple[str, ...] = ()
    body: str = ""  # the function's body when the guard has a function of its own
    reads: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        assert len(self.name) <= 63 and len(self.function) <= 63, f"identifier too long: {self.name}"

    def create_sql(self) -> list[str]:
        statements = []
        if self.body:
            statements.append(f"CREATE OR REPLACE FUNCTION {SCHEMA}.{self.function}() RETURNS trigger "
                              f"LANGUAGE plpgsql {PIN} AS $${self.body}$$")
        quoted = ", ".join("'" + arg.replace("'", "''") + "'" for arg in self.args)
        statements.append(f'CREATE OR REPLACE TRIGGER "{self.name}" {self.events} ON {SCHEMA}."{self.table}" '
                          f"FOR EACH ROW EXECUTE FUNCTION {SCHEMA}.{self.function}({quoted})")
        return statements

    def drop_sql(self) -> list[str]:
        statements = [f'DROP TRIGGER IF EXISTS "{self.name}" ON {SCHEMA}."{self.table}"']
        if self.body:
            statements.append(f"DROP FUNCTION IF EXISTS {SCHEMA}.{self.function}()")
        return statements


def _app_of_table() -> dict[str, str]:
    from django.apps import apps

    return {model._meta.db_table: model._meta.app_label for model in apps.get_models()}


def _append_only_guards(app_of: dict[str, str]) -> list[Guard]:
    return [Guard(app_of[table], table, f"{table}_append_only", "compliance_refuse_change", "BEFORE UPDATE OR DELETE")
            for table in append_only_tables()]


def _signed_frozen_guards() -> list[Guard]:
    return [
        Guard(model._meta.app_label, model._meta.db_table, f"{model._meta.db_table}_signed_frozen",
              "compliance_refuse_signed_change", "BEFORE UPDATE OR DELETE", args=signed_frozen_trigger_args(model),
              reads=_SHARED_READS["compliance_refuse_signed_change"])
        for model in regulated_models()
    ]


def signed_part_models() -> list[type[models.Model]]:
    """Every model whose rows are part of a signed record's content (``signed_part_of``)."""
    from django.apps import apps

    found = [m for m in apps.get_models() if getattr(m, "signed_part_of", None) is not None and not m._meta.proxy]
    return sorted(found, key=lambda m: m._meta.db_table)


def _record_id_sql(model: type[models.Model], path: str, row: str) -> tuple[str, type[models.Model], list[str]]:
    """SQL giving the id of the signed record that ``row`` (NEW or OLD) of ``model`` belongs to, following
    the lookup ``path``; the record's model; the tables read on the way."""
    current: type[models.Model] = model
    expression = ""  # "" while still at the row itself
    reads: list[str] = []
    for step in path.split("__"):
        link: Any = current._meta.get_field(step)
        target: type[models.Model] = link.related_model
        if link.concrete:  # a foreign key of ``current``
            if not expression:
                expression = f"{row}.{link.column}"
            else:
                table = current._meta.db_table
                expression = (f"(SELECT x.{link.column} FROM {SCHEMA}.{table} x "  # noqa: S608 - names from models
                              f"WHERE x.{current._meta.pk.column} = {expression})")
                reads.append(table)
        else:  # a reverse one-to-one: the other model's key pointing here
            if not expression:
                expression = f"{row}.{current._meta.pk.column}"
            table = target._meta.db_table
            expression = (f"(SELECT x.{target._meta.pk.column} FROM {SCHEMA}.{table} x "  # noqa: S608
                          f"WHERE x.{link.field.column} = {expression} LIMIT 1)")
            reads.append(table)
        current = target
    return expression, current, reads


def _changed_sql(model: type[models.Model], columns: tuple[str, ...]) -> str:
    if not columns:
        return "to_jsonb(NEW) IS DISTINCT FROM to_jsonb(OLD)"
    cols = [str(model._meta.get_field(name).column) for name in columns]  # type: ignore[union-attr]
    new = ", ".join(f"NEW.{c}" for c in cols)
    old = ", ".join(f"OLD.{c}" for c in cols)
    return f"ROW({new}) IS DISTINCT FROM ROW({old})"


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _signed_part_guard(model: type[models.Model]) -> Guard:
    part = model.signed_part_of  # type: ignore[attr-defined]
    table = model._meta.db_table
    old_id, record, reads = _record_id_sql(model, part.record, "OLD")
    new_id, _, _ = _record_id_sql(model, part.record, "NEW")
    app, name = record._meta.app_label, record._meta.model_name
    signed_old = f"public.compliance_is_signed('{app}', '{name}', {old_id})"
    signed_new = f"public.compliance_is_signed('{app}', '{name}', {new_id})"
    allowed = " AND ".join(f"NEW.{model._meta.get_field(f).column} = {_literal(v)}"  # type: ignore[union-attr]
                           for f, v in part.insert_allowed_if)
    insert_refused = f"NOT ({allowed}) AND {signed_new}" if allowed else signed_new
    changed = _changed_sql(model, part.columns)
    what = f"{model._meta.verbose_name} #%"
    body = f"""
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF {insert_refused} THEN
            RAISE EXCEPTION '{record._meta.verbose_name} #% is signed: nothing is added to it (INSERT refused)', {new_id}
                {_RAISE};
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF {signed_old} THEN
            RAISE EXCEPTION '{what} is part of signed {record._meta.verbose_name} #%: DELETE refused', OLD.id, {old_id}
                {_RAISE};
        END IF;
        RETURN OLD;
    END IF;
    IF {changed} AND ({signed_old} OR {signed_new}) THEN
        RAISE EXCEPTION '{what} is part of signed {record._meta.verbose_name} #%: UPDATE refused (record a correction instead)',
            OLD.id, {old_id} {_RAISE};
    END IF;
    RETURN NEW;
END;
"""
    return Guard(model._meta.app_label, table, f"{table}_signed_part", f"{table}_signed_part",
                 "BEFORE INSERT OR UPDATE OR DELETE", body=body,
                 reads=(*_SHARED_READS["compliance_is_signed"], *reads))


def declared_guards() -> list[Guard]:
    """Every guard the installed models declare, in a stable order."""
    guards = [*_append_only_guards(_app_of_table()), *_signed_frozen_guards(),
              *(_signed_part_guard(m) for m in signed_part_models())]
    return sorted(guards, key=lambda g: (g.app_label, g.table, g.name))
