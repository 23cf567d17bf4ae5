"""The keyed hash chain over signatures, audit events and ledger lines: link, verify, the head.

Rows are sealed at insert (:class:`compliance.models.Sealed`, one HMAC per row, no lock). Here:

* :func:`chain_link` joins a table's unlinked rows to its chain in one :class:`ChainLink` (Celery beat
  every minute, and on demand). Only linkers wait on each other (a PostgreSQL advisory lock per chain:
  the application's role may not UPDATE chain links, so it cannot ``SELECT … FOR UPDATE`` them); an
  insert never waits. Rows are found by id above the chain's ``floor``, minus the ids the links above
  the floor already cover, so a row whose transaction commits after a higher id was linked is linked
  by the next run, once (the floor rises only past links older than every running transaction).
* :func:`chain_verify` walks every chain (sequence, previous hash, each link's HMAC over its rows'
  seals), every row against its seal, and every signed record against its signatures.
* :func:`chain_head` is the state a filed report prints: each chain's last link and one digest.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, connection, models, transaction
from django.utils import timezone

from compliance.models import ChainLink, Sealed, Signature
from compliance.models.chain import chain_hmac, decode_ids, encode_ids

__all__ = [
    "ChainHead",
    "ChainReport",
    "altered_ids",
    "audit_chain_alert_send",
    "chain_head",
    "chain_link",
    "chain_link_all",
    "chain_verify",
    "integrity_cell",
    "sealed_models",
]

# Rows per link: a link stays a few hundred kilobytes to hash even at the busiest minute.
BATCH = 50_000
# How long before the oldest running transaction a link must be for the floor to pass it.
MARGIN = timedelta(seconds=60)
ALTERED = "altered since signed"


def sealed_models() -> list[type[Sealed]]:
    """Every concrete sealed model, each its own chain (apps register nothing: subclassing is enough)."""
    return sorted((m for m in apps.get_models() if issubclass(m, Sealed)), key=lambda m: m._meta.label)


def _link_hash(chain: str, sequence: int, previous: str, entries: Iterable[tuple[int, str]]) -> str:
    mac = chain_hmac()
    mac.update(f"{chain}\n{sequence}\n{previous}\n".encode())
    for pk, seal in entries:
        mac.update(f"{pk}:{seal}\n".encode())
    return mac.hexdigest()


def _horizon() -> datetime:
    """Before this instant, every transaction that could still add a row had already begun (PostgreSQL:
    the oldest running transaction in this database; SQLite has one writer at a time)."""
    now = timezone.now()
    if connection.vendor != "postgresql":
        return now - MARGIN
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT min(xact_start) FROM pg_stat_activity WHERE datname = current_database() "
            "AND xact_start IS NOT NULL AND pid <> pg_backend_pid()"
        )
        oldest = cursor.fetchone()[0]
    return min(oldest, now) - MARGIN if oldest else now - MARGIN


def _unlinked(model: type[Sealed], label: str, floor: int) -> list[tuple[int, str | None]]:
    covered: set[int] = set()
    for ids in ChainLink.objects.filter(chain=label, last_id__gt=floor).values_list("ids", flat=True):
        covered.update(decode_ids(ids))
    rows = model._base_manager.filter(pk__gt=floor).order_by("pk").values_list("pk", "seal")
    return [(pk, seal) for pk, seal in rows.iterator(chunk_size=5000) if pk not in covered][:BATCH]


def _take_turns(label: str) -> None:
    """Linkers of one chain take turns until their transaction ends; inserts never ask. (SQLite has one
    writer at a time; the unique sequence catches the rest.)"""
    if connection.vendor == "postgresql":
        key = int.from_bytes(hashlib.sha256(f"audit-chain:{label}".encode()).digest()[:8], "big", signed=True)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


@transaction.atomic
def chain_link(model: type[Sealed]) -> ChainLink | None:
    """Join the model's unlinked rows to its chain in one new link (``None``: nothing to link)."""
    label = model.chain_label()
    _take_turns(label)
    head = ChainLink.objects.filter(chain=label).order_by("-sequence").first()
    floor = head.floor if head else 0
    batch = _unlinked(model, label, floor)
    if not batch:
        return None
    late: dict[int, str] = {pk: "" for pk, seal in batch if not seal}
    if late:  # rows inserted before sealing existed: sealed now, the seal kept in the link
        for obj in model._base_manager.filter(pk__in=list(late)):
            late[obj.pk] = obj.compute_seal()
    entries = [(pk, seal or late[pk] or "") for pk, seal in batch]
    sequence = (head.sequence if head else 0) + 1
    previous = head.link_hash if head else ""
    ids = [pk for pk, _ in entries]
    settled = ChainLink.objects.filter(chain=label, linked_at__lt=_horizon()).order_by("-sequence").first()
    new_floor = max(floor, min(settled.last_id if settled else 0, ids[-1]))
    try:
        with transaction.atomic():
            return ChainLink.objects.create(
                chain=label, sequence=sequence, previous=previous,
                link_hash=_link_hash(label, sequence, previous, entries), ids=encode_ids(ids),
                first_id=ids[0], last_id=ids[-1], row_count=len(ids), floor=new_floor,
                late_seals={str(pk): seal for pk, seal in late.items()},
            )
    except IntegrityError:  # another linker made the first link of this chain at the same moment
        return None


