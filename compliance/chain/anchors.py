"""Anchoring the chains outside the casino: each facility's chain heads recorded, e-mailed to the Board and
compliance, printed on reports; and reading back the heads the Board holds.

An anchor is made at the end of every gaming day (beat, :func:`anchors_for_ended_days`), for every report
produced and every report filed (:func:`anchor_record`). Its e-mail carries the heads as a JSON attachment:
the file ``manage.py verify_audit_chain --anchors`` and the Board's own verifier read (:func:`read_anchors`).
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from compliance.actors import acts_as_system
from compliance.chain.link import chain_heads, chain_link_all
from compliance.gaming_day import gaming_day
from compliance.models import ChainAnchor, ChainAnchorDelivery, Facility, email_lines, heads_digest
from compliance.notifications import Notification, notification_send

__all__ = ["AnchorsUnreadable", "anchor_of", "anchor_record", "anchor_send", "anchors_for_ended_days",
           "facility_anchors", "heads_check", "read_anchors"]

Held = dict[str, dict[int, tuple[str, str]]]


def anchor_record(facility: Facility, *, reason: str, subject: str = "", on: date | None = None,
                  user: Any = None) -> ChainAnchor:
    """Link what is waiting, then record the facility's chain heads and send them (after commit)."""
    chain_link_all()
    with transaction.atomic():
        heads = chain_heads(facility)
        anchor = ChainAnchor.objects.create(
            facility=facility, reason=reason, gaming_date=on or gaming_day(facility), subject=subject[:200],
            heads=heads, digest=heads_digest(heads), made_by=user if user is not None and user.pk else None,
        )
        transaction.on_commit(lambda: _enqueue_send(anchor.pk))
    return anchor


def _enqueue_send(anchor_id: int) -> None:
    from compliance.tasks import send_chain_anchor

    send_chain_anchor.delay(anchor_id)


@acts_as_system
def anchors_for_ended_days() -> int:
    """For each facility, anchor the gaming day that last ended, once (the beat job runs every hour)."""
    made = 0
    for facility in Facility.objects.order_by("pk"):
        ended = gaming_day(facility) - timedelta(days=1)
        if ChainAnchor.objects.filter(facility=facility, reason=ChainAnchor.Reason.GAMING_DAY,
                                      gaming_date=ended).exists():
            continue
        try:
            anchor_record(facility, reason=ChainAnchor.Reason.GAMING_DAY, on=ended,
                          subject=f"End of the gaming day of {ended:%-d %B %Y}")
        except IntegrityError:  # another beat made it at the same moment
            continue
        made += 1
    return made


def _recipients(anchor: ChainAnchor) -> list[str]:
    from compliance.roles import Role
    from compliance.selectors import people_emails

    return [*email_lines(anchor.facility.board_recipients), *people_emails(anchor.facility, [Role.COMPLIANCE_OFFICER])]


def anchor_send(anchor_id: int) -> bool:
    """E-mail the anchor to the facility's Board recipients and compliance officers, the heads attached;
    ``True`` once sent (and recorded), ``False`` when there is no one to send it to."""
    anchor = ChainAnchor.objects.select_related("facility").filter(pk=anchor_id).first()
    if anchor is None or anchor.deliveries.exists():
        return False
    lines = [f"  {chain}  link {sequence}  {link_hash}" for chain, sequence, link_hash in anchor.heads]
    body = "\n".join([
        f"The audit chain heads of {anchor.facility.name} ({anchor.get_reason_display().lower()}"
        + (f": {anchor.subject}" if anchor.subject else "") + f"), recorded {timezone.localtime(anchor.made_at):%-d %b %Y %H:%M %Z}.",
        "",
        "Keep this message and its attachment. Every record the system holds up to these heads must still lead to",
        "them: `manage.py verify_audit_chain --anchors <attachment>` at the casino, or the Board's own verifier",
        "(verify_bundle.py, from the inspector's Evidence page) on an evidence bundle, finds any record rewritten,",
        "reordered or deleted before them, even by someone holding the casino's key.",
        "",
        *lines,
        "",
        f"Digest of the heads (SHA-256): {anchor.digest}",
    ])
    notification = Notification.to(_recipients(anchor), subject=f"Audit chain anchor: {anchor.facility.name}, "
                                    f"{anchor.made_at:%Y-%m-%d}", body=body,
                                    attachments=((f"anchor-{anchor.facility.code}-{anchor.pk}.json", anchor.as_json(),
                                                  "application/json"),))
    if not notification_send(notification):
        return False
    ChainAnchorDelivery.objects.create(anchor=anchor, recipients="\n".join(notification.recipients))
    return True


