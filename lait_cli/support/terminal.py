"""Terminal concerns shared by the run commands: the CLI's :class:`Interaction`, the Ctrl-C protocol
and the ``-o`` output file of streamed answers.

* :class:`ChatTerminal` adapts :class:`~lait_cli.support.terminal_dialogs.TerminalInteraction` (prompts on
  stderr, answers from stdin, streamed text to stdout): ``--quiet`` drops notes, ``-v`` adds debug
  lines.
* :func:`run_interruptible` runs a coroutine under the Ctrl-C protocol of docs/cli.md: the first
  SIGINT prints a note and cancels the run (HTTP requests, streams, tool process trees, pending
  prompts); the second exits at once with 130 after killing the process groups of the tools
  spawned so far.
* :class:`LazyFile` is the ``-o FILE`` sink of a stream: the file is truncated by the first write
  (round 1) and appended to afterwards.

Only the standard library is imported at module level; the engine is imported where it is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import sys
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, TypeVar

from lait_cli.support.terminal_dialogs import TerminalInteraction
from lait_core.engine.run.interaction import Event, Note, RoundStarted, UsageReported

__all__ = [
    "CTRL_C_NOTE",
    "ChatTerminal",
    "Interrupts",
    "LazyFile",
    "TerminalInteraction",
    "exit_now",
    "prompt_threads_alive",
    "run_interruptible",
]

_T = TypeVar("_T")

CTRL_C_NOTE = "lait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)...\n"


class ChatTerminal(TerminalInteraction):
    """:class:`TerminalInteraction` plus ``--quiet`` (no notes) and ``-v`` (debug lines on stderr)."""

    def __init__(self, *, quiet: bool = False, verbosity: int = 0, **kwargs: Any) -> None:
        super().__init__(verbose=verbosity > 0, **kwargs)
        self.quiet = quiet
        self.verbosity = verbosity
        self.usage_seen = False
        """Some response reported usage (``--json`` prints null otherwise)."""
        self.costs: list[float | None] = []
        """Each reported usage's cost (None: its model has no ``pricing``)."""

    def event(self, e: Event) -> None:
        if isinstance(e, Note) and self.quiet:
            return
        if isinstance(e, UsageReported):
            self.usage_seen = True
            self.costs.append(e.cost)
        if self.verbosity > 0:
            if isinstance(e, RoundStarted):
                self.debug(f"tool round {e.round}")
            elif isinstance(e, UsageReported):
                from lait_cli.support.answer_output import usage_line

                self.debug(usage_line(e.usage))
        super().event(e)

    def cost_text(self, first: int = 0) -> str:
        """The cost of the responses from the ``first`` on (:func:`lait_cli.support.answer_output.cost_text`)."""
        from lait_cli.support.answer_output import cost_text

        return cost_text(self.costs[first:])

    def debug(self, message: str) -> None:
        if self.verbosity > 0:
            self.stderr.write(f"debug: {message}\n")
            self.stderr.flush()


class LazyFile(io.TextIOBase):
    """A text sink that creates (truncates) ``path`` on the first write and appends afterwards."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self._file: TextIO | None = None

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self._file is None:
            self._file = self.path.open("w", encoding="utf-8", newline="")
        return self._file.write(text)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        super().close()


@dataclass
class Interrupts:
    """What the Ctrl-C handler saw, and the process groups to kill on the second Ctrl-C."""

    sigint: int = 0
    sigterm: int = 0
    """SIGTERM and SIGHUP both count here."""
    exit_code: int = 0
    """The status the first terminating signal asks for (143 or 129)."""
    groups: list[int] = field(default_factory=list)
    stderr: TextIO | None = None

    def on_spawn(self, pid: int) -> None:
        """For ``ShellToolSource(on_spawn=...)``: every tool child leads its own process group."""
        self.groups.append(pid)

    def kill_groups(self) -> None:
        from lait_core.engine.processes.spawn import kill_group, kill_live_groups

        for pgid in self.groups:
            kill_group(pgid)
        kill_live_groups()


def prompt_threads_alive() -> bool:
    """Whether an approval/elicitation/ask prompt thread is still blocked reading stdin."""
    return any(t.name == "lait-prompt" and t.is_alive() for t in threading.enumerate())


def exit_now(code: int) -> None:
    """Flush the standard streams and leave without interpreter shutdown.

    Used for the second Ctrl-C, and when an abandoned prompt thread still blocks in a read of
    stdin (finalising the interpreter would then wait for the stdin lock that thread holds).
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


SIGTERM_EXIT = 128 + signal.SIGTERM
"""143: the conventional status of a process ended by SIGTERM."""
SIGHUP_EXIT = 128 + signal.SIGHUP
"""129: the conventional status of a process ended by SIGHUP (closed terminal, lost SSH session)."""


def run_interruptible(coro: Coroutine[Any, Any, _T], interrupts: Interrupts) -> _T:
    """Run ``coro`` on a new event loop under the Ctrl-C protocol.

    The first SIGINT prints :data:`CTRL_C_NOTE` and cancels the task; the coroutine's own cleanup
    (killing and reaping tool process trees, closing connections) then runs and
    ``asyncio.CancelledError`` propagates to the caller. The second SIGINT kills the tool process
    groups spawned so far and exits with 130 immediately. SIGTERM kills those groups at once,
    cancels the task so its cleanup reaps them, and exits with 143; SIGHUP (the terminal closed)
    does the same and exits with 129.
    """
    stderr = interrupts.stderr or sys.stderr
    loop = asyncio.new_event_loop()
    task = loop.create_task(coro)

    def on_sigint() -> None:
        interrupts.sigint += 1
        if interrupts.sigint == 1:
            with contextlib.suppress(Exception):
                stderr.write(CTRL_C_NOTE)
                stderr.flush()
            task.cancel()
            return
        interrupts.kill_groups()
        exit_now(130)

    def on_terminate(code: int) -> None:
        # A supervisor (timeout(1), systemd, an editor) or a hang-up wants lait gone: kill every
        # child group at once (tool processes, MCP servers), let the run's own cleanup reap them,
        # exit 143 (129 after SIGHUP).
        interrupts.sigterm += 1
        interrupts.exit_code = interrupts.exit_code or code
        interrupts.kill_groups()
        if interrupts.sigterm == 1:
            task.cancel()
            return
        exit_now(interrupts.exit_code)

    installed = False
    try:
        if threading.current_thread() is threading.main_thread():
            loop.add_signal_handler(signal.SIGINT, on_sigint)
            loop.add_signal_handler(signal.SIGTERM, on_terminate, SIGTERM_EXIT)
            if hasattr(signal, "SIGHUP"):
                loop.add_signal_handler(signal.SIGHUP, on_terminate, SIGHUP_EXIT)
            installed = True
        return loop.run_until_complete(task)
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)
            loop.remove_signal_handler(signal.SIGTERM)
            if hasattr(signal, "SIGHUP"):
                loop.remove_signal_handler(signal.SIGHUP)
            if interrupts.sigint:
                # the run is over, but the process is not: a further Ctrl-C while it winds down
                # (printing, interpreter shutdown) is still the second one
                signal.signal(signal.SIGINT, lambda _sig, _frame: on_sigint())
        try:
            _cancel_leftovers(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
            if interrupts.sigterm:
                exit_now(interrupts.exit_code or SIGTERM_EXIT)


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for t in pending:
        t.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