def chain_link_all() -> int:
    """Link every chain until nothing is left unlinked; the number of links made."""
    made = 0
    for model in sealed_models():
        while chain_link(model) is not None:
            made += 1
    return made


@dataclass
class ChainReport:
    """What :func:`chain_verify` found. ``broken``: the first broken link of each chain; ``altered``:
    each altered row or signed record; ``pending``: rows not yet linked (not a fault)."""

    broken: list[str] = field(default_factory=list)
    altered: list[str] = field(default_factory=list)
    pending: int = 0
    links: int = 0
    rows: int = 0
    records: int = 0

    @property
    def intact(self) -> bool:
        return not self.broken and not self.altered

    def lines(self) -> list[str]:
        found = [f"BROKEN LINK: {line}" for line in self.broken] + [f"ALTERED: {line}" for line in self.altered]
        summary = (f"{self.links:,} links, {self.rows:,} sealed rows ({self.pending:,} awaiting their link), "
                   f"{self.records:,} signed records checked: " + ("intact" if self.intact else "NOT intact"))
        return [*found, summary]


def _verify_rows(model: type[Sealed], report: ChainReport) -> dict[int, str]:
    """Each row against its seal; the seals by id, for the links."""
    seals: dict[int, str] = {}
    for row in model._base_manager.order_by("pk").iterator(chunk_size=2000):
        report.rows += 1
        seals[row.pk] = row.seal or ""
        if not row.seal_intact():
            report.altered.append(f"{model._meta.label} #{row.pk} ({row}): changed since it was sealed")
    return seals


def _verify_chain(model: type[Sealed], report: ChainReport) -> None:
    label = model.chain_label()
    seals = _verify_rows(model, report)
    covered: set[int] = set()
    previous, floor, first_break = "", 0, ""
    for expected, link in enumerate(ChainLink.objects.filter(chain=label).order_by("sequence").iterator(), 1):
        report.links += 1
        ids = list(decode_ids(link.ids))
        problem = _link_problem(link, expected, previous, ids, seals, covered)
        if problem and not first_break:
            first_break = f"{label} link {link.sequence} (after row #{link.first_id - 1}): {problem}"
        covered.update(ids)
        previous, floor = link.link_hash, max(floor, link.floor)
    if first_break:
        report.broken.append(first_break)
    stray = sorted(pk for pk in seals if pk not in covered and pk <= floor)
    if stray and not first_break:
        report.broken.append(f"{label}: row(s) #{', #'.join(map(str, stray[:20]))} appeared inside the linked rows "
                             "without a link")
    report.pending += sum(1 for pk in seals if pk not in covered and pk > floor)


def _link_problem(
    link: ChainLink, expected: int, previous: str, ids: list[int], seals: dict[int, str], covered: set[int]
) -> str:
    if link.sequence != expected:
        return f"link {expected} is missing"
    if link.previous != previous:
        return "it does not follow the previous link"
    missing = [pk for pk in ids if pk not in seals]
    if missing:
        return f"row(s) #{', #'.join(map(str, missing[:20]))} it covers are gone"
    twice = [pk for pk in ids if pk in covered]
    if twice:
        return f"row(s) #{', #'.join(map(str, twice[:20]))} are linked twice"
    late = link.late_seals or {}
    entries = ((pk, seals[pk] or late.get(str(pk), "")) for pk in ids)
    if not hmac.compare_digest(link.link_hash, _link_hash(link.chain, link.sequence, link.previous, entries)):
        return "its hash does not match its rows' seals (a row's seal was rewritten, or the link was)"
    return ""


