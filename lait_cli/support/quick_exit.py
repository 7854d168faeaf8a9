"""Leave without the interpreter's teardown, for a command that asked (`lait lint`).

A lint of 1,000 workflows ends with some million objects alive (frozen for the collector, and the
caches of the run); finalizing the interpreter frees them one by one and took 50-55 ms, a twentieth
of the whole run on 2 cores (docs/performance.md#what-keeps-lait-lint-fast). Nothing of that is
needed once the output is written: :func:`leave` flushes the standard streams, runs the
``atexit`` handlers, and exits with the command's code. The console script
(:mod:`lait_cli.entry`) calls it when the command has called :func:`request`.
"""

from __future__ import annotations

import atexit
import os
import sys

requested = False
"""Whether the running command asked to leave without the teardown."""


def request() -> None:
    global requested
    requested = True


def leave(code: object) -> None:
    """Exit now with ``code`` (a ``SystemExit`` code) if the command asked for it and the streams
    flush; otherwise return, and the interpreter exits as usual (reporting a broken pipe as it does)."""
    if not requested or not (code is None or isinstance(code, int)):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    atexit._run_exitfuncs()
    os._exit(code or 0)
