"""Who is acting: the user behind every change, whether it came from the web, a command or a task.

simple_history asks :func:`history_user_getter` for the user of every history row. Web requests set
the actor in :class:`compliance.middleware.ActingUserMiddleware`; management commands and services
called outside a request use :func:`acting_as`; Celery tasks receive the publisher's actor in a
message header (``before_task_publish``) and restore it around the task (``task_prerun``).
Work with no human behind it (beat schedules) acts as the ``system`` service account.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

from celery.signals import before_task_publish, task_postrun, task_prerun
from django.contrib.auth import get_user_model

__all__ = [
    "ACTOR_HEADER",
    "SYSTEM_USERNAME",
    "acting_as",
    "acts_as_system",
    "acts_as_user",
    "current_actor",
    "history_user_getter",
    "system_user",
]

SYSTEM_USERNAME = "system"
ACTOR_HEADER = "compliance_actor_id"

_actor: contextvars.ContextVar[Any] = contextvars.ContextVar("compliance_actor", default=None)


def current_actor() -> Any:
    return _actor.get()


@contextmanager
def acting_as(user: Any) -> Iterator[Any]:
    """Attribute every change inside the block to ``user`` (a User or a user id)."""
    if isinstance(user, int):
        user = get_user_model().objects.get(pk=user)
    token = _actor.set(user)
    try:
        yield user
    finally:
        _actor.reset(token)


P = ParamSpec("P")
R = TypeVar("R")


def acts_as_user(service: Callable[P, R]) -> Callable[P, R]:
    """Attribute every row a service writes (history, audit events, bulk inserts) to its ``user``
    keyword argument, whoever called it: a view, a command, a task or a test."""

    @functools.wraps(service)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with acting_as(kwargs["user"]):
            return service(*args, **kwargs)

    return wrapper


def acts_as_system(service: Callable[P, R]) -> Callable[P, R]:
    """For services with no person behind them (sweeps, reminders, notifications): the actor already
    set (a task's publisher, restored from the message header) or else the ``system`` account."""

    @functools.wraps(service)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with acting_as(current_actor() or system_user()):
            return service(*args, **kwargs)

    return wrapper


def system_user() -> Any:
    """The service account for scheduled work (created by migration 0002; recreated if missing)."""
    user_model = get_user_model()
    user, _ = user_model.objects.get_or_create(
        username=SYSTEM_USERNAME, defaults={"is_active": False, "password": "!system-account-no-login"}
    )
    return user


def history_user_getter(instance: Any = None, request: Any = None, **kwargs: Any) -> Any:
    actor = _actor.get()
    if actor is not None:
        return actor
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user
    return None


@before_task_publish.connect
def _send_actor_with_task(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    actor = _actor.get()
    if headers is not None and actor is not None:
        headers[ACTOR_HEADER] = actor.pk


_task_tokens: dict[str, contextvars.Token[Any]] = {}


@task_prerun.connect
def _restore_actor(task_id: str | None = None, task: Any = None, **kwargs: Any) -> None:
    if task is None or task_id is None:
        return
    request = task.request
    if getattr(request, "is_eager", False):
        return  # eager tasks run inside the caller's context, actor included
    actor_id = getattr(request, ACTOR_HEADER, None)
    if actor_id is None:
        headers = getattr(request, "headers", None) or {}
        actor_id = headers.get(ACTOR_HEADER)
    user_model = get_user_model()
    actor = user_model.objects.filter(pk=actor_id).first() if actor_id else None
    if actor is None:
        actor = system_user()
    _task_tokens[task_id] = _actor.set(actor)


@task_postrun.connect
def _forget_actor(task_id: str | None = None, **kwargs: Any) -> None:
    token = _task_tokens.pop(task_id, None) if task_id else None
    if token is not None:
        _actor.reset(token)
