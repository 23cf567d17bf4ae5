"""Errors sent to an error tracker as well as mailed to ADMINS (issue 26, item 4), when ``ERROR_TRACKER_DSN`` names
one: Sentry's protocol, which a self-hosted Sentry or GlitchTip inside the casino's network also speaks.

What leaves the application is the error and where it happened, never what a person typed: no request bodies (a
patron list, a password at sign-in), no cookies or query strings (a patron's name searched for), no local variables
of the failing code, no user's e-mail or address. The user and facility are sent as the log lines carry them (the
username and the facility's code, compliance.log_context)."""

from __future__ import annotations

from typing import Any

__all__ = ["scrub", "start"]

_KEPT_REQUEST = ("method", "url")


def scrub(event: dict[str, Any], hint: dict[str, Any] | None = None) -> dict[str, Any]:
    """The event as it may leave: the request's method and path only, the person by username only."""
    request = event.get("request")
    if isinstance(request, dict):
        url = str(request.get("url") or "").split("?", 1)[0]
        event["request"] = {key: request[key] for key in _KEPT_REQUEST if key in request} | {"url": url}
    user = event.get("user")
    if isinstance(user, dict):
        event["user"] = {"username": user["username"]} if "username" in user else {}
    return event


def start(dsn: str, *, environment: str, release: str) -> None:
    """Start sending errors (web and Celery processes); called from the settings when a DSN is set."""
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=release,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        max_request_body_size="never",
        include_local_variables=False,
        traces_sample_rate=0.0,
        before_send=scrub,  # type: ignore[arg-type]
    )
