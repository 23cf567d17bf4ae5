"""The reads and the write of a signature (:func:`compliance.services.signature_sign`) as SQL: a signature is given
many times an hour at every table (each dice or deck change is two to four of them) and a generated year gives
hundreds of thousands; through the ORM each took about ten statements and 3.7 ms of Python (issue 27's profile of
the floor's writer, 30 Nov 2026). The checks stay in the service, in Python, with their words; only the reading
and writing move here (:mod:`compliance.raw_reads`, :mod:`compliance.raw_writes`: prepared statements, the ORM's
own instances), the same on SQLite and PostgreSQL.

The order of the reads is the guarantee. The record is locked first (``FOR UPDATE``, its own statement), and its
signatures are read by a later statement: under READ COMMITTED each statement reads the rows committed when it
starts, so a read in the same statement as the lock, begun before a second signer's transaction committed, would
not see that signer's signature although it waited for their lock. ``tests/compliance/test_signing_reads.py``
races two signers to prove it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.db import connection

from compliance.models import AuditEvent, Profile, RegulatedRecord, Signature
from compliance.raw_reads import Columns, fetch
from compliance.raw_writes import plain_insert

__all__ = ["record_locked_signer_assigned", "signature_write", "signatures_on"]


@cache
def _assigned_sql(table: str, pk: str, locks: bool) -> str:
    field: Any = Profile._meta.get_field("facilities")
    through, own, other = field.m2m_db_table(), field.m2m_column_name(), field.m2m_reverse_name()
    lock = " FOR UPDATE" if locks else ""
    return (f'SELECT (SELECT 1 FROM "{table}" WHERE "{pk}" = %s{lock}), '  # noqa: S608 - names from the models
            f'EXISTS (SELECT 1 FROM "{through}" WHERE "{own}" = %s AND "{other}" = %s)')


def record_locked_signer_assigned(record: RegulatedRecord, profile: Profile) -> bool:
    """Lock ``record``'s row until the transaction ends (two signers cannot race past the checks that follow;
    SQLite, which has no row locks, locks the whole database at the first write) and say whether the signer is
    assigned to its facility: one statement."""
    meta = type(record)._meta
    statement = _assigned_sql(meta.db_table, meta.pk.column, bool(connection.features.has_select_for_update))
    return bool(fetch(statement, [record.pk, profile.pk, record.facility_id])[0][1])


@cache
def _signatures() -> tuple[Columns, str]:
    columns = Columns(Signature, "s")
    return columns, (f'SELECT {columns.sql} FROM "{Signature._meta.db_table}" s '  # noqa: S608 - names from the model
                     "WHERE s.content_type_id = %s AND s.object_id = %s ORDER BY s.signed_at, s.id")


def signatures_on(content_type_id: int, object_id: int) -> list[Signature]:
    """The record's signatures, in the order they were given (``Signature.Meta.ordering``). Read after
    :func:`record_locked_signer_assigned`, in a statement of its own (the module's docstring says why)."""
    columns, statement = _signatures()
    return [columns.build(row) for row in fetch(statement, [content_type_id, object_id])]


def signature_write(signature: Signature, event: AuditEvent) -> None:
    """The signature and its audit event, each sealed, in one statement (PostgreSQL; where ``save()`` would do
    more than insert them, or on SQLite, each saved: :func:`compliance.raw_writes.plain_insert`)."""
    plain_insert(signature, event)
