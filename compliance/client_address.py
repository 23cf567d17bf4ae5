"""The address of the person at the other end of a request, read through the proxies this installation trusts.

Behind the TLS proxy the deployment prescribes, ``REMOTE_ADDR`` is the proxy's address for everyone. The proxy
appends the address it was reached from to ``X-Forwarded-For``; anyone else can write whatever they like there.
So the header is read only when the request came from a proxy listed in ``TRUSTED_PROXIES`` (addresses or
networks, e.g. ``127.0.0.1,10.0.0.0/24``), from the right: each trusted hop is skipped, and the first address
that is not a trusted proxy is the client. A request from anywhere else is taken at its ``REMOTE_ADDR``, its
forwarded headers ignored. One answer for sign-in lock-outs (django-axes' ``AXES_CLIENT_IP_CALLABLE``) and for
the audit trail.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any

from django.conf import settings

__all__ = ["client_address", "trusted_networks"]

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries if entry.strip())


def trusted_networks() -> tuple[IPNetwork, ...]:
    """``TRUSTED_PROXIES`` as networks (settings checks each entry when it is read)."""
    return _networks(tuple(getattr(settings, "TRUSTED_PROXIES", ()) or ()))


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[2001:db8::1]:443"
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # "203.0.113.7:51000"
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped if mapped is not None else address


def _trusted(address: Any, networks: tuple[IPNetwork, ...]) -> bool:
    return any(address.version == network.version and address in network for network in networks)


def client_address(request: Any) -> str:
    """The client's address as text ("" when the request carries none that can be read)."""
    meta = getattr(request, "META", None) or {}
    peer = _address(str(meta.get("REMOTE_ADDR", "")))
    if peer is None:
        return ""
    networks = trusted_networks()
    if not networks or not _trusted(peer, networks):
        return str(peer)
    hops = [hop for hop in str(meta.get("HTTP_X_FORWARDED_FOR", "")).split(",") if hop.strip()]
    client = peer
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            break  # a hop no proxy of ours wrote: the last address we can vouch for stands
        client = address
        if not _trusted(address, networks):
            break
    return str(client)
