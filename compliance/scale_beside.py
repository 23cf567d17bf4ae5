"""The second writer of a generated year: the parts declared ``beside`` (``compliance.registry.ScaleSeeder``) run in
a process of their own, forked from ``manage.py generate_casino``, while it goes on with the later stages' parts
(:mod:`compliance.scale_turns` says how the two keep the audit chain whole).

What the second process says comes back to the command through a pipe, line by line, as it says it; if a part fails
there, its traceback does, and :meth:`Beside.join` stops the command. The forked process inherits the plan (its
people, the floor) as it stood at the fork, and leaves what it adds to ``plan.shared`` to its own parts: a part that
reads what a ``beside`` part wrote is ``beside`` too, or ``waits``.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from django.db import connections
from django.utils.module_loading import import_string

from compliance.scale import ScalePlan
from compliance.scale_turns import writers_take_turns

__all__ = ["Beside", "run_part"]


def run_part(config: Any, seeder: Any, plan: ScalePlan, say: Callable[[str], None]) -> None:
    """One app's part, with its report, its time and the CPU its process spent on it (every thread of the process,
    not the database's: a year on two cores is bound by the CPU, and the wall clock of a part written beside another
    says little of its own cost), as the command prints it."""
    began, cpu = time.perf_counter(), time.process_time()
    say(f"  {config.verbose_name} ({seeder.function.rsplit('.', 1)[-1]}) …")
    words = import_string(seeder.function)(plan=plan)
    say(f"  {config.verbose_name}: {words} ({time.perf_counter() - began:,.0f} s; its process's CPU "
        f"{time.process_time() - cpu:,.0f} s)")


class Beside:
    """The parts ``beside`` running in a forked process; :meth:`join` waits for it."""

    def __init__(self, parts: Sequence[tuple[Any, Any]], plan: ScalePlan, say: Callable[[str], None]) -> None:
        connections.close_all()  # each process opens its own connection
        read_end, write_end = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover (the forked process: coverage does not follow it)
            os.close(read_end)
            os._exit(_child(parts, plan, os.fdopen(write_end, "w", buffering=1)))
        os.close(write_end)
        writers_take_turns(True)
        self.said: list[str] = []
        self._reader = threading.Thread(target=_forward, args=(os.fdopen(read_end), say, self.said), daemon=True)
        self._reader.start()

    def join(self) -> None:
        """Wait for the second process; a failure there stops the command (its traceback was said)."""
        _pid, status = os.waitpid(self.pid, 0)
        self._reader.join()
        writers_take_turns(False)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError("generate_casino: a part written beside the coupons failed: "
                               + "\n".join(self.said[-40:]))

    def stop(self) -> None:
        """The command failed: end the second process too."""
        try:
            os.kill(self.pid, signal.SIGTERM)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        writers_take_turns(False)


_INHERITED: list[Any] = []  # the parent's connection objects, kept so that nothing closes them from here


def _own_connections() -> None:  # pragma: no cover (forked)
    """Whatever connection the fork copied (one the parent had open despite ``close_all``) shares its socket with the
    parent: closing it here would end the parent's session, using it would mix the two processes' messages (a run of
    the test suite failed so: "server closed the connection unexpectedly"). Drop each unclosed and unused; each alias
    connects anew."""
    for each in connections.all(initialized_only=True):
        if each.connection is not None:
            _INHERITED.append(each.connection)
            each.connection = None


def _child(parts: Sequence[tuple[Any, Any]], plan: ScalePlan, out: Any) -> int:  # pragma: no cover (forked)
    _own_connections()

    def say(words: str) -> None:
        out.write(words + "\n")

    plan.say = say
    writers_take_turns(True)
    try:
        for config, seeder in parts:
            run_part(config, seeder, plan, say)
        return 0
    except BaseException:  # whatever it was, the command says it and stops
        say(traceback.format_exc())
        return 1
    finally:
        out.flush()
        connections.close_all()  # its own connections (the inherited ones are not in the handler any more)


def _forward(lines: Any, say: Callable[[str], None], said: list[str]) -> None:
    with lines:
        for line in lines:
            said.append(line.rstrip("\n"))
            say(said[-1])
