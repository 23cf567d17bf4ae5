"""Reads a hot path cannot afford to compile with the ORM: hand-written SQL, prepared once per connection on
PostgreSQL, materialised as the ORM's own model instances — the same SQL on SQLite and PostgreSQL.

Building and compiling a queryset costs a millisecond or more of Python per query — most of a coupon scan's
time at the table (issue 10's figure; issue 24 measured the ORM again with Django's ``server_side_binding``:
about three times the CPU of these reads). A read on such a path is written once as SQL whose select list
comes from the models (:class:`Columns`), so a model's new field is read without touching the query;
:func:`fetch` sends it (on PostgreSQL as a prepared statement, planned once per connection) and each row is
turned back into instances with ``Model.from_db`` and the same converters the ORM applies (the backend's and
the field's), exactly as the ORM would build them. The statements are logged in ``connection.queries`` like
the ORM's (query-count tests see them). Their one user is the coupon scan (``coupons.selectors.scan_reads``).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init
from django.utils.connection import ConnectionProxy

__all__ = ["Columns", "current_connection", "fetch"]


def current_connection() -> Any:
    """This thread's connection itself rather than Django's ``connection`` proxy, which looks the connection up
    again at each attribute read (some 80 lookups a coupon scan, 7 % of its CPU: issue 27's profile). The same
    object the ORM's compilers hand to converters and ``get_db_prep_value``."""
    own = connection  # a test may put a connection of its own here
    return connections[DEFAULT_DB_ALIAS] if isinstance(own, ConnectionProxy) else own


class Columns:
    """The concrete columns of ``model`` under the SQL alias ``alias``, and how to build an instance from them."""

    def __init__(self, model: type[models.Model], alias: str) -> None:
        fields = list(model._meta.concrete_fields)
        self.model, self.alias, self.width = model, alias, len(fields)
        self.attnames = [f.attname for f in fields]
        self.sql = ", ".join(f'{alias}."{f.column}"' for f in fields)
        self._pk_at = fields.index(model._meta.pk)
        self._converters: list[tuple[int, Any, list[Callable[..., Any]]]] = []
        for index, field in enumerate(fields):
            column = field.get_col(alias)
            own: Any = field  # Field.get_db_converters is Django's, missing from django-stubs 5.2
            converters = connection.ops.get_db_converters(column) + own.get_db_converters(connection)
            if converters:
                self._converters.append((index, column, converters))
        self._plain = _plain_to_build(model, self.attnames)

    def found(self, row: Sequence[Any], start: int = 0) -> bool:
        """Whether the instance whose columns begin at ``row[start]`` is there (its primary key is not NULL)."""
        return row[start + self._pk_at] is not None

    def build(self, row: Sequence[Any], start: int = 0) -> Any:
        """The instance whose columns begin at ``row[start]`` (None when its primary key is NULL: an outer join
        that found nothing)."""
        values = list(row[start:start + self.width])
        if values[self._pk_at] is None:
            return None
        db = current_connection()
        for index, column, converters in self._converters:
            for convert in converters:
                values[index] = convert(values[index], column, db)
        model = self.model
        if not self._plain or pre_init.has_listeners(model) or post_init.has_listeners(model):
            return model.from_db(db.alias, self.attnames, values)
        # What Model.from_db and Model.__init__ do for a full row of such a model, without their loop of setattr
        # through each field's descriptor and their signals (nobody listens): a scan builds thirteen of these.
        instance = model.__new__(model)
        instance._state = state = ModelState()
        state.adding, state.db = False, db.alias
        instance.__dict__.update(zip(self.attnames, values, strict=True))
        return instance


_PLAIN_DESCRIPTORS = (DeferredAttribute, ForeignKeyDeferredAttribute)


def _plain_to_build(model: type[models.Model], attnames: list[str]) -> bool:
    """Whether an instance of ``model`` from a full row is its values in ``__dict__`` and a fresh state, nothing
    more: Django's own ``__init__``, ``from_db``, ``__new__`` and ``__setattr__``, and each column's attribute the
    plain descriptor that ``__init__``'s ``setattr`` stores straight into ``__dict__`` (a file's or a custom one's
    may do more)."""
    base = models.Model
    from_db = getattr(base.from_db, "__func__", base)
    return (model.__init__ is base.__init__ and getattr(model.from_db, "__func__", None) is from_db
            and model.__setattr__ is base.__setattr__ and model.__new__ is base.__new__
            and type(model).__call__ is type(base).__call__
            and all(type(inspect.getattr_static(model, name, None)) in _PLAIN_DESCRIPTORS for name in attnames))


def _cursor(db: Any) -> Any:
    """The connection's one cursor for these reads, made once rather than for each statement (a new psycopg cursor
    copies the connection's adapters: about 50 µs, a fifth of a scan's read). :func:`fetch` reads each result whole
    before it returns, so no caller ever holds a result the next statement would replace."""
    held = getattr(db, "_raw_reads_cursor", None)
    if held is None or held.closed or held.connection is not db.connection:
        held = db._raw_reads_cursor = psycopg.Cursor(db.connection)
    return held


def _prepared(db: Any, statement: str, params: Sequence[Any]) -> Any:
    cursor = _cursor(db)
    cursor.execute(statement, params, prepare=True)
    return cursor


def _checking_health(db: Any, statement: str, params: Sequence[Any]) -> Any:
    """The request's first read on a connection kept from an earlier request, as its health check.

    Django checks a kept connection (``CONN_HEALTH_CHECKS``) with a ``SELECT 1`` before a request's first query and
    connects again if the server went away (a restart, a fail-over, an idle connection cut). A read outside any
    transaction can be that check itself: sent once, and, if the connection turns out broken, sent again on a new
    one — what the check would have done, without its round trip (one of a coupon scan's eight; issue 27). A read that
    fails on a live connection (a timeout, a bad value) raises as it would have."""
    try:
        cursor = _prepared(db, statement, params)
    except psycopg.Error:
        if not db.connection.broken:
            raise
        db.close()
        db.ensure_connection()
        cursor = _prepared(db, statement, params)
    db.health_check_done = True  # Django's health-check flag
    return cursor


def fetch(statement: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Run ``statement`` on Django's connection (in its transaction, if any) and read its rows, all of them (the
    connection's one cursor is free again when this returns).

    On PostgreSQL a psycopg cursor binding on the server, the statement prepared: Django's own cursors bind
    parameters on the client, where ``prepare`` does nothing and PostgreSQL parses and plans every statement
    anew. On SQLite (which prepares and caches statements itself) Django's own cursor."""
    db = current_connection()  # Django's health-check flags are missing from django-stubs 5.2: Any
    postgresql = db.vendor == "postgresql"
    checks_health = (postgresql and db.connection is not None and db.health_check_enabled
                     and not db.health_check_done and db.autocommit and not db.in_atomic_block)
    db.ensure_connection()
    started = time.monotonic()
    with db.wrap_database_errors:
        if checks_health:
            cursor = _checking_health(db, statement, params)
        elif postgresql:
            cursor = _prepared(db, statement, params)
        else:
            cursor = db.connection.cursor()
            cursor.execute(statement.replace("%s", "?"), list(params))
        rows = cursor.fetchall()
    if db.queries_logged:
        db.queries_log.append({"sql": f"{statement} -- {list(params)!r}",
                               "time": f"{time.monotonic() - started:.3f}"})
    return list(rows)
