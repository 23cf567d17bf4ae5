"""A scan's reply as the API gives it, whichever way the request came in: the DRF view
(``RedemptionsView.post``) and the scanners' front door (:mod:`coupons.api.front`) both ask :func:`scan_reply`,
so the two cannot answer one scan differently (one authority for the answer; the service,
:func:`coupons.services.answers.redemption_answer`, for the redemption itself)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse

from compliance.log_context import bind
from coupons.api.errors import error_body
from coupons.models import ScannerDevice
from coupons.services.answers import redemption_answer
from coupons.services.redemption import Scan

__all__ = ["KEY_PATTERN", "Reply", "scan_reply", "scanner_table_problem"]

# What a client can check before sending, stated in the schema (the reply refuses the rest in words, 400).
KEY_PATTERN = r"^[A-Za-z0-9._:-]{1,80}$"
_KEY = re.compile(KEY_PATTERN)


@dataclass(frozen=True)
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def _fingerprint(data: dict[str, Any], table: str) -> str:
    canonical = json.dumps({**{k: str(v) for k, v in data.items()}, "table": table}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def scanner_table_problem(device: ScannerDevice, table_number: str) -> Reply | None:
    """A scanner's token names its table: another table named in the request is refused (403)."""
    if table_number and table_number != device.table.number:
        return Reply(403, error_body("wrong_table", f"The scanner {device.name} belongs to table "
                                                    f"{device.table.number}, not table {table_number}."))
    return None


def scan_reply(*, data: dict[str, Any], facility: Any, table: Any, device: ScannerDevice | None, user: Any,
               key: str, absolute_uri: Callable[[str], str]) -> Reply:
    """The reply to a scan whose request was read (``data``: the validated ``RedemptionRequestSerializer``) and
    whose facility and table are known: the redemption, or the refusal in words; ``Location`` of a new
    redemption, ``Idempotent-Replayed`` of an answer given before."""
    if device is not None:  # each log line of the scan names the scanner's account and its facility
        bind(user=device.account.get_username(), facility=facility.code)
    key = key.strip()
    if key and not _KEY.match(key):
        message = "The Idempotency-Key must be 1 to 80 of A–Z, a–z, 0–9, '.', '_', ':' or '-'."
        return Reply(400, error_body("invalid_request", message, fields={"Idempotency-Key": [message]}))
    scan = Scan(serial=data["serial"], table=table, position=data["position"],
                chips_cents=int(data["chips"] * 100), wager=data["wager"].strip())
    answer = redemption_answer(facility=facility, scan=scan, user=user, device=device, key=key,
                               fingerprint=_fingerprint(data, table.number))
    headers = {"Idempotent-Replayed": "true"} if answer.replayed else {}
    made = (answer.body.get("redemption") or {}).get("id") if answer.status == 201 else None
    if made is not None:  # where the redemption is read again (RedemptionDetailView)
        headers["Location"] = absolute_uri(reverse("coupons-api:redemption", args=[made]))
    return Reply(answer.status, answer.body, headers)