def _verify_signed_records(report: ChainReport) -> None:
    by_type: dict[int, list[Signature]] = defaultdict(list)
    for signature in Signature.objects.order_by("content_type_id", "object_id", "pk").iterator(chunk_size=2000):
        by_type[signature.content_type_id].append(signature)
    for type_id, signatures in by_type.items():
        model = ContentType.objects.get_for_id(type_id).model_class()
        if model is None:
            continue
        records = model._base_manager.in_bulk({s.object_id for s in signatures})
        hashes: dict[int, str] = {}
        for signature in signatures:
            record = records.get(signature.object_id)
            name = f"{model._meta.label} #{signature.object_id}"
            if record is None:
                report.altered.append(f"{name}: signed ({signature.slot}) but gone")
                continue
            if signature.object_id not in hashes:
                report.records += 1
                hashes[signature.object_id] = record.content_hash()  # type: ignore[attr-defined]
            if hashes[signature.object_id] != signature.content_hash:
                report.altered.append(f"{name} ({record}): {ALTERED} — its content no longer matches the "
                                      f"'{signature.slot}' signature of {signature.printed_name}")


def chain_verify() -> ChainReport:
    """Walk every chain and every signed record. Reads only."""
    report = ChainReport()
    for model in sealed_models():
        _verify_chain(model, report)
    _verify_signed_records(report)
    return report


@dataclass(frozen=True)
class ChainHead:
    """Each chain's last link (sequence and hash) and one digest of them all, for a filed report."""

    links: dict[str, tuple[int, str]]
    digest: str

    def __str__(self) -> str:
        return self.digest


def chain_head(*, link_first: bool = True) -> ChainHead:
    """The chains' head now; ``link_first`` links what is waiting so the head covers every row so far."""
    if link_first:
        chain_link_all()
    links: dict[str, tuple[int, str]] = {}
    for model in sealed_models():
        label = model.chain_label()
        last = ChainLink.objects.filter(chain=label).order_by("-sequence").first()
        links[label] = (last.sequence, last.link_hash) if last else (0, "")
    text = "\n".join(f"{label}:{seq}:{link_hash}" for label, (seq, link_hash) in sorted(links.items()))
    return ChainHead(links=links, digest=hashlib.sha256(text.encode()).hexdigest())


def altered_ids(model: type[models.Model], ids: Iterable[int]) -> set[int]:
    """Of these rows of a sealed model, those changed since sealed: one query (ledger pages, exports)."""
    wanted = list(ids)
    if not wanted or not issubclass(model, Sealed):
        return set()
    return {row.pk for row in model._base_manager.filter(pk__in=wanted) if not row.seal_intact()}


def integrity_cell(altered: bool) -> str:
    """The words an export prints beside a row changed since it was sealed or signed (empty otherwise)."""
    return ALTERED if altered else ""


def audit_chain_alert_send(*, lines: list[str]) -> bool:
    """Tell every facility's compliance officers that the chain or a signed record was found altered.
    ``False`` (nothing sent) when no compliance officer has an address."""
    from compliance.models import Facility
    from compliance.notifications import Notification, notification_send
    from compliance.roles import Role
    from compliance.selectors import people_emails

    recipients = [email for facility in Facility.objects.order_by("pk")
                  for email in people_emails(facility, [Role.COMPLIANCE_OFFICER])]
    shown = lines[:200]
    body = (
        "The daily verification of the audit chain found records changed outside the application.\n"
        "Signed records, signatures, ledger lines or audit events no longer match their keyed seals.\n"
        "Run `python manage.py verify_audit_chain` for the full list and preserve the database as evidence.\n\n"
        + "\n".join(shown)
        + (f"\n… and {len(lines) - len(shown)} more" if len(lines) > len(shown) else "")
    )
    return notification_send(Notification.to(recipients, subject="Audit chain broken: records altered", body=body))