class AnchorsUnreadable(ValueError):
    """The heads given are not an anchor file (words for the person who gave them)."""


def _documents(text: str) -> list[Any]:
    text = text.strip()
    if not text:
        raise AnchorsUnreadable("No heads were given: paste the JSON attached to an anchor e-mail.")
    try:
        parsed = json.loads(text)
        return parsed if isinstance(parsed, list) else [parsed]
    except json.JSONDecodeError:
        pass
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError:
        raise AnchorsUnreadable("These are not the heads of an anchor: expected the JSON attached to an anchor "
                                "e-mail (one, a list of them, or one a line).") from None


def read_anchors(text: str) -> Held:
    """``{chain: {sequence: (hash, where it came from)}}`` from one or more anchor documents."""
    held: Held = {}
    for number, document in enumerate(_documents(text), 1):
        heads = document.get("heads") if isinstance(document, dict) else None
        if not isinstance(heads, list):
            raise AnchorsUnreadable(f"Anchor {number} has no list of heads.")
        where = f"anchor {document.get('anchor', number)} of {str(document.get('made_at', '?'))[:16]}"
        for head in heads:
            if (not isinstance(head, list) or len(head) != 3 or not isinstance(head[0], str)
                    or not isinstance(head[1], int) or not isinstance(head[2], str)):
                raise AnchorsUnreadable(f"Anchor {number}: a head is not [chain, sequence, hash]: {str(head)[:80]}")
            held.setdefault(head[0], {})[head[1]] = (head[2], where)
    return held


def facility_anchors(facility: Facility) -> Any:
    """The facility's anchors, newest first, with their deliveries (for the chain page)."""
    return ChainAnchor.objects.filter(facility=facility).prefetch_related("deliveries").order_by("-made_at", "-pk")


def anchor_of(facility: Facility, pk: int) -> ChainAnchor | None:
    return ChainAnchor.objects.filter(facility=facility, pk=pk).select_related("facility").first()


def heads_check(held: Held) -> list[tuple[str, bool, str]]:
    """What the database says of each head the Board holds, in words: (chain, holds?, what was found).

    Quick enough for a page: the anchored link itself (its hash, its seal, its rows against its digests) and
    the stored hashes of every link before it following one another. The full verification
    (``verify_audit_chain --anchors``) recomputes every link from its rows."""
    from compliance.chain.link import link_hash_of, runs_of
    from compliance.chain.records import model_of
    from compliance.chain.rows import read_rows
    from compliance.models import ChainLink
    from compliance.models.chain import row_digest
    from compliance.seal_keys import seal_check

    found: list[tuple[str, bool, str]] = []
    for chain in sorted(held):
        for sequence, (expected, where) in sorted(held[chain].items()):
            name = f"{chain} link {sequence} ({where})"
            link = ChainLink.objects.filter(chain=chain, sequence=sequence).first()
            last = ChainLink.objects.filter(chain=chain).order_by("-sequence").values_list("sequence", flat=True).first()
            if link is None:
                found.append((name, False, f"missing: the database's chain ends at link {last or 0}; what followed was "
                                           "deleted (the chain was cut short)"))
                continue
            problems = []
            if link.link_hash != expected:
                problems.append("its hash differs from the one held: the chain was rewritten, reordered or cut at or "
                                "before it")
            if link_hash_of(chain, link.sequence, link.previous, link.ids, bytes(link.digests)) != link.link_hash:
                problems.append("its hash is not the hash of its digests")
            if seal_check(link.link_mac, link.link_hash.encode()):
                problems.append("its seal does not match")
            model = model_of(chain)
            ids = [pk for first, last_id in runs_of(link.ids) for pk in range(first, last_id + 1)]
            digests = bytes(link.digests)
            rows = {row.id: row for row in read_rows(model, ids=ids)} if model is not None else {}
            changed = [pk for index, pk in enumerate(ids) if pk not in rows or
                       row_digest(rows[pk].payload, rows[pk].seal) != digests[index * 32:(index + 1) * 32]]
            if changed:
                problems.append(f"{len(changed)} of its rows changed or gone (#{', #'.join(map(str, changed[:10]))})")
            chained = list(ChainLink.objects.filter(chain=chain, sequence__lte=sequence).order_by("sequence")
                           .values_list("sequence", "previous", "link_hash"))
            previous = ""
            for number, (seq, before, link_hash) in enumerate(chained, 1):
                if seq != number or before != previous:
                    problems.append(f"the links before it do not follow one another at link {number}")
                    break
                previous = link_hash
            found.append((name, not problems, "; ".join(problems) or
                          f"holds: the same hash; links 1–{sequence} follow one another; its {len(ids):,} rows match"))
    return found
