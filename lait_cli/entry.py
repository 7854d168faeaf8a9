"""The ``lait`` console script. ``lait --version`` is answered here before typer and the command
modules are imported (the start-up target is 100 ms). A single-shot chat's first request is sent
ahead here when argv, the environment and the config say what it is (:mod:`lait_cli.support.send_ahead`; target: it
leaves within 250 ms). Everything else goes to :func:`lait_cli.main.main`."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] in (["--version"], ["-V"]):
        from lait_core import __version__

        sys.stdout.write(f"lait {__version__}\n")
        raise SystemExit(0)
    from lait_cli.support.send_ahead import send_ahead_if_chat

    send_ahead_if_chat(sys.argv[1:])  # a chat's first request leaves now; the engine adopts its answer
    from lait_cli.main import main as run

    try:
        run()
    except SystemExit as exc:
        _leave_quickly(exc.code)
        raise
    _leave_quickly(None)


def _leave_quickly(code: object) -> None:
    """Skip the interpreter's teardown if the command asked to (:mod:`lait_cli.support.quick_exit`)."""
    quick = sys.modules.get("lait_cli.support.quick_exit")
    if quick is not None:
        quick.leave(code)
