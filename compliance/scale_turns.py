"""Two writers of a generated year at once (``manage.py generate_casino``, :mod:`compliance.scale`), and the audit
chain kept whole while they write.

The floor's parts (staffing, the equipment logs: ``ScaleSeeder(beside=True)``) run in a second process beside the
coupons, so the machine's second core works: the parts are mostly Python while the coupons' day is mostly the
database's.

What must not happen: a linker raising a chain's floor (``compliance.chain.link``: every row at or below it is linked)
past a row of the other writer's transaction still in flight, which would then never be linked. In production the
linker's horizon (the oldest running transaction's start) prevents it; here each process travels in time, so the
links' times and the transactions' starts are not on one clock. So the writers take turns on a PostgreSQL advisory
lock instead:

* every transaction of the second process is written holding the lock in share mode (:func:`beside_writes`), from
  before it begins until what runs at its commit has run;
* the first process links only holding it exclusively (:func:`linking`), outside any transaction of its own: it
  waits for the transaction in flight to commit, and the next waits for it.

So while the coupons' process links, no other row is in flight: every row below the ids it reads is committed, and a
transaction that begins afterwards takes ids above them all. A writer waiting for the lock holds no other lock (it
waits first, at the start of its transaction, or outside one), so the turns cannot deadlock. With one process
(``--one-writer``, or a part that is not ``beside``) both are no-ops.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import TypeVar

from django.db import connection, transaction

__all__ = ["beside_writes", "entered_beside", "linking", "linking_if_free", "writers_take_turns"]

T = TypeVar("T")

_KEY = int.from_bytes(hashlib.sha256(b"generate_casino:writers").digest()[:8], "big", signed=True)
_state = {"turns": False}


def writers_take_turns(on: bool) -> None:
    """From now on (``on``) this process's writes and links take turns with the other writer's."""
    _state["turns"] = on


@contextmanager
def beside_writes() -> Iterator[None]:
    """A transaction of the second writer, in its turn: the lock taken in share mode before it begins (holding no
    other lock while it waits) and let go after it has ended and what runs at its commit (the breach syncs, which
    write in transactions of their own) has run."""
    turns = _state["turns"] and not connection.in_atomic_block
    if turns:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock_shared(%s)", [_KEY])
    try:
        with transaction.atomic():
            yield
    finally:
        if turns:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock_shared(%s)", [_KEY])


@contextmanager
def entered_beside(manager: AbstractContextManager[T]) -> Iterator[T]:
    """``manager`` (one that writes as it is entered and as it is left, such as ``compliance.demo.signing_passwords``)
    entered and left each in a transaction of the second writer."""
    stack = ExitStack()
    with beside_writes():
        value = stack.enter_context(manager)
    try:
        yield value
    finally:
        with beside_writes():
            stack.close()


@contextmanager
def linking() -> Iterator[None]:
    """The first writer's links: the lock held exclusively, outside any transaction (no row lock is held while
    waiting), so no transaction of the other writer is in flight until it is let go."""
    if not _state["turns"]:
        yield
        return
    if connection.in_atomic_block:
        raise RuntimeError("generate_casino links outside a transaction (compliance.scale_turns)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [_KEY])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_KEY])


@contextmanager
def linking_if_free(*, wait: bool = False) -> Iterator[bool]:
    """:func:`linking` if the other writer has no transaction in flight now, without waiting for it (True); else
    nothing is held (False), and the caller links another time. The coupons' day links so: a day of the equipment
    logs is one transaction of several seconds, and waiting for it at each day's end cost the coupons' process about
    0.75 s a day (py-spy, 29 Nov 2026). ``wait``: wait for the turn after all (True), as the caller must now and then:
    the floor's writer is in a transaction most of the time, and what waits for the link is kept in memory."""
    if wait:
        with linking():
            yield True
        return
    if not _state["turns"]:
        yield True
        return
    if connection.in_atomic_block:
        raise RuntimeError("generate_casino links outside a transaction (compliance.scale_turns)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [_KEY])
        held = bool(cursor.fetchone()[0])
    try:
        yield held
    finally:
        if held:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [_KEY])
