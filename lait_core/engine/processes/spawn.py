"""Spawning child processes the way the engine needs them: argv only (never a shell), each child
in its own process group (a new session), stdout/stderr captured with a per-stream byte cap, a
timeout, and -- on a cap, a timeout or cancellation -- the whole group killed with SIGKILL and the
child reaped before the call returns or re-raises.

Every child lait starts (tool commands, ``run:`` steps, stdio MCP servers, jq workers) is spawned
through :func:`spawn`, which

* spawns even when the caller is cancelled mid-spawn (asyncio's own clean-up of a subprocess
  cancelled while its pipes connect can wait for ever when a grandchild holds the pipes), and then
  kills and reaps what it spawned before re-raising;
* refuses an argv or environment holding a NUL byte with a :class:`ProcessError` (no program can
  receive one; Python would raise ``ValueError``);
* records the child's process group in a process-wide registry until :func:`kill_and_reap` has
  killed and reaped it, so that signal handlers (SIGINT twice, SIGTERM, SIGHUP) and interpreter
  exit can SIGKILL every group still alive (:func:`kill_live_groups`).

Descendants that leave the group (``setsid``, double forks into new sessions) cannot be reached;
that is the limit of process groups. On Windows there is no process group here (a Job Object
would be the equivalent); only the child itself is killed.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MIB = 1024 * 1024
OUTPUT_CAP = 16 * MIB
"""Default cap per captured stream."""
_READ_SIZE = 64 * 1024


class ProcessError(Exception):
    """The process could not be run to completion (the message is shown to users)."""


class SpawnError(ProcessError):
    def __init__(self, program: str, error: OSError) -> None:
        reason = error.strerror or str(error)
        super().__init__(f"failed to spawn '{program}': {reason}")
        self.program = program
        self.error = error


class OutputLimitExceeded(ProcessError):
    def __init__(self, program: str, stream: str, limit: int) -> None:
        super().__init__(
            f"command '{program}' wrote more than {_size(limit)} to {stream}; the process tree was killed"
        )
        self.program = program
        self.stream = stream
        self.limit = limit


class ProcessTimeout(ProcessError):
    def __init__(self, program: str, timeout: float) -> None:
        super().__init__(f"command '{program}' timed out after {timeout:g}s")
        self.program = program
        self.timeout = timeout


def _size(limit: int) -> str:
    if limit % MIB == 0:
        return f"{limit // MIB} MiB"
    if limit % 1024 == 0:
        return f"{limit // 1024} KiB"
    return f"{limit} bytes"


@dataclass(frozen=True, slots=True)
class Completed:
    """A finished process: exit code (negative: killed by that signal) and captured output."""

    argv: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes
    pid: int

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def status(self) -> str:
        """``exit status: N`` or ``signal: N (SIGNAME)``, as the original printed exit statuses."""
        return exit_status_text(self.returncode)


def exit_status_text(returncode: int) -> str:
    if returncode >= 0:
        return f"exit status: {returncode}"
    number = -returncode
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal: {number}"
    return f"signal: {number} ({name})"


async def run_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    stdin: bytes | None = b"",
    timeout: float | None = None,
    limit: int = OUTPUT_CAP,
    on_spawn: Callable[[int], None] | None = None,
) -> Completed:
    """Run ``argv`` to completion and capture its output.

    ``stdin``: bytes written to a pipe that is then closed (``b""``: closed at once); ``None``
    connects ``/dev/null``. ``env``: the complete environment (``None`` inherits). Raises
    :class:`SpawnError`, :class:`OutputLimitExceeded` (more than ``limit`` bytes on a stream) or
    :class:`ProcessTimeout`; on those and on cancellation the process group is killed and the
    child reaped first. ``on_spawn`` (a callable taking the pid) is called right after spawning,
    for tests and progress output.
    """
    if not argv:
        raise ProcessError("empty command")
    program = argv[0]
    posix = sys.platform != "win32"
    proc = await spawn(
        argv,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=cwd,
        on_spawn=on_spawn,
    )
    out = bytearray()
    err = bytearray()
    pumps: list[asyncio.Task[None]] = []
    try:
        if proc.stdin is not None:
            if stdin:
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    proc.stdin.write(stdin)
                    await proc.stdin.drain()
            proc.stdin.close()
        assert proc.stdout is not None and proc.stderr is not None
        pumps = [
            asyncio.create_task(_pump(proc.stdout, out, program, "stdout", limit)),
            asyncio.create_task(_pump(proc.stderr, err, program, "stderr", limit)),
        ]
        try:
            async with asyncio.timeout(timeout):
                await _first_error(pumps)
                returncode = await proc.wait()
        except TimeoutError:
            raise ProcessTimeout(program, timeout or 0) from None
        return Completed(tuple(argv), returncode, bytes(out), bytes(err), proc.pid)
    finally:
        for task in pumps:
            task.cancel()
        # Also after a normal exit: a member left in the group (a background child that closed
        # its pipes) must not outlive the call that started it.
        await kill_and_reap(proc, group=posix)
        for task in pumps:
            with contextlib.suppress(asyncio.CancelledError, ProcessError):
                await _settle(task)


async def _settle(task: asyncio.Task[None]) -> None:
    if not task.done():
        await asyncio.wait([task])
    if not task.cancelled():
        task.exception()


async def _first_error(tasks: list[asyncio.Task[None]]) -> None:
    """Wait for all tasks; raise the first exception as soon as it happens."""
    pending = set(tasks)
    while pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            exc = task.exception()
            if exc is not None:
                raise exc


async def _pump(reader: asyncio.StreamReader, buf: bytearray, program: str, name: str, limit: int) -> None:
    while True:
        chunk = await reader.read(_READ_SIZE)
        if not chunk:
            return
        if len(buf) + len(chunk) > limit:
            raise OutputLimitExceeded(program, name, limit)
        buf += chunk


_LIVE_GROUPS: set[int] = set()
"""Process groups (leader pids) spawned by :func:`spawn` and not yet killed and reaped."""


def live_groups() -> frozenset[int]:
    """The process groups spawned in this process that :func:`kill_and_reap` has not reaped yet."""
    return frozenset(_LIVE_GROUPS)


def kill_live_groups() -> None:
    """SIGKILL every tracked process group (no waiting, no asyncio: safe in a signal handler)."""
    for pgid in list(_LIVE_GROUPS):
        kill_group(pgid)


# A last resort for exits that skip the asyncio clean-up (``sys.exit`` from a server thread, an
# unhandled error): no child outlives the interpreter.
atexit.register(kill_live_groups)


def _nul_free(argv: Sequence[str], env: Mapping[str, str] | None, cwd: str | None) -> None:
    for position, item in enumerate(argv):
        if "\0" in item:
            raise ProcessError(
                f"argument {position} of '{argv[0]}' contains a NUL byte, which no program argument can hold"
            )
    for key, value in (env or {}).items():
        if "\0" in key or "\0" in value:
            raise ProcessError(f"environment variable {key!r} contains a NUL byte")
    if cwd is not None and "\0" in cwd:
        raise ProcessError("the working directory contains a NUL byte")


async def spawn(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    on_spawn: Callable[[int], None] | None = None,
    **pipes: Any,
) -> asyncio.subprocess.Process:
    """Start ``argv`` (no shell) as the leader of a new process group and track that group.

    ``pipes``: ``stdin``/``stdout``/``stderr`` as for :func:`asyncio.create_subprocess_exec`.
    Raises :class:`SpawnError` (the program cannot be started) or :class:`ProcessError` (a NUL
    byte). A cancellation that arrives while spawning waits for the spawn, kills and reaps the
    child, then propagates. ``on_spawn`` gets the pid once the child runs.
    """
    if not argv:
        raise ProcessError("empty command")
    _nul_free(argv, env, cwd)
    posix = sys.platform != "win32"
    task = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=posix,
            **pipes,
        )
    )
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
        except Exception:
            break
    try:
        proc = task.result()
    except OSError as exc:
        if cancelled:
            raise asyncio.CancelledError from None
        raise SpawnError(argv[0], exc) from exc
    except ValueError as exc:  # e.g. a surrogate in an argument: not encodable for the OS
        if cancelled:
            raise asyncio.CancelledError from None
        raise ProcessError(f"cannot run '{argv[0]}': {exc}") from None
    _LIVE_GROUPS.add(proc.pid)
    if on_spawn is not None:
        on_spawn(proc.pid)
    if cancelled:
        await kill_and_reap(proc, group=posix)
        raise asyncio.CancelledError
    return proc


def kill_group(pid: int, group: bool = True) -> None:
    """SIGKILL the process group led by ``pid`` (or just ``pid``); gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if group and sys.platform != "win32":
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)


