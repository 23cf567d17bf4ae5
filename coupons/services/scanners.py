"""Table scanners for the redemption API: registered to one table with a token shown once, revocable.

The token is 43 URL-safe characters from ``secrets``; only its SHA-256 is stored, so the database
never holds a usable token. Each device acts as its own service account (no password, no role, no
sign-in to the web), which history and the audit trail name.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from compliance.actors import acts_as_user
from compliance.models import Facility, GamingTable
from compliance.roles import Capability, require_capability
from coupons.models import ScannerDevice

__all__ = ["scanner_register", "scanner_revoke", "token_sha256"]


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
@acts_as_user
def scanner_register(*, facility: Facility, table: GamingTable, name: str, user: Any) -> tuple[ScannerDevice, str]:
    """A new scanner for ``table`` and its token, which is shown to the person this once."""
    require_capability(user, Capability.MANAGE_SCANNERS)
    if table.facility_id != facility.pk:
        raise ValidationError(f"Table {table.number} belongs to another facility.")
    name = " ".join((name or "").split())[:80]
    if not name:
        raise ValidationError("Give the scanner the name on its label, e.g. “TDF-2 scanner”.")
    token = secrets.token_urlsafe(32)
    account = get_user_model().objects.create(
        username=f"scanner-{secrets.token_hex(6)}", is_active=False, password="!scanner-account-no-login",  # noqa: S106 (unusable)
        first_name=name[:150],
    )
    device = ScannerDevice.objects.create(
        facility=facility, table=table, name=name, account=account, token_sha256=token_sha256(token),
        token_hint=token[:6], registered_by=user,
    )
    return device, token


@transaction.atomic
@acts_as_user
def scanner_revoke(*, device: ScannerDevice, reason: str, user: Any) -> ScannerDevice:
    """Revoke a scanner at once: its token is refused from the next request on, and a scan already under way that
    has not committed is refused when it does (migration 0035: the revocation takes the facility's lock, which
    every redemption's insert holds in share mode, and the redemption's guard reads the scanner after it)."""
    require_capability(user, Capability.MANAGE_SCANNERS)
    reason = " ".join((reason or "").split())[:200]
    if not reason:
        raise ValidationError("Say why the scanner is revoked (lost, replaced, moved to another table).")
    # FOR NO KEY UPDATE: a scan's foreign-key check holds the scanner FOR KEY SHARE and then waits for the facility's
    # lock, which the revocation's trigger takes (migration 0035); FOR UPDATE here would wait for that scan while
    # holding what it waits for.
    device = ScannerDevice.objects.select_for_update(no_key=True).get(pk=device.pk)
    if device.revoked_at is not None:
        raise ValidationError(f"{device.name} was already revoked on {device.revoked_at:%-d %b %Y}.")
    device.revoked_at, device.revoked_by, device.revoked_reason = timezone.now(), user, reason
    device.save(update_fields=["revoked_at", "revoked_by", "revoked_reason"])
    return device
