"""The redemption API's answers, and ``Idempotency-Key``: a retry gets the first answer back.

A scanner that timed out does not know whether its scan went through. Sent again with the same
``Idempotency-Key``, the request returns the answer the first one got (the same status and body,
with ``replayed``) — never a second redemption and never "already redeemed" for its own coupon. The
first *success* is stored in the same transaction as the redemption; a refusal changes nothing and
is not stored, so a retried refusal is judged again (and gives the same answer unless something
changed, e.g. finance closed the day). The same key with a different request is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError

from compliance.models import Facility
from coupons.models import Redemption, RedemptionAnswer, ScannerDevice
from coupons.redemption_rules import Refusal
from coupons.selectors.redemption import redemption_answer_for
from coupons.services.redemption import Accepted, Scan, redemption_record

__all__ = ["Answer", "answer_body", "redemption_answer", "redemption_data"]


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]
    replayed: bool = False


def redemption_data(r: Redemption) -> dict[str, Any]:
    return {
        "id": r.pk, "coupon": r.coupon, "series": r.series.name, "denomination": r.denomination,
        "denomination_cents": r.denomination_cents, "table": r.table.number, "game": r.game.name,
        "position": r.position, "chips_cents": r.chips_cents, "wager": r.wager,
        "gaming_date": r.gaming_date.isoformat(), "redeemed_at": r.redeemed_at.isoformat(), "channel": r.channel,
        "electronically_cancelled": True,
    }


def answer_body(accepted: Accepted) -> dict[str, Any]:
    return {"message": accepted.message, "instructions": list(accepted.instructions),
            "redemption": redemption_data(accepted.redemption)}


def _replay(account: Any, key: str, fingerprint: str) -> Answer | None:
    stored = redemption_answer_for(account.pk, key)
    if stored is None:
        return None
    if stored.request_sha256 != fingerprint:
        refusal = Refusal("idempotency_key_reused", f"The Idempotency-Key {key} was already used for another "
                                                    f"request; send a new key with each new scan.")
        return Answer(refusal.status, refusal.as_body())
    return Answer(stored.status, stored.body, replayed=True)


def redemption_answer(*, facility: Facility, scan: Scan, user: Any, device: ScannerDevice | None = None,
                      key: str = "", fingerprint: str = "") -> Answer:
    """Redeem (:func:`redemption_record`) and answer as the API does, honouring ``Idempotency-Key``."""
    account = device.account if device is not None else user
    # No look-up first: a first request (nearly every one) would pay for it. A retry of a success finds its
    # coupon redeemed, and a reused key for another coupon fails the answer's unique key and writes nothing:
    # either way the stored answer is looked up then, as it is after any refusal.

    def answer_of(accepted: Accepted) -> RedemptionAnswer | None:
        # Kept in the redemption's own transaction: a retry finds it exactly when the redemption committed.
        return RedemptionAnswer(account=account, key=key, request_sha256=fingerprint, status=201,
                                body=answer_body(accepted), redemption=accepted.redemption) if key else None

    try:
        accepted = redemption_record(facility=facility, scan=scan, user=user, device=device, answer_of=answer_of)
    except Refusal as refusal:
        # A retry (the first request may also have committed while this one waited on it), or the key reused.
        if key and (replayed := _replay(account, key, fingerprint)):
            return replayed
        return Answer(refusal.status, refusal.as_body())
    except IntegrityError:  # the same key committed by a concurrent retry of a *different* coupon's request
        replayed = _replay(account, key, fingerprint) if key else None
        if replayed is None:
            raise
        return replayed
    return Answer(201, answer_body(accepted))
