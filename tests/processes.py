"""Finding the processes a test started, orphans included: a test puts ``LAIT_TEST_MARKER=<uuid>``
in the environment of what it starts, and every descendant inherits it (re-parented or not)."""

from __future__ import annotations

import time
from pathlib import Path


def running_with_marker(marker: str) -> list[int]:
    """Running (not zombie) processes whose environment holds ``LAIT_TEST_MARKER=<marker>``."""
    needle = f"LAIT_TEST_MARKER={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if needle not in environ.split(b"\0"):
            continue
        if stat[stat.rindex(")") + 2 :].split()[0] not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def wait_for_marked(marker: str, count: int, timeout: float = 30.0) -> list[int]:
    """The marked processes once at least ``count`` run, else the last look when ``timeout`` has
    passed. Assert on what this returns, never on a second look: a child in the middle of its exec
    shows no environment, so another look may miss a process this one saw."""
    deadline = time.monotonic() + timeout
    while len(seen := running_with_marker(marker)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return seen
