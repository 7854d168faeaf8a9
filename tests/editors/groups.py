"""Process groups of the editor tests' long-lived peers (code-server, Chromium): each is started in
a session of its own, remembered while it runs, and ended with its whole group. A SIGTERM to pytest
(a CI time-out, a person's kill) ends every remembered group before pytest dies, since pytest's
default SIGTERM death runs no fixture teardown and would leave them running."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Sequence
from types import FrameType
from typing import Any

_live: set[subprocess.Popen[bytes]] = set()
_lock = threading.Lock()


def start_group(args: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(args, start_new_session=True, **kwargs)``, remembered until killed."""
    proc: subprocess.Popen[bytes] = subprocess.Popen(list(args), start_new_session=True, **kwargs)
    with _lock:
        _live.add(proc)
    return proc


def kill_group(proc: subprocess.Popen[bytes], grace: float = 10) -> None:
    """SIGTERM the group, SIGKILL it after ``grace`` seconds, and SIGKILL whatever of the group
    outlived its leader (the extension host, lait-ls, Chromium's helpers)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    with _lock:
        _live.discard(proc)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    with _lock:
        procs = list(_live)
    for proc in procs:
        kill_group(proc, grace=2)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)  # then die of SIGTERM as before


def install_sigterm_handler() -> None:
    """Make SIGTERM end the remembered groups first (main thread only; idempotent)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