def _close_pipes(proc: asyncio.subprocess.Process) -> None:
    """Close our ends of the child's pipes.

    ``Process.wait()`` returns only once every pipe transport is disconnected. A reader that stopped
    reading (the cap was hit, or the pumps were cancelled) leaves its transport paused, and a paused
    transport never sees EOF -- so without this, waiting for a killed child could hang for ever.
    ``Process`` has no public accessor for its transport, hence the attribute lookup.
    """
    transport = getattr(proc, "_transport", None)
    if transport is None:
        return
    for fd in (0, 1, 2):
        pipe = transport.get_pipe_transport(fd)
        if pipe is not None:
            pipe.close()


async def kill_and_reap(proc: asyncio.subprocess.Process, group: bool = True) -> None:
    """Kill the child's process group and wait for the child, even if cancelled meanwhile.

    A cancellation that arrives while reaping is re-raised after the child is reaped.
    """
    kill_group(proc.pid, group)
    _close_pipes(proc)
    waiter = asyncio.ensure_future(proc.wait())
    cancelled = False
    while not waiter.done():
        try:
            await asyncio.shield(waiter)
        except asyncio.CancelledError:
            cancelled = True
    if group and await _wait_group_dead(proc.pid):
        cancelled = True
    _LIVE_GROUPS.discard(proc.pid)
    if cancelled:
        raise asyncio.CancelledError


