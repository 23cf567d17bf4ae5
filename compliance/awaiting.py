"""Where a signed-record type's unfinished records can start: the id below which every record is settled for good.

The dashboard's "awaiting your signature" (``compliance.selectors.records_awaiting_signature``) asks, for each record
type and signature slot a person may give, which of the facility's records still lack it. Asked of the whole table,
that reads every record of the year and every signature of the slot on every view: some 20,000 dice sets and as
many signatures a year, 10–14 ms a type and slot, seven of them on the floorperson's dashboard (issue 27: a page's
cost must not grow with the years kept).

A record is *settled* when every slot of its type is signed, or a correction has replaced it. Both only ever become
true: a signature is never removed or changed (the signatures' table is append-only in the database), nor a
correction taken back (the application's database role deletes nothing). So once every record below some id is settled, every record below it stays settled, and
the question need only be asked of the records from that id on. :func:`settled_below` finds that id — the lowest
unsettled record's, or the next id when all are settled — with one statement a type and facility, and keeps it a
minute (the cache: Redis in production, shared by every worker); a stale answer is only lower, never wrong.

When every record was settled, the type need not be asked at all while no record has been written since: the next
record takes a higher id. :func:`unsettled_from` reads the newest id of each such type, all in one statement, and
leaves out those with nothing new — most of a compliance officer's types (program approvals, Rules Submissions,
guides, new game requests, report sign-offs) on most views; each type asked costs Django some 2–5 ms to build and
compile, whatever it finds.

Two guards on what "below" means:

* *Records still being written.* A record's id is taken when its row is inserted, and the row is seen only when its
  transaction commits: a record of a transaction still open when the id is read (a job importing a list) can commit
  below it, and is left out until the id is read again, a minute at most. So that it is not left out then, the
  records created in the last day count as unsettled whatever their signatures say: the id read is never above the
  oldest of them, and no transaction of this application lasts a day (a report's job stops at six hours).
* *A database restored from a backup* takes its sequences back with it, and ids given after the restore could lie
  below an id kept from before. The id is kept under the database's name for a minute only: a dump is restored into
  a new database, another name (docs/operations.md, "Restore a dump"), and recovering the cluster to a moment stops
  the server for longer than a minute.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import Exists, Max, Min, OuterRef, Q
from django.utils import timezone

from compliance.models import Facility, Signature

__all__ = ["KEPT_SECONDS", "STILL_BEING_WRITTEN", "settled_below", "unsettled_from"]

KEPT_SECONDS = 60
STILL_BEING_WRITTEN = timedelta(days=1)


def unsettled_from(models: Iterable[type[Any]], facility: Facility) -> dict[type[Any], int]:
    """Of ``models``, those that may hold an unsettled record at ``facility``, each with the id its unsettled
    records start from. A type whose records were all settled when the id was read, and that has none newer, is left
    out; the newest ids of those types are read in one statement."""
    found = {model: _settled(model, facility) for model in models}
    every_one = [model for model, (_below, all_settled) in found.items() if all_settled]
    newest = _newest_ids(every_one, facility)
    return {model: below for model, (below, all_settled) in found.items()
            if not all_settled or _at_or_above(newest[model], below)}


def _at_or_above(newest: int | None, below: int) -> bool:
    return newest is not None and newest >= below


def settled_below(model: type[Any], facility: Facility) -> int:
    """An id below which every record of ``model`` at ``facility`` is settled (0: none known to be)."""
    return _settled(model, facility)[0]


def _settled(model: type[Any], facility: Facility) -> tuple[int, bool]:
    """(the id, whether every record was settled when it was read), kept a minute."""
    key = f"awaiting-settled:{connection.settings_dict['NAME']}:{model._meta.label}:{facility.pk}"
    found = cache.get(key)
    if found is None:
        found = _first_unsettled(model, facility)
        cache.set(key, found, KEPT_SECONDS)
    return int(found[0]), bool(found[1])


def _first_unsettled(model: type[Any], facility: Facility) -> tuple[int, bool]:
    from django.contrib.contenttypes.models import ContentType

    content_type = ContentType.objects.get_for_model(model)
    every_slot = Q()
    for requirement in model.signature_requirements:
        every_slot &= Q(Exists(Signature.objects.filter(content_type=content_type, slot=requirement.slot,
                                                        object_id=OuterRef("pk"))))
    settled = Q(corrected_by__isnull=False) | every_slot if every_slot else Q(corrected_by__isnull=False)
    unsettled = ~settled | Q(created_at__gte=timezone.now() - STILL_BEING_WRITTEN)
    found = model.objects.filter(facility=facility).aggregate(first=Min("pk", filter=unsettled), last=Max("pk"))
    if found["first"] is not None:
        return int(found["first"]), False
    return (int(found["last"]) + 1 if found["last"] is not None else 0), True


def _newest_ids(models: list[type[Any]], facility: Facility) -> dict[type[Any], int | None]:
    """Each type's newest id at ``facility``, in one statement (names from the models' own metadata)."""
    if not models:
        return {}
    quote = connection.ops.quote_name
    parts = [f"(SELECT {quote(m._meta.pk.column)} FROM {quote(m._meta.db_table)} "  # noqa: S608 - the models' names
             f"WHERE {quote(m._meta.get_field('facility').column)} = %s "
             f"ORDER BY {quote(m._meta.pk.column)} DESC LIMIT 1)" for m in models]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(parts)}", [facility.pk] * len(models))
        row = cursor.fetchone()
    return dict(zip(models, row, strict=True))
