"""The hash chain over every sealed row: link, verify, anchor outside the casino, mark what changed.

* :mod:`~compliance.chain.rows`: sealed rows read fast as the canonical bytes of their seals;
* :mod:`~compliance.chain.link`: one chain per facility and sealed model, linear linking, the heads;
* :mod:`~compliance.chain.verify`: full and incremental verification, streaming, naming each record;
* :mod:`~compliance.chain.anchors`: the heads recorded, e-mailed to the Board, read back from its files;
* :mod:`~compliance.chain.integrity`: what pages and exports mark as altered;
* :mod:`~compliance.chain.alerts`: the e-mail to compliance on a break.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from compliance.chain.alerts import audit_chain_alert_send
from compliance.chain.anchors import (
    AnchorsUnreadable,
    anchor_of,
    anchor_record,
    anchor_send,
    anchors_for_ended_days,
    facility_anchors,
    heads_check,
    read_anchors,
)
from compliance.chain.integrity import ALTERED, altered_ids, altered_records, integrity_cell
from compliance.chain.link import chain_heads, chain_link, chain_link_all, link_hash_of
from compliance.chain.rows import read_rows, sealed_models
from compliance.chain.verify import (
    VERIFY_CHECKS,
    ChainReport,
    VerificationBusy,
    chain_verify,
    recent_verifications,
    verification_record,
)
from compliance.models import Facility, heads_digest

__all__ = [
    "ALTERED",
    "VERIFY_CHECKS",
    "AnchorsUnreadable",
    "ChainHead",
    "ChainReport",
    "VerificationBusy",
    "altered_ids",
    "altered_records",
    "anchor_of",
    "anchor_record",
    "anchor_send",
    "anchors_for_ended_days",
    "audit_chain_alert_send",
    "chain_head",
    "chain_heads",
    "chain_link",
    "chain_link_all",
    "chain_verify",
    "facility_anchors",
    "heads_check",
    "integrity_cell",
    "link_hash_of",
    "read_anchors",
    "read_rows",
    "recent_verifications",
    "sealed_models",
    "verification_record",
]


@dataclass(frozen=True)
class ChainHead:
    """Each chain's last link (sequence, hash) and the digest of them all."""

    links: dict[str, tuple[int, str]]
    digest: str

    def __str__(self) -> str:
        return self.digest


def chain_head(*, facility: Facility | None = None, link_first: bool = True) -> ChainHead:
    """The chains' heads now (of one facility and the facility-less chains, or of all)."""
    if link_first:
        chain_link_all()
    heads = chain_heads(facility)
    return ChainHead(links={str(chain): (int(str(seq)), str(h)) for chain, seq, h in heads},
                     digest=heads_digest(heads) if heads else hashlib.sha256(b"").hexdigest())
