"""The history manager's class made once a model, not once a save.

django-simple-history's ``HistoryDescriptor.__get__`` (3.13) builds ``HistoryManager.from_queryset(...)`` anew on each
access of ``Model.history``: a new class, its methods copied by ``inspect.getmembers``, about 250 µs. Each save of a
record with history reads it at least once (the history row's manager, and the audit receiver's previous record), so a
dice change at the table paid it four or five times (3 % of the floor's writer of a generated year, py-spy, 30 Nov
2026). The class built is the same each time (the descriptor's manager and queryset classes never change), so it is
built once a descriptor and kept; the manager itself is still made per access, bound to its instance as before.
Installed at start (``compliance.apps``); ``tests/compliance/test_history_managers.py`` checks the managers still
answer as the library's.
"""

from __future__ import annotations

from typing import Any

from simple_history.manager import HistoryDescriptor

__all__ = ["install"]

_ORIGINAL = HistoryDescriptor.__get__


def _get(self: Any, instance: Any, owner: Any) -> Any:
    made = self.__dict__.get("_manager_made")
    if made is None or made[0] is not self.manager_class or made[1] is not self.queryset_class:
        made = (self.manager_class, self.queryset_class, self.manager_class.from_queryset(self.queryset_class))
        self.__dict__["_manager_made"] = made
    return made[2](self.model, instance)


def install() -> None:
    """Make ``Model.history`` build its manager's class once (idempotent)."""
    HistoryDescriptor.__get__ = _get


def uninstall() -> None:
    """The library's own (a test compares the two)."""
    HistoryDescriptor.__get__ = _ORIGINAL
