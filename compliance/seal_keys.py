"""The keys of the audit chain's seals, each with an id, so the key can be rotated and old seals still checked.

A seal reads ``<key id>:<HMAC-SHA256 hex>``: the HMAC of a row's canonical content (or of a link's hash)
under the key of that id. ``AUDIT_CHAIN_KEY`` is the key new seals are made with, ``AUDIT_CHAIN_KEY_ID``
its id (``1`` by default); ``AUDIT_CHAIN_RETIRED_KEYS`` (``id:key,id:key``) keeps earlier keys for
checking only. Seals made before keys had ids carry no prefix and are read as key ``1``.

The keys are never in the database: someone holding the database alone cannot make a seal. Losing every
copy of a key does not lose a record, only the means to prove that rows sealed under it are unchanged
(docs/foundation.md, "Where the key lives").
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass

from django.conf import settings

__all__ = ["LEGACY_KEY_ID", "KeyRing", "key_ring", "parse_retired_keys", "seal_check", "seal_of"]

LEGACY_KEY_ID = "1"
KEY_ID = re.compile(r"^[A-Za-z0-9_.-]{1,16}$")


@dataclass(frozen=True)
class KeyRing:
    current_id: str
    keys: dict[str, bytes]

    @property
    def current(self) -> bytes:
        return self.keys[self.current_id]


def parse_retired_keys(text: str) -> dict[str, str]:
    """``id:key,id:key`` (ids of letters, digits, ``.``, ``_``, ``-``): the keys kept to check old seals."""
    keys: dict[str, str] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        key_id, _, secret = pair.partition(":")
        if not KEY_ID.match(key_id) or not secret:
            raise ValueError(f"AUDIT_CHAIN_RETIRED_KEYS: {key_id or pair[:8]!r} is not 'id:key' (ids: letters, digits, "
                             "'.', '_' or '-', at most 16)")
        keys[key_id] = secret
    return keys


_cache: dict[tuple[str, str, tuple[tuple[str, str], ...]], KeyRing] = {}


def key_ring() -> KeyRing:
    """The keys from the settings (read anew when the settings change, as tests change them)."""
    current_id = str(getattr(settings, "AUDIT_CHAIN_KEY_ID", LEGACY_KEY_ID) or LEGACY_KEY_ID)
    current = settings.AUDIT_CHAIN_KEY
    if not current:
        raise RuntimeError("AUDIT_CHAIN_KEY is not set: rows cannot be sealed")
    retired = tuple(sorted(dict(getattr(settings, "AUDIT_CHAIN_RETIRED_KEYS", {}) or {}).items()))
    cache_key = (current_id, current, retired)
    if cache_key not in _cache:
        keys = {key_id: secret.encode() for key_id, secret in retired}
        keys[current_id] = current.encode()
        _cache.clear()
        _cache[cache_key] = KeyRing(current_id, keys)
    return _cache[cache_key]


def seal_of(payload: bytes) -> str:
    ring = key_ring()
    return f"{ring.current_id}:{hmac.digest(ring.current, payload, 'sha256').hex()}"


def seal_check(seal: str | None, payload: bytes, ring: KeyRing | None = None) -> str:
    """Why ``seal`` is not the seal of ``payload`` ("" when it is). ``ring``: the keys, read once by a caller
    checking many rows."""
    if not seal:
        return "it has no seal"
    key_id, colon, mac = seal.partition(":")
    if not colon:
        key_id, mac = LEGACY_KEY_ID, seal
    key = (ring or key_ring()).keys.get(key_id)
    if key is None:
        return f"it is sealed with key {key_id!r}, which this installation does not hold (AUDIT_CHAIN_RETIRED_KEYS)"
    if not hmac.compare_digest(mac, hmac.digest(key, payload, "sha256").hex()):
        return "its seal does not match its content (forged, or changed after it was sealed)"
    return ""