def group_exists(pgid: int) -> bool:
    """Whether any process (a zombie included) is still in group ``pgid``: one signal-0 probe, so the
    cost does not grow with the number of processes on the host."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member we may not signal is still a member
        return True
    return True


def live_group_members(pgid: int) -> list[int]:
    """Running (not zombie) processes of group ``pgid``; empty where ``/proc`` is missing."""
    proc_dir = "/proc"
    if not os.path.isdir(proc_dir):
        return []
    members = []
    for name in os.listdir(proc_dir):
        if not name.isdigit():
            continue
        try:
            with open(f"{proc_dir}/{name}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            members.append(int(name))
    return members


async def _wait_group_dead(pgid: int, limit: float = 2.0) -> bool:
    """After SIGKILL, wait (briefly, shielded from cancellation) until no member of the group still
    runs, so a caller that returns from a kill never leaves part of the tree behind. Orphaned
    members are reaped by init, not by us; a zombie counts as dead. ``/proc`` is scanned only while
    the group still has a member (a zombie or a survivor). Returns whether a cancellation
    arrived meanwhile (the caller re-raises it)."""
    cancelled = False
    if sys.platform != "linux":
        return cancelled
    if not group_exists(pgid):  # the usual case after a normal exit: no /proc scan at all
        return cancelled
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while group_exists(pgid) and live_group_members(pgid) and loop.time() < deadline:
        kill_group(pgid)
        try:
            await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            cancelled = True
    return cancelled
